package sessionlog

import (
	"os"
	"testing"
)

// S105: a last line of NUL bytes and its newline (a crash left the write's
// blocks unwritten after the newline's) is a torn tail at its offset, and
// the torn-tolerant read keeps everything before it; NULs before the last
// line stay an invalid log.
func TestS105_NULTailIsTorn(t *testing.T) {
	b, err := os.ReadFile(fixturePath("f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	torn := append(append([]byte{}, b...), "\x00\x00\x00\x00\n"...)
	_, err = DecodeBytes(torn, DecodeOptions{})
	e, ok := err.(*Error)
	if !ok || e.Code != CodeTornTail || e.Offset == nil || *e.Offset != int64(len(b)) {
		t.Fatalf("%v", err)
	}
	l, err := DecodeBytes(torn, DecodeOptions{AllowTornTail: true})
	if err != nil || !l.Tail.Torn || l.Tail.Offset != int64(len(b)) || l.Len() != 20 {
		t.Fatalf("%v %+v", err, l)
	}
	mid := append(append([]byte{}, "\x00\x00\n"...), b...)
	if _, err := DecodeBytes(mid, DecodeOptions{}); err == nil || err.(*Error).Code == CodeTornTail {
		t.Fatalf("NULs before the last line: %v", err)
	}
}
