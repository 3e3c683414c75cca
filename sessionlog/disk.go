package sessionlog

import (
	"encoding/json"
	"strconv"
)

// How a log file ends (issue 15, item 6; rule S105). Every write of a
// well-behaved writer ends in a newline, and a write is acknowledged only
// once it is durable, so a file whose last line is incomplete JSON holds the
// trace of a write that did not finish and was never acknowledged. The
// reader refuses such a file with torn-tail and the byte offset where the
// torn line starts (the length of the committed prefix), instead of a
// parse error that would make the session unloadable with no way out; the
// repair (tavern-log repair, or the host's repair option) keeps a copy of
// the file and truncates it at that offset, so everything acknowledged
// stays and the log loads again.
//
// A last line that is complete JSON but lacks its newline is kept: it is a
// whole record, losing it would lose data, and appending after it must
// first write the missing newline (Tail.Unterminated), never glue a record
// onto it.

func tornTail(offset int64, lineNo int, line []byte) *Error {
	why := "incomplete JSON"
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		why = err.Error()
	}
	return &Error{
		Code: CodeTornTail, Rule: "S105", Seq: -1, Line: lineNo, Offset: &offset,
		Message: "line " + strconv.Itoa(lineNo) + ": torn tail at byte offset " + strconv.FormatInt(offset, 10) +
			": the last " + strconv.Itoa(len(line)) + " bytes are an unfinished write (" + why + "); " +
			"nothing after that offset was acknowledged. Run `tavern-log repair FILE` to keep a copy of the file and truncate it there",
	}
}

// ZstdMagic starts every Zstandard frame (RFC 8878), little-endian.
const ZstdMagic = 0xFD2FB528

// IsCompressed reports whether b starts with a Zstandard frame: the
// harness's compressed session file, which this package does not read
// (sessionlog/zstdlog does, natively).
func IsCompressed(b []byte) bool {
	return len(b) >= 4 && uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16|uint32(b[3])<<24 == ZstdMagic
}

// compressedLog refuses the harness's compressed file (session.jsonl.zstd,
// Zstandard frames: its default on disk) by name rather than as "line 1:
// invalid JSON". This package reads plaintext only, and a host that
// appends JSONL to such a file would corrupt it; tavern-log decompresses
// it first (sessionlog/zstdlog, native only).
func compressedLog() *Error {
	return &Error{
		Code: CodeUnsupportedFormat, Seq: -1,
		Message: "this is a compressed session file (Zstandard frames, the harness's session.jsonl.zstd): " +
			"read it through the harness, or with `tavern-log`, which decompresses it; this reader takes the plaintext JSONL",
	}
}

// Repair is what recovering a log file takes, decided from how its bytes
// end (S105). The file operations are the caller's (tavern-log repair, the
// host's repair option); both follow the same plan.
type Repair struct {
	// Action is "none", "terminate" (append the missing final newline; no
	// byte is removed) or "truncate" (keep a copy of the whole file at Copy,
	// then cut the file to TruncateTo bytes).
	Action     string `json:"action"`
	TruncateTo int64  `json:"truncateTo,omitempty"`
	Copy       string `json:"copy,omitempty"`
	Tail       Tail   `json:"tail"`
	// Events is the number of events the log holds after the repair.
	Events int `json:"events"`
}

// PlanRepair reads a log file's bytes and plans its repair. It fails, and
// nothing may be changed, when the log is invalid anywhere but in a torn
// last line, or when the header itself is torn (nothing would be left).
// now (epoch ms) names the copy: path + ".torn-<offset>-<now>".
func PlanRepair(b []byte, path string, now int64, opts DecodeOptions) (*Repair, error) {
	opts.AllowTornTail = true
	l, err := DecodeBytes(b, opts)
	if err != nil {
		return nil, err
	}
	r := &Repair{Action: "none", Tail: l.Tail, Events: l.Len()}
	switch {
	case l.Tail.Torn:
		r.Action, r.TruncateTo = "truncate", l.Tail.Offset
		r.Copy = path + ".torn-" + strconv.FormatInt(l.Tail.Offset, 10) + "-" + strconv.FormatInt(now, 10)
	case l.Tail.Unterminated:
		r.Action = "terminate"
	}
	return r, nil
}
