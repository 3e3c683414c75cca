package editops

import (
	"math"
	"strings"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// buf is a Buffer that counts how often content is pulled.
type buf struct {
	u                   []uint16
	lenCalls, unitCalls int
}

func (b *buf) Len() int        { b.lenCalls++; return len(b.u) }
func (b *buf) Units() []uint16 { b.unitCalls++; return b.u }

func B(s string) *buf { return &buf{u: jsvalue.U(s)} }

// S is a string argument; R gives it a facade ref so identity can be checked.
func S(s string) jsvalue.Value                   { return jsvalue.Str(jsvalue.U(s)) }
func R(v jsvalue.Value, ref int32) jsvalue.Value { v.Ref = ref; return v }
func N(f float64) jsvalue.Value                  { return jsvalue.Num(f) }

var (
	undef = jsvalue.Undef()
	null  = jsvalue.NullValue()
	obj   = jsvalue.Opaque(jsvalue.Object, 99)
	fn    = jsvalue.Opaque(jsvalue.Function, 98)
	negZ  = jsvalue.Num(math.Copysign(0, -1))
)

// D builds expected details from key/value pairs.
func D(kv ...any) *jsvalue.Obj {
	o := jsvalue.NewObj()
	for i := 0; i < len(kv); i += 2 {
		var v jsvalue.Value
		switch x := kv[i+1].(type) {
		case string:
			v = S(x)
		case int:
			v = jsvalue.Int(x)
		case *jsvalue.Obj:
			v = jsvalue.ObjValue(x)
		case jsvalue.Value:
			v = x
		default:
			panic("bad detail")
		}
		o.Set(kv[i].(string), v)
	}
	return o
}

func sameValue(a, b jsvalue.Value) bool {
	if a.Kind != b.Kind || a.Ref != b.Ref || a.Bool != b.Bool {
		return false
	}
	if a.Kind == jsvalue.Number && !(a.Num == b.Num && math.Signbit(a.Num) == math.Signbit(b.Num) || a.Num != a.Num && b.Num != b.Num) {
		return false
	}
	if !jsvalue.Equal(a.Str, b.Str) {
		return false
	}
	if (a.Obj == nil) != (b.Obj == nil) {
		return false
	}
	return a.Obj == nil || sameObj(a.Obj, b.Obj)
}

func sameObj(a, b *jsvalue.Obj) bool {
	if len(a.Keys) != len(b.Keys) {
		return false
	}
	for i := range a.Keys {
		if a.Keys[i] != b.Keys[i] || !sameValue(a.Vals[i], b.Vals[i]) {
			return false
		}
	}
	return true
}

func showObj(o *jsvalue.Obj) string {
	if o == nil {
		return "null"
	}
	var sb strings.Builder
	sb.WriteString("{")
	for i, k := range o.Keys {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(k + ": " + showValue(o.Vals[i]))
	}
	sb.WriteString("}")
	return sb.String()
}

func showValue(v jsvalue.Value) string {
	s := ""
	switch v.Kind {
	case jsvalue.String:
		s = "'" + jsvalue.GoString(v.Str) + "'"
	case jsvalue.Object:
		if v.Obj != nil {
			s = showObj(v.Obj)
		} else {
			s = "object"
		}
	default:
		s = jsvalue.GoString(v.Display())
	}
	if v.Ref != 0 {
		s += "#" + itoa(int(v.Ref))
	}
	return s
}

// wantErr asserts an EditorOpsError's code, exact message and details.
func wantErr(t *testing.T, err *apierr.Error, code, msg string, details *jsvalue.Obj) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s %q", code, msg)
	}
	if err.Class != apierr.EditorOpsError || err.Code != code {
		t.Fatalf("got class %d code %s; want EditorOpsError %s (%s)", err.Class, err.Code, code, jsvalue.GoString(err.Message))
	}
	if got := jsvalue.GoString(err.Message); got != msg {
		t.Fatalf("message\n got %q\nwant %q", got, msg)
	}
	if details != nil && (err.Details == nil || !sameObj(err.Details, details)) {
		t.Fatalf("details\n got %s\nwant %s", showObj(err.Details), showObj(details))
	}
}

// wantText asserts a successful Text edit that yields want from cur.
func wantText(t *testing.T, cur string, e Edit, err *apierr.Error, want string) {
	t.Helper()
	wantUnits(t, Text, cur, e, err, jsvalue.U(want))
}

func wantUnits(t *testing.T, target Target, cur string, e Edit, err *apierr.Error, want []uint16) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v", err)
	}
	if e.Noop || e.Buf != target {
		t.Fatalf("edit %+v: want a write of buffer %d", e, target)
	}
	got := Apply(jsvalue.U(cur), e.Splices)
	if !jsvalue.Equal(got, want) {
		t.Fatalf("got %q (%x), want %q", jsvalue.GoString(got), got, jsvalue.GoString(want))
	}
}

func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }

// ixbuf also offers IndexOf, as a facade that searches in JS would.
type ixbuf struct {
	buf
	indexCalls int
}

func (b *ixbuf) IndexOf(sub jsvalue.Value, from int) int {
	b.indexCalls++
	return jsvalue.Index(b.u, sub.Str, from)
}

func IX(s string) *ixbuf { return &ixbuf{buf: buf{u: jsvalue.U(s)}} }
