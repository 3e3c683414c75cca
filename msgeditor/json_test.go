package msgeditor

import (
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
