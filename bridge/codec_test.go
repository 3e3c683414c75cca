package bridge

import (
	"math"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// T1/T5: values survive the encoding unit for unit, lone surrogates and
// -0/NaN included.
func TestCodecRoundTrip(t *testing.T) {
	var e Encoder
	lone := []uint16{0xD83D, 'a', 0xDC00}
	e.Value(jsvalue.Str(lone))
	e.Value(jsvalue.Num(math.Copysign(0, -1)))
	e.Value(jsvalue.Num(math.NaN()))
	e.Value(jsvalue.Bool(true))
	e.Value(jsvalue.NullValue())
	e.Value(jsvalue.Undef())
	e.Unit(TagObject)
	e.Unit(BrandAbortSignal)
	e.u32(70000)
	d := NewDecoder(e.Out(), len(e.Out()))
	if v, _ := d.Value(); v.Kind != jsvalue.String || !jsvalue.Equal(v.Str, lone) {
		t.Fatalf("string %v", v)
	}
	if v, _ := d.Value(); !math.Signbit(v.Num) || v.Num != 0 {
		t.Fatalf("-0 %v", v)
	}
	if v, _ := d.Value(); !math.IsNaN(v.Num) {
		t.Fatal("NaN")
	}
	if v, _ := d.Value(); v.Kind != jsvalue.Boolean || !v.Bool {
		t.Fatal("bool")
	}
	if v, _ := d.Value(); v.Kind != jsvalue.Null {
		t.Fatal("null")
	}
	if v, _ := d.Value(); v.Kind != jsvalue.Undefined {
		t.Fatal("undefined")
	}
	if v, b := d.Value(); v.Kind != jsvalue.Object || b != BrandAbortSignal || v.Ref != 70000 {
		t.Fatalf("object %v %d", v, b)
	}
}

func TestDecoderRejectsTruncatedInput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a truncated string must panic (and Contain turns it into an error)")
		}
	}()
	NewDecoder([]uint16{TagString, 0, 0, 5, 0, 'a'}, 6).Value()
}

func TestEncodeErrRecord(t *testing.T) {
	err := apierr.New(apierr.EditorOpsError, "invalid_offset", "offset 9 out of range [0, 2]").
		With("reason", jsvalue.ASCII("out_of_range")).With("offset", jsvalue.Num(9)).With("given", jsvalue.Opaque(jsvalue.Object, 3))
	var e Encoder
	EncodeErr(&e, err)
	d := NewDecoder(e.Out(), len(e.Out()))
	if d.Unit() != uint16(apierr.EditorOpsError) || jsvalue.GoString(d.Units()) != "invalid_offset" || jsvalue.GoString(d.Units()) != "offset 9 out of range [0, 2]" {
		t.Fatal("header")
	}
	if d.Unit() != TagRecord || d.u32() != 3 || jsvalue.GoString(d.Units()) != "reason" {
		t.Fatal("details record")
	}
	if v, _ := d.Value(); jsvalue.GoString(v.Str) != "out_of_range" || v.Ref != 0 {
		t.Fatal("reason value")
	}
	d.Units()
	d.Value()
	if jsvalue.GoString(d.Units()) != "given" || d.Unit() != TagRef || d.u32() != 3 {
		t.Fatal("a Ref value hands back the facade's original")
	}
	if d.Unit() != TagNull {
		t.Fatal("cause null")
	}
}

func TestContainTurnsPanicsIntoInternalErrors(t *testing.T) {
	f := func() (st int32) {
		defer Contain(&st)
		var m map[string]int
		//lint:ignore SA5000 the test needs a real runtime panic
		m["x"] = 1
		return OK
	}
	if st := f(); st != Failed || last == nil || last.Code != "internal" || last.Class != apierr.Internal {
		t.Fatalf("status %d, last %v", st, last)
	}
	if msg := jsvalue.GoString(last.Message); msg != "tavern-core internal error: assignment to entry in nil map" {
		t.Fatalf("message %q", msg)
	}
	last = nil
	g := func() (st int32) {
		defer Contain(&st)
		return OK
	}
	if g() != OK || last != nil {
		t.Fatal("a normal call is untouched")
	}
}
