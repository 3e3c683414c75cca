package sessionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
)

// Header is the first line of a log (S5). It is not an event and has no seq.
type Header struct {
	Version int
	// Fields holds the header object as read, unknown fields included.
	Fields map[string]any
}

// Event is one envelope (S6). Fields holds the object as read, so fields the
// reader does not understand survive a copy untouched — except that an event
// read from a log may keep its data member as raw JSON, outside Fields, until
// Data first needs it. Read data through Data, and the whole envelope through
// MarshalJSON.
type Event struct {
	// Type is data.type rendered as a string ("undefined" when absent).
	Type string
	// Seq is the event's index in the log it was read from or planned for.
	Seq    int
	Fields map[string]any

	rawData  []byte // data's JSON text, not yet decoded (nil: data is in Fields)
	dataOnce sync.Once
	data     any
}

// Data returns the event's data member (nil when absent). Data kept as raw
// JSON is decoded once, on first use; concurrent callers are safe.
func (e *Event) Data() any {
	if e.rawData == nil {
		return e.Fields["data"]
	}
	e.dataOnce.Do(func() {
		// The lean reader checked the syntax, so this cannot fail.
		e.data, _ = decodeValue(e.rawData)
	})
	return e.data
}

// MarshalJSON writes the envelope exactly as held.
func (e *Event) MarshalJSON() ([]byte, error) {
	if e.rawData == nil {
		return EncodeJSON(e.Fields)
	}
	m := make(map[string]any, len(e.Fields)+1)
	for k, v := range e.Fields {
		m[k] = v
	}
	m["data"] = e.Data()
	return EncodeJSON(m)
}

// ParseEvent reads one JSON envelope. seq is the index it is meant for; the
// envelope's own seq field is checked against it by the validator (V1).
func ParseEvent(line []byte, seq int) (*Event, error) {
	if ev := leanEvent(line, seq, false); ev != nil {
		return ev, nil
	}
	v, err := decodeValue(line)
	if err != nil {
		return nil, &Error{Code: CodeInvalidLog, Message: err.Error(), Seq: seq}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Code: CodeInvalidLog, Message: "session event must be a JSON object", Seq: seq}
	}
	return newEvent(m, seq), nil
}

func newEvent(m map[string]any, seq int) *Event {
	t, ok := m["type"]
	return &Event{Type: render(t, ok), Seq: seq, Fields: m}
}

// leanEvent reads an envelope through the lean reader, keeping data as raw
// JSON; nil means the caller must take the generic path. Unless the caller
// owns line (a fresh slice nothing else holds), data is copied.
func leanEvent(line []byte, seq int, owned bool) *Event {
	f, raw, ok := parseEnvelope(line)
	if !ok {
		return nil
	}
	ev := newEvent(f, seq)
	if raw != nil {
		if !owned {
			raw = append([]byte(nil), raw...)
		}
		ev.rawData = raw
	}
	return ev
}

// DecodeOptions selects reader behaviour.
type DecodeOptions struct {
	// ImportSnapshot assigns seq = position and time = 0 to events that lack
	// them, for the harness's stored test snapshots (S17, S103).
	ImportSnapshot bool
	// Live folds a live session's snapshot: unknown, non-ignorable types are
	// log-only instead of refused (S14).
	Live bool
}

// Decode reads a whole JSONL log (header line plus events), validates every
// event in order and folds it. Blank lines are skipped. The first problem is
// returned as an *Error; nothing partial is returned with it.
func Decode(r io.Reader, opts DecodeOptions) (*Log, error) {
	br := bufio.NewReader(r)
	var l *Log
	lineNo := 0
	for {
		raw, readErr := br.ReadBytes('\n')
		if len(raw) > 0 {
			lineNo++
			if err := decodeLine(&l, raw, lineNo, opts); err != nil {
				return nil, err
			}
		}
		if readErr == io.EOF {
			break
		}
		if readErr != nil {
			return nil, &Error{Code: CodeReadFailed, Message: readErr.Error(), Seq: -1}
		}
	}
	if l == nil {
		return nil, &Error{Code: CodeInvalidLog, Message: "session log is empty: the header line is missing", Seq: -1, Line: 1}
	}
	return l, nil
}

// DecodeBytes is Decode over an in-memory log.
func DecodeBytes(b []byte, opts DecodeOptions) (*Log, error) {
	return Decode(bytes.NewReader(b), opts)
}

func decodeLine(lp **Log, raw []byte, lineNo int, opts DecodeOptions) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if *lp != nil && !opts.ImportSnapshot {
		// The common case: an event line the lean reader accepts. raw is
		// a fresh slice from ReadBytes, so the event may keep it.
		l := *lp
		if ev := leanEvent(raw, len(l.Events), true); ev != nil {
			if err := l.Append(ev); err != nil {
				e := err.(*Error)
				e.Line = lineNo
				return e
			}
			return nil
		}
	}
	v, err := decodeValue(raw)
	if err != nil {
		return &Error{Code: CodeInvalidLog, Message: "line " + itoa(lineNo) + ": " + err.Error(), Seq: -1, Line: lineNo}
	}
	if *lp == nil {
		h, herr := parseHeader(v)
		if herr != nil {
			herr.Line = lineNo
			return herr
		}
		*lp = NewLog(h, opts.Live)
		return nil
	}
	l := *lp
	m, ok := v.(map[string]any)
	if !ok {
		return &Error{Code: CodeInvalidLog, Message: "line " + itoa(lineNo) + ": session event must be a JSON object", Seq: len(l.Events), Line: lineNo}
	}
	events := []map[string]any{m}
	if opts.ImportSnapshot {
		if _, ok := m["seq"]; !ok {
			events = unpackChunks(m)
		}
	}
	for _, m := range events {
		if opts.ImportSnapshot {
			if _, ok := m["seq"]; !ok {
				m["seq"] = json.Number(itoa(len(l.Events)))
			}
			if _, ok := m["time"]; !ok {
				m["time"] = json.Number("0")
			}
		}
		if err := l.Append(newEvent(m, len(l.Events))); err != nil {
			e := err.(*Error)
			e.Line = lineNo
			return e
		}
	}
	return nil
}

// unpackChunks expands the snapshot tooling's packed streaming rows
// (text-chunks, reasoning-chunks, tool-call-chunks) back into one
// assistant/chunk event per delta. Each packed row stands for that many
// events of the original log: the assistant/message after it cites their
// seqs, so counting the row as one event would make those citations point
// at or past the message itself (V13). Rows of any other shape are kept.
func unpackChunks(m map[string]any) []map[string]any {
	typ, _ := m["type"].(string)
	d, _ := m["data"].(map[string]any)
	if d == nil {
		return []map[string]any{m}
	}
	var deltas []any
	var chunkType, field string
	switch typ {
	case "text-chunks":
		deltas, _ = d["texts"].([]any)
		chunkType, field = "text-delta", "text"
	case "reasoning-chunks":
		deltas, _ = d["texts"].([]any)
		chunkType, field = "reasoning-delta", "text"
	case "tool-call-chunks":
		deltas, _ = d["args"].([]any)
		chunkType, field = "tool-call-delta", "argumentsDelta"
	}
	if len(deltas) == 0 {
		return []map[string]any{m}
	}
	out := make([]map[string]any, 0, len(deltas))
	for _, x := range deltas {
		chunk := map[string]any{"type": chunkType, "index": d["index"], field: x}
		if typ == "tool-call-chunks" {
			chunk["id"], chunk["name"] = d["id"], d["name"]
		}
		out = append(out, map[string]any{
			"type": "assistant/chunk",
			"data": map[string]any{"turn": d["turn"], "step": d["step"], "chunk": chunk},
		})
	}
	return out
}

func parseHeader(v any) (Header, *Error) {
	m, ok := v.(map[string]any)
	if !ok || m["type"] != "session" {
		return Header{}, &Error{Code: CodeInvalidLog, Rule: "S5", Message: `session log header must be a JSON object with type "session"`, Seq: -1}
	}
	raw, present := m["version"]
	if !present {
		// The oldest stored child-session logs omit the version (S5).
		return Header{Version: 0, Fields: m}, nil
	}
	n, ok := seqValue(raw, 0)
	if !ok || n > 4 {
		return Header{}, &Error{Code: CodeInvalidLog, Rule: "V23", Message: "unsupported session format version " + render(raw, true), Seq: -1}
	}
	return Header{Version: n, Fields: m}, nil
}

// NewLog starts an empty log with the given header. live selects the S14
// treatment of unknown types.
func NewLog(h Header, live bool) *Log {
	if h.Fields == nil {
		h.Fields = map[string]any{"type": "session", "version": json.Number(itoa(h.Version))}
	}
	return &Log{
		Header:     h,
		live:       live,
		shadows:    map[int][]int{},
		shadowedBy: map[int]int{},
	}
}

// LiveSnapshot builds the log of a live session from its header version and
// its events as JSON envelopes (S2, S14). Unknown non-ignorable types are
// log-only; everything else is validated as usual.
func LiveSnapshot(version int, events []json.RawMessage) (*Log, error) {
	if version < 0 || version > 4 {
		return nil, &Error{Code: CodeInvalidLog, Rule: "V23", Message: "unsupported session format version " + itoa(version), Seq: -1}
	}
	l := NewLog(Header{Version: version}, true)
	for i, raw := range events {
		ev, err := ParseEvent(raw, i)
		if err != nil {
			return nil, err
		}
		if err := l.Append(ev); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// Encode writes the log back as JSONL: header line then one event per line.
func (l *Log) Encode(w io.Writer) error {
	b, err := EncodeJSON(l.Header.Fields)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(b)
	bw.WriteByte('\n')
	for _, e := range l.Events {
		b, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
