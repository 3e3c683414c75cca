package msgeditor

import (
	"slices"
	"testing"

	"tavern-core/jsvalue"
)

// S92: an edited text the widget sends keeps lone surrogates as JSON
// escapes (the edge reads the textarea exactly, as WTF-8).
func TestQuoteEscapesLoneSurrogates(t *testing.T) {
	s := jsvalue.WTF8([]uint16{'a', 0xD800, 'b', 0xD83D, 0xDE00, '"'})
	if got, want := Quote(s), `"a\ud800b😀\""`; got != want {
		t.Fatalf("Quote = %s, want %s", got, want)
	}
	v, err := Parse(Quote("plain \n text"))
	if err != nil || v.Str() != "plain \n text" {
		t.Fatal(err)
	}
}

// The route's numbers: integers exact, the JSON grammar enforced.
func TestNumbers(t *testing.T) {
	for s, want := range map[string]float64{"0": 0, "-12": -12, "1700000000123": 1700000000123, "2.5": 2.5, "1e3": 1000, "-0.125E+1": -1.25} {
		if v, err := Parse(s); err != nil || v.N != want {
			t.Errorf("%s: %v %v", s, v, err)
		}
	}
	for _, s := range []string{"01", "1.", ".5", "-", "1e", "+1", "0x10", "1.2.3"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%s parsed", s)
		}
	}
}

// S6, S48: a lone surrogate the state carries (a message sent with one)
// stays itself, in WTF-8, so the untouched draft is the message's text and
// goes back out as the same escape; a pair still joins.
func TestParseKeepsLoneSurrogates(t *testing.T) {
	for _, c := range []struct {
		in    string
		units []uint16
		out   string
	}{
		{`"x\ud83dy"`, []uint16{'x', 0xD83D, 'y'}, `"x\ud83dy"`},
		{`"\ude00"`, []uint16{0xDE00}, `"\ude00"`},
		{`"\ud83d\u0041"`, []uint16{0xD83D, 'A'}, `"\ud83dA"`},
		{`"\ud83d\ud83d"`, []uint16{0xD83D, 0xD83D}, `"\ud83d\ud83d"`},
		{`"\udc00\ud800end"`, []uint16{0xDC00, 0xD800, 'e', 'n', 'd'}, `"\udc00\ud800end"`},
		{`"a\ud83d\ude00b"`, []uint16{'a', 0xD83D, 0xDE00, 'b'}, `"a😀b"`},
	} {
		v, err := Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := jsvalue.FromWTF8(v.Str()); !slices.Equal(got, c.units) {
			t.Errorf("%s → %x, want %x", c.in, got, c.units)
		}
		if q := Quote(v.Str()); q != c.out {
			t.Errorf("Quote(Parse(%s)) = %s, want %s", c.in, q, c.out)
		}
	}
}
