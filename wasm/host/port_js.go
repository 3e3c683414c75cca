//go:build js && wasm

package main

// The route's host port (route.Port) over the JS object js/session-log.js
// builds from the host's sessions and agents. That facade only marshals:
// events cross as one JSON string (JSON.stringify escapes lone surrogates,
// so the text is exact up to Go's JSON decoding, see api.go), event parts
// cross back as JSON strings for the facade to parse.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"syscall/js"
	"time"

	"tavern-core/bridge"
	"tavern-core/sessionlog/route"
)

// jsPort is the host's port; wait bounds each answer the route waits for
// with its session lock held (awaitWithin), and authorize's.
type jsPort struct {
	v    js.Value
	wait time.Duration
}

func (p jsPort) Session(id string) (route.Session, bool) {
	s, err := jsCall(func() js.Value { return p.v.Call("session", id) })
	if err != nil || isNullish(s) {
		// A host that cannot answer has no live session for the id (S78).
		return nil, false
	}
	sess := jsSession{v: s, wait: p.wait}
	if bridge.TypeOf(s.Get("flush")) == js.TypeFunction {
		return jsFlushingSession{sess}, true
	}
	return sess, true
}

// Authorize calls the host's auth hook with the original Fetch Request.
// Only the boolean true (or a promise of it) authorizes; a throw, a
// rejection and every other answer — 'false', {}, 1 — is a refusal
// (S85.2): a hook that means to allow says so exactly.
func (p jsPort) Authorize(r *http.Request) bool {
	v, err := callAwaitWithin(func() js.Value { return p.v.Call("authorize", fetchRequestOf(r)) }, p.wait)
	return err == nil && bridge.TypeOf(v) == js.TypeBoolean && v.Bool()
}

func (p jsPort) Origin() string  { return p.str("origin") }
func (p jsPort) Version() string { return p.str("version") }

func (p jsPort) str(name string) string {
	v, err := jsCall(func() js.Value { return p.v.Call(name) })
	if err != nil || bridge.TypeOf(v) != js.TypeString {
		return ""
	}
	return v.String()
}

type jsSession struct {
	v    js.Value
	wait time.Duration
}

func (s jsSession) HeaderVersion() (int, error) {
	v, err := jsCall(func() js.Value { return s.v.Call("headerVersion") })
	if err != nil {
		return 0, err
	}
	if !isCount(v) {
		return -1, nil // answered as unsupported-format: NaN or 4.5 is no version
	}
	return v.Int(), nil
}

// isCount is a number the harness may answer for a version or a seq: a
// non-negative integer JavaScript holds exactly.
func isCount(v js.Value) bool {
	if bridge.TypeOf(v) != js.TypeNumber {
		return false
	}
	f := v.Float()
	return f >= 0 && f <= 1<<53-1 && f == float64(int64(f))
}

// Events reads the snapshot synchronously: between it and Append nothing
// may yield to the event loop (S81), so a promise here is refused.
func (s jsSession) Events() ([]json.RawMessage, error) {
	v, err := jsCall(func() js.Value { return s.v.Call("events") })
	if err != nil {
		return nil, err
	}
	if bridge.TypeOf(v) != js.TypeString {
		return nil, errors.New("session snapshot must be returned synchronously")
	}
	var events []json.RawMessage
	if err := json.Unmarshal([]byte(v.String()), &events); err != nil {
		return nil, fmt.Errorf("session snapshot is not a JSON array of events: %v", err)
	}
	return events, nil
}

// Append hands the event to the harness synchronously; only its answer may
// arrive later (a promise of the seq).
func (s jsSession) Append(typ string, data, surfaceOp json.RawMessage, src []int) (int, error) {
	seqs := js.Global().Get("Array").New(len(src))
	for i, n := range src {
		seqs.SetIndex(i, n)
	}
	v, err := callAwaitWithin(func() js.Value { return s.v.Call("append", typ, string(data), string(surfaceOp), seqs) }, s.wait)
	if errors.As(err, new(errNoAnswer)) {
		// Handed over, so possibly taken: neither saved nor not.
		return 0, unanswered{err}
	}
	if err != nil {
		return 0, err
	}
	if !isCount(v) {
		return 0, fmt.Errorf("%w (it answered %s)", route.ErrUnconfirmed, js.Global().Call("String", v).String())
	}
	return v.Int(), nil
}

// unanswered is an append the harness did not answer in time: unconfirmed
// (route.ErrUnconfirmed), in its own words.
type unanswered struct{ error }

func (unanswered) Is(target error) bool { return target == route.ErrUnconfirmed }

func (s jsSession) Agent() (route.Agent, bool) {
	a, err := jsCall(func() js.Value { return s.v.Call("agent") })
	if err != nil || isNullish(a) {
		return nil, false
	}
	return jsAgent{v: a, wait: s.wait}, true
}

// jsFlushingSession is a session whose host offers a flush (S52).
type jsFlushingSession struct{ jsSession }

func (s jsFlushingSession) Flush() error {
	_, err := callAwaitWithin(func() js.Value { return s.v.Call("flush") }, s.wait)
	return err
}

type jsAgent struct {
	v    js.Value
	wait time.Duration
}

// Same compares the port's agent objects, one per live agent of the host
// (js/session-log.js keeps them), by identity (route.SameAgent).
func (a jsAgent) Same(other route.Agent) bool {
	o, ok := other.(jsAgent)
	return ok && a.v.Equal(o.v)
}

func (a jsAgent) Status() string {
	v, err := jsCall(func() js.Value { return a.v.Call("status") })
	if err != nil || bridge.TypeOf(v) != js.TypeString {
		return "running" // an agent that cannot say is not known to be idle
	}
	return v.String()
}

func (a jsAgent) Followup(message json.RawMessage) error {
	_, err := callAwaitWithin(func() js.Value { return a.v.Call("followup", string(message)) }, a.wait)
	return err
}

// jsRegistry is where the host keeps its exact fetch routes: anything with
// has(path) and set(path, fn), a Map included.
type jsRegistry struct {
	v       js.Value
	handler js.Func
	h       http.Handler
}

func (r *jsRegistry) Has(path string) bool {
	v, err := jsCall(func() js.Value { return r.v.Call("has", path) })
	return err != nil || v.Truthy() // unsure counts as taken: never double-activate
}

// Handle is set(path, handler); a set that throws is that error.
func (r *jsRegistry) Handle(path string, h http.Handler) error {
	if r.h != h {
		r.h = h
		r.handler = fetchHandler(h)
	}
	_, err := jsCall(func() js.Value { return r.v.Call("set", path, r.handler) })
	return err
}

// Remove is delete(path) where the registry has one (a Map does); a
// registry with only has and set keeps what it took.
func (r *jsRegistry) Remove(path string) {
	if del, err := prop(r.v, "delete"); err == nil && bridge.TypeOf(del) == js.TypeFunction {
		_, _ = jsCall(func() js.Value { return del.Call("call", r.v, path) })
	}
}
