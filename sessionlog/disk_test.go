package sessionlog

import (
	"bytes"
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

// S105: a whole last record without its newline, then NUL bytes (the next
// write extended the file but its blocks, newline included, never reached
// the disk): the record stays; the torn part starts after it, and the
// repair cuts there, leaving the record for writers to terminate.
func TestS105_WholeRecordThenNULsKeepsTheRecord(t *testing.T) {
	b, err := os.ReadFile(fixturePath("f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	whole := b[:len(b)-1] // seq 19, complete, no newline
	torn := append(append([]byte{}, whole...), make([]byte, 64)...)
	_, err = DecodeBytes(torn, DecodeOptions{})
	e, ok := err.(*Error)
	if !ok || e.Code != CodeTornTail || e.Offset == nil || *e.Offset != int64(len(whole)) {
		t.Fatalf("%v", err)
	}
	l, err := DecodeBytes(torn, DecodeOptions{AllowTornTail: true})
	if err != nil || !l.Tail.Torn || !l.Tail.Unterminated || l.Tail.Offset != int64(len(whole)) || l.Tail.TornBytes != 64 || l.Len() != 20 {
		t.Fatalf("%v %+v", err, l.Tail)
	}
	r, err := PlanRepair(torn, "f", 1, DecodeOptions{})
	if err != nil || r.Action != "truncate" || r.TruncateTo != int64(len(whole)) || r.Events != 20 {
		t.Fatalf("%v %+v", err, r)
	}
	// A torn record (incomplete JSON) then NULs is torn from its start.
	cut := append(append([]byte{}, whole[:len(whole)-5]...), make([]byte, 8)...)
	if _, err := DecodeBytes(cut, DecodeOptions{}); err == nil || *err.(*Error).Offset != int64(bytes.LastIndexByte(whole, '\n')+1) {
		t.Fatalf("%v", err)
	}
}
