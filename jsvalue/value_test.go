package jsvalue

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

func TestNumberStringMatchesJS(t *testing.T) {
	cases := map[float64]string{
		1e21: "1e+21", 1e20: "100000000000000000000", 1e-7: "1e-7", 0.000001: "0.000001",
		1.5: "1.5", -1: "-1", 123456789012: "123456789012", 2147483648: "2147483648",
		math.NaN(): "NaN", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", math.Copysign(0, -1): "0",
		1.2345e-10: "1.2345e-10", 5e300: "5e+300", 0.1: "0.1", 16.5: "16.5", 1.7976931348623157e308: "1.7976931348623157e+308",
		// The integer path's edges: 2^53 and past it, negatives, 10^21 − ε.
		9007199254740992: "9007199254740992", 9007199254740994: "9007199254740994", -9007199254740992: "-9007199254740992",
		-42: "-42", 7: "7", 999999999999999900000: "999999999999999900000", 1e19: "10000000000000000000",
	}
	for f, want := range cases {
		if got := NumberString(f); got != want {
			t.Errorf("NumberString(%v) = %q, want %q", f, got, want)
		}
	}
}

// NumberString agrees with V8's Number.prototype.toString on 500 doubles of
// every magnitude (testdata/jsvalue/number-tostring.gen.js made the file).
func TestNumberStringMatchesV8(t *testing.T) {
	b, err := os.ReadFile("../testdata/jsvalue/number-tostring.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][2]string
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 500 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		bits, err := strconv.ParseUint(r[0], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		f := math.Float64frombits(bits)
		if got := NumberString(f); got != r[1] {
			t.Errorf("NumberString(%v) = %q, V8 says %q", f, got, r[1])
		}
	}
}

// T26: JSON.stringify escapes as in its well-formed form.
func TestJSONQuoteT26(t *testing.T) {
	in := Cat(U("a\"\\\b\t\n\f\r\x01<>&\u2028"), []uint16{0xD83D}, U("😀"), []uint16{0xDE00})
	want := Cat(U(`"a\"\\\b\t\n\f\r\u0001<>&`+"\u2028"+`\ud83d`), U("😀"), U(`\ude00"`))
	if got := JSONQuote(in); !Equal(got, want) {
		t.Fatalf("got %q want %q", GoString(got), GoString(want))
	}
}

// O34: trim follows String.prototype.trim (U+FEFF trimmed, U+0085 kept).
func TestTrimO34(t *testing.T) {
	in := Cat([]uint16{0xFEFF, 0x2003}, U(" a "), []uint16{0x85})
	if got := Trim(in); !Equal(got, Cat(U("a "), []uint16{0x85})) {
		t.Fatalf("got %v", got)
	}
}

func TestDisplayAndTypeOf(t *testing.T) {
	cases := []struct {
		v    Value
		want string
	}{
		{Undef(), "undefined"}, {NullValue(), "null"}, {Bool(true), "true"}, {Num(1e21), "1e+21"},
		{ASCII("x"), "x"}, {Opaque(Object, 1), "object"}, {Opaque(Symbol, 1), "symbol"}, {Opaque(BigInt, 1), "bigint"},
		{Opaque(Function, 1), "function"},
	}
	for _, c := range cases {
		if got := GoString(c.v.Display()); got != c.want {
			t.Errorf("Display(%v) = %q want %q", c.v, got, c.want)
		}
	}
	if NullValue().TypeOf() != "object" {
		t.Fatal("typeof null must be object")
	}
	for _, c := range []struct {
		f    float64
		want bool
	}{{1, true}, {math.Copysign(0, -1), true}, {1.5, false}, {math.NaN(), false}, {math.Inf(1), false}, {1e21, true}} {
		if Num(c.f).IsInteger() != c.want {
			t.Errorf("IsInteger(%v) != %v", c.f, c.want)
		}
	}
	if ASCII("1").IsInteger() {
		t.Fatal("string is not an integer")
	}
}

func TestIndexOverlapping(t *testing.T) {
	s := U("aaa")
	if Index(s, U("aa"), 0) != 0 || Index(s, U("aa"), 1) != 1 || Index(s, U("aa"), 2) != -1 {
		t.Fatal("overlapping index")
	}
}
