package main

// The session-log entry: every call takes a log (JSONL bytes) or an open log
// handle plus a small JSON argument, and answers one JSON envelope,
// {"ok":true,"value":…} or {"ok":false,"error":{code,message,rule?,seq?,line?}}.
// These calls are not hot, so they use the slow lane with JSON in and out.
//
// Exactness: JSON cannot carry a lone UTF-16 surrogate losslessly (an
// escaped "\ud800" decodes to U+FFFD in Go, and the JS ⇄ Go string
// conversion goes through UTF-8 anyway), so session-log text is exact
// through UTF-8 JSON rather than through the UTF-16 fast-lane codec. Logs
// written by the harness are UTF-8 files, so nothing representable is lost.
//
// This file is pure Go so the API is tested natively; main_js.go binds it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"tavern-core/sessionlog"
)

// logOptions are the reader options a JS caller may pass.
type logOptions struct {
	ImportSnapshot bool `json:"importSnapshot"`
	Live           bool `json:"live"`
	AllowTornTail  bool `json:"allowTornTail"`
}

func (o logOptions) decode() sessionlog.DecodeOptions {
	return sessionlog.DecodeOptions{ImportSnapshot: o.ImportSnapshot, Live: o.Live, AllowTornTail: o.AllowTornTail}
}

// envArgs is the world outside the log (sessionlog.Env) as JS passes it.
type envArgs struct {
	AgentRunning bool  `json:"agentRunning"`
	WakePending  bool  `json:"wakePending"`
	Time         int64 `json:"time"`
}

func (e envArgs) env() sessionlog.Env {
	return sessionlog.Env{AgentRunning: e.AgentRunning, WakePending: e.WakePending, Time: e.Time}
}

// planArgs is a plan request: the route's body shape plus the op and env.
type planArgs struct {
	envArgs
	Op                string            `json:"op"`
	Target            sessionlog.Target `json:"target"`
	Text              *string           `json:"text"`
	RemoveAttachments []string          `json:"removeAttachments"`
}

// apiError is the error half of the envelope.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Rule    string `json:"rule,omitempty"`
	Seq     *int   `json:"seq,omitempty"`
	Line    int    `json:"line,omitempty"`
	Offset  *int64 `json:"offset,omitempty"` // a torn tail's byte offset (S105)
}

func errorOf(err error) apiError {
	var se *sessionlog.Error
	if errors.As(err, &se) {
		e := apiError{Code: se.Code, Message: se.Message, Rule: se.Rule, Line: se.Line, Offset: se.Offset}
		if se.Seq >= 0 {
			seq := se.Seq
			e.Seq = &seq
		}
		return e
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return *ae
	}
	return apiError{Code: sessionlog.CodeInternal, Message: err.Error()}
}

func (e *apiError) Error() string { return e.Message }

func badRequest(format string, args ...any) error {
	return &apiError{Code: sessionlog.CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

// envelope renders a result or an error.
func envelope(value any, err error) []byte {
	var out any
	if err != nil {
		out = map[string]any{"ok": false, "error": errorOf(err)}
	} else if raw, isRaw := value.(json.RawMessage); isRaw {
		// Built by the call itself (the fold view): pasted, not re-encoded.
		b := make([]byte, 0, len(raw)+20)
		b = append(b, `{"ok":true,"value":`...)
		return append(append(b, raw...), '}')
	} else {
		out = map[string]any{"ok": true, "value": value}
	}
	b, mErr := sessionlog.EncodeJSON(out)
	if mErr != nil {
		b, _ = sessionlog.EncodeJSON(map[string]any{"ok": false, "error": apiError{Code: sessionlog.CodeInternal, Message: mErr.Error()}})
	}
	return b
}

// strictArgs decodes a JSON argument, refusing unknown fields so client drift
// shows up as bad-request instead of being ignored. Empty means {}.
func strictArgs(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	// encoding/json reads a lone surrogate escape as U+FFFD: an edit's text
	// would be planned changed, as if the caller had sent that (S44: stored
	// verbatim; S4: no pretend success). Refused, as the route refuses it.
	if u, lone := sessionlog.LoneSurrogate(raw); lone {
		return badRequest("invalid arguments: a string holds half of a character (a lone surrogate, \\u%04x), which would arrive changed; nothing was done", u)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("invalid arguments: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("invalid arguments: unexpected data after the JSON value")
	}
	return nil
}

// decodeLog reads a log from input, which the call hands over: the log
// aliases it (the JS entry copies the bytes into a fresh slice per call).
func decodeLog(input []byte, opts logOptions) (*sessionlog.Log, error) {
	return sessionlog.DecodeOwned(input, opts.decode())
}

// validate answers a verdict rather than an error: an invalid log is the
// expected answer of this call, not a failure of it.
func validate(input []byte, opts logOptions) (any, error) {
	l, err := decodeLog(input, opts)
	if err != nil {
		var se *sessionlog.Error
		if errors.As(err, &se) && (se.Code == sessionlog.CodeInvalidLog || se.Code == sessionlog.CodeTornTail || se.Code == sessionlog.CodeUnsupportedFormat) {
			e := errorOf(err)
			v := map[string]any{"ok": false, "error": e.Message, "code": e.Code, "rule": e.Rule, "seq": e.Seq, "line": e.Line}
			if e.Offset != nil {
				v["offset"] = *e.Offset
			}
			return v, nil
		}
		return nil, err
	}
	return map[string]any{"ok": true, "version": l.Version(), "events": l.Len()}, nil
}

// foldView is {version, surface, messages, length}, the messages pasted
// from the log's bytes (sessionlog.AppendFoldJSON).
func foldView(l *sessionlog.Log) (any, error) {
	b, err := l.AppendFoldJSON(nil)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

func transcriptView(l *sessionlog.Log, env envArgs) any {
	return map[string]any{"version": l.Version(), "rows": l.Transcript(), "overlay": l.Overlay(env.env())}
}

// plan runs the planner; "regenerate-turn" is regenerate restricted to a
// model-reply target, as the CLI's --op of the same name (S59).
func plan(l *sessionlog.Log, raw []byte) (any, error) {
	var a planArgs
	if err := strictArgs(raw, &a); err != nil {
		return nil, err
	}
	req := sessionlog.Request{Op: sessionlog.Op(a.Op), Target: a.Target, Text: a.Text, RemoveAttachments: a.RemoveAttachments}
	switch a.Op {
	case "edit", "undo", "regenerate":
	case "regenerate-turn":
		req.Op = sessionlog.OpRegenerate
		ev, err := l.ResolveTarget(a.Target)
		if err != nil {
			return nil, err
		}
		if ev.Type != "assistant/message" {
			return nil, badRequest("regenerate-turn targets a model reply; use op regenerate for a user message")
		}
	default:
		return nil, badRequest("op must be edit, undo, regenerate or regenerate-turn, not %q", a.Op)
	}
	p, err := l.Plan(req, a.env())
	if err != nil {
		return nil, err
	}
	out := map[string]any{"unchanged": p.Unchanged, "events": []any{}}
	if p.Unchanged {
		return out, nil
	}
	out["events"] = []any{p.Event}
	out["originalSeq"] = p.OriginalSeq
	out["inFlight"] = p.InFlight
	out["wake"] = p.Wake
	if p.Wake {
		out["shadowedSeqs"] = p.ShadowedSeqs
		out["trigger"] = l.Trigger(p.Event.Seq)
	} else {
		out["replacedSeq"] = p.ReplacedSeq
	}
	return out, nil
}

// logs is the table of open log handles. Ids are never reused, so a stale
// id answers "closed" instead of reaching another log.
type logs struct {
	next  int
	table map[int]*sessionlog.Log
}

func (t *logs) get(id int) (*sessionlog.Log, error) {
	l := t.table[id]
	if l == nil {
		return nil, badRequest("session log handle %d is closed", id)
	}
	return l, nil
}

func logInfo(id int, l *sessionlog.Log) any {
	return map[string]any{"id": id, "version": l.Version(), "length": l.Len(), "tail": l.Tail}
}

// call dispatches one API call by name. The stateless calls (validate,
// fold, transcript, plan, open) take the JSONL log as input and args
// {options?, env?, request?}; the log.* calls work on an open handle id and
// take an event (log.append, log.check) or their own JSON argument.
// wholeLogMemoryLimit is the Go memory at which a whole-log call collects
// despite the paused collector (wasm32 memory ends at 4 GiB).
const wholeLogMemoryLimit = 1 << 30

func (t *logs) call(name string, id int, input, args []byte) (any, error) {
	if !strings.HasPrefix(name, "log.") {
		// Everything a whole-log call allocates (the events, their
		// envelopes) stays reachable until it returns, so a collection
		// during it frees nothing and only costs marking and write
		// barriers — a fifth of a fold under WebAssembly, measured.
		// Collections wait for the call; the first one after it frees the
		// lot. The call runs to completion on this goroutine (it never
		// waits on JS), so nothing else allocates meanwhile. The soft
		// memory limit keeps a huge log from growing the heap without
		// bound: near it the collector runs anyway.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(wholeLogMemoryLimit))
		var a struct {
			Options logOptions      `json:"options"`
			Env     envArgs         `json:"env"`
			Request json.RawMessage `json:"request"`
			Path    string          `json:"path"` // repair-plan
			Now     int64           `json:"now"`  // repair-plan
		}
		if err := strictArgs(args, &a); err != nil {
			return nil, err
		}
		switch name {
		case "validate":
			return validate(input, a.Options)
		case "repair-plan":
			// The host's repair option follows the same plan as
			// tavern-log repair (S105); the host does the file work.
			return sessionlog.PlanRepair(input, a.Path, a.Now, a.Options.decode())
		case "fold", "transcript", "plan", "open":
		default:
			return nil, badRequest("unknown call %q", name)
		}
		l, err := decodeLog(input, a.Options)
		if err != nil {
			return nil, err
		}
		switch name {
		case "fold":
			return foldView(l)
		case "transcript":
			return transcriptView(l, a.Env), nil
		case "plan":
			return plan(l, a.Request)
		}
		t.next++
		if t.table == nil {
			t.table = map[int]*sessionlog.Log{}
		}
		t.table[t.next] = l
		return logInfo(t.next, l), nil
	}
	if name == "log.close" {
		delete(t.table, id)
		return nil, nil
	}
	l, err := t.get(id)
	if err != nil {
		return nil, err
	}
	switch name {
	case "log.append", "log.check":
		// seq is the log length: an event appended through a handle is
		// validated exactly where the harness would put it (V1 included).
		ev, err := sessionlog.ParseEvent(input, l.Len())
		if err != nil {
			return nil, err
		}
		// What the harness's append takes: the validator, then the append
		// rules beyond the surface (S111).
		if name == "log.check" {
			if err := l.CheckAppend(ev); err != nil {
				return nil, err
			}
			return logInfo(id, l), nil
		}
		if err := l.AppendChecked(ev); err != nil { // all or nothing (S22)
			return nil, err
		}
		return map[string]any{"id": id, "version": l.Version(), "length": l.Len(), "seq": ev.Seq}, nil
	case "log.info":
		return logInfo(id, l), nil
	case "log.fold":
		return foldView(l)
	case "log.transcript":
		var env envArgs
		if err := strictArgs(args, &env); err != nil {
			return nil, err
		}
		return transcriptView(l, env), nil
	case "log.plan":
		return plan(l, args)
	case "log.encode":
		var buf bytes.Buffer
		if err := l.Encode(&buf); err != nil {
			return nil, err
		}
		return buf.String(), nil
	}
	return nil, badRequest("unknown call %q", name)
}
