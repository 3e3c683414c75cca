package sessionlog

import (
	"bytes"
	"os"
	"strings"
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

// S105, S108: a blank line is no record. Before a later record the harness
// refuses the file, and so does tavern-core (it was skipped, so a file the
// harness will not load validated); blank lines at the end are a torn tail
// the repair truncates, as the harness truncates them at resume (kept, an
// append after them would have made the first kind).
func TestS105_BlankLines(t *testing.T) {
	b, err := os.ReadFile(fixturePath("f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	second := bytes.IndexByte(b, '\n') + 1
	third := second + bytes.IndexByte(b[second:], '\n') + 1
	for _, blank := range []string{"\n", " \t\n", "\r\n"} {
		mid := append(append(append([]byte{}, b[:third]...), blank...), b[third:]...)
		_, err := DecodeBytes(mid, DecodeOptions{AllowTornTail: true})
		if e, ok := err.(*Error); !ok || e.Code != CodeInvalidLog || e.Line != 3 {
			t.Fatalf("%q inside: %v", blank, err)
		}
	}
	// A record is one line: one spread over two was read whole by the fast
	// reader (its JSON whitespace crossed the newline).
	split := append(append([]byte{}, b[:third-1]...), strings.Replace(string(b[third-1:]), `,"seq"`, ",\n\"seq\"", 1)...)
	if _, err := DecodeBytes(split, DecodeOptions{}); err == nil || err.(*Error).Code != CodeInvalidLog || err.(*Error).Line != 3 {
		t.Fatalf("a record over two lines: %v", err)
	}
	for _, tail := range []string{"\n", "\n\n", "  \n", "   "} {
		torn := append(append([]byte{}, b...), tail...)
		_, err := DecodeBytes(torn, DecodeOptions{})
		if e, ok := err.(*Error); !ok || e.Code != CodeTornTail || *e.Offset != int64(len(b)) {
			t.Fatalf("%q at the end: %v", tail, err)
		}
		r, err := PlanRepair(torn, "f", 1, DecodeOptions{})
		if err != nil || r.Action != "truncate" || r.TruncateTo != int64(len(b)) || r.Events != 20 {
			t.Fatalf("%q: %v %+v", tail, err, r)
		}
	}
}

// S5: a header names its session (a string id); S108: a stored v0 file's
// createdAt is what the harness's reader requires, a non-negative safe
// integer. The version is checked first, as the harness does.
func TestS5_S108_HeaderIDAndCreatedAt(t *testing.T) {
	ev := `{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}` + "\n"
	cases := map[string]string{
		`{"type":"session","version":4,"createdAt":0}`:                    "session log header has no id (a string)",
		`{"type":"session","version":0,"id":7,"createdAt":0}`:             "session log header has no id (a string)",
		`{"type":"session","version":0,"id":"s","createdAt":"yesterday"}`: "corrupt session log: first line is not a session header",
		`{"type":"session","version":0,"id":"s"}`:                         "corrupt session log: first line is not a session header",
		`{"type":"session","version":0,"id":"s","createdAt":-1}`:          "corrupt session log: first line is not a session header",
		`{"type":"session","version":0,"id":"s","createdAt":1.5}`:         "corrupt session log: first line is not a session header",
		`{"type":"session","version":0,"id":"s","createdAt":-0}`:          "corrupt session log: first line is not a session header",
		`{"type":"session","version":9,"createdAt":0}`:                    "unsupported session format version 9",
	}
	for head, want := range cases {
		_, err := DecodeBytes([]byte(head+"\n"+ev), DecodeOptions{})
		if e, ok := err.(*Error); !ok || e.Message != want || e.Line != 1 {
			t.Fatalf("%s: %v", head, err)
		}
	}
	for _, head := range []string{
		`{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"{{cwd}}"}`, // the shared snapshots' template (S17)
		`{"type":"session","id":"s"}`,                                           // no version: v0 by S5's decision
		`{"type":"session","version":4,"id":"s"}`,                               // v1–v4 keep the specification's rules
	} {
		if _, err := DecodeBytes([]byte(head+"\n"), DecodeOptions{}); err != nil {
			t.Fatalf("%s: %v", head, err)
		}
	}
}
