package jsvalue

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// Every sequence of code units survives WTF8 → FromWTF8, lone and paired
// surrogates in every position included.
func TestWTF8RoundTrip(t *testing.T) {
	cases := [][]uint16{
		nil, U("plain"), U("ä€😀"), U("an ASCII run, then ä€😀, then ASCII again"),
		{'a', 0xD800, 'b'}, {0xDC00}, {0xD83D}, {0xD83D, 0xDE00}, {0xDE00, 0xD83D},
		{0xD800, 0xD800, 0xDC00}, {'x', 0xDBFF}, {0xFFFF, 0x10, 0}, {0xE000, 0xDFFF},
	}
	for _, u := range cases {
		if got := FromWTF8(WTF8(u)); !Equal(got, u) {
			t.Errorf("%x → %q → %x", u, WTF8(u), got)
		}
	}
	if WTF8(U("ä😀")) != "ä😀" {
		t.Fatal("well-formed text is plain UTF-8")
	}
}

func FuzzWTF8(f *testing.F) {
	f.Add([]byte{0, 0xD8, 0x61, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		if got := FromWTF8(WTF8(u)); !Equal(got, u) {
			t.Fatalf("%x → %x", u, got)
		}
	})
}

// AppendUnits appends what FromWTF8 makes, never more units than s has
// bytes (WriteString reserves that much), on any string, WTF-8 or not (a Go
// string from anywhere may reach the DOM batch).
func TestAppendUnits(t *testing.T) {
	for _, s := range []string{"", "plain", "ä€😀", "\xed\xa0\x80", "a\xed\xa0", "\xff\xfe", "\xf0\x9f", "x\xed\xbf\xbfy", "\xf4\x90\x80\x80"} {
		checkUnits(t, s)
	}
	// Well-formed text against the standard library's UTF-16.
	for _, s := range []string{"plain", "ASCII first, then ä€😀 and ASCII", "😀 first", "<p>x</p>"} {
		if got, want := AppendUnits(nil, s), utf16.Encode([]rune(s)); !Equal(got, want) {
			t.Fatalf("AppendUnits(%q) = %x, want %x", s, got, want)
		}
	}
}

func FuzzAppendUnits(f *testing.F) {
	f.Add("a\xed\xa0\x80b😀")
	f.Fuzz(checkUnits)
}

func checkUnits(t *testing.T, s string) {
	want := FromWTF8(s)
	if len(want) > len(s) {
		t.Fatalf("%q: %d units from %d bytes", s, len(want), len(s))
	}
	if got := AppendUnits([]uint16{7}, s); !Equal(got[1:], want) || got[0] != 7 {
		t.Fatalf("AppendUnits(%q) = %x, want 7 then %x", s, got, want)
	}
	if got := WTF8(want); utf8Valid(s) && got != s {
		t.Fatalf("%q → %x → %q", s, want, got)
	}
}

// utf8Valid: well-formed UTF-8 round-trips through the units unchanged.
func utf8Valid(s string) bool { return utf8.ValidString(s) }
