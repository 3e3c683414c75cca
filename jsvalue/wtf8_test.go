package jsvalue

import "testing"

// Every sequence of code units survives WTF8 → FromWTF8, lone and paired
// surrogates in every position included.
func TestWTF8RoundTrip(t *testing.T) {
	cases := [][]uint16{
		nil, U("plain"), U("ä€😀"),
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
