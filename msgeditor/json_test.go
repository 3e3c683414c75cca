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
