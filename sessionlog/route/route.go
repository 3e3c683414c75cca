// Package route is the host part of the message editor (spec S1 b, §13–14):
// a net/http handler for the editor's four exact routes plus the
// per-session lock, written against a small host port that the JavaScript
// facade implements. It is pure Go, so it is tested natively with
// net/http/httptest and a fake port; only the Fetch bridge is js-only.
package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"tavern-core/sessionlog"
)

// The exact paths of S82.
const (
	PathEdit       = "/api/plugins/tavern-core-message-editor/edit"
	PathUndo       = "/api/plugins/tavern-core-message-editor/undo"
	PathRegenerate = "/api/plugins/tavern-core-message-editor/regenerate"
	PathState      = "/api/plugins/tavern-core-message-editor/state"

	// VersionHeader carries the client build's version (S88).
	VersionHeader = "X-Tavern-Core-Version"
	// MaxBody is the largest accepted request body (S85).
	MaxBody = 65536
)

// Paths lists the routes in registration order.
var Paths = []string{PathEdit, PathUndo, PathRegenerate, PathState}

// Codes only the host produces, beside the sessionlog ones (S76).
const (
	CodeVersionSkew      = "version-skew"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
	CodeMethodNotAllowed = "method-not-allowed"
	CodeTooLarge         = "too-large"
)

// AlreadyActiveMessage is the activation failure of S82.
const AlreadyActiveMessage = "tavern-core-message-editor is already active in this host"

// Port is what the host gives the editor (S2). It never reads or writes
// session files and never loads or resumes a session.
type Port interface {
	// Session looks up a live (loaded) session; false for unknown or
	// unloaded ids, which the editor cannot tell apart (S78).
	Session(id string) (Session, bool)
	// Authorize is the host's auth check hook (S85.2).
	Authorize(r *http.Request) bool
	// Origin is the host's own origin, e.g. "http://127.0.0.1:4000".
	Origin() string
	// Version is the host build's version string (S88).
	Version() string
}

// Session is a live session (S2).
type Session interface {
	// HeaderVersion is the log's format version; negative when the host
	// answered something that is no version, an error when it failed.
	HeaderVersion() (int, error)
	// Events returns one consistent snapshot of the session's events as
	// JSON envelopes.
	Events() ([]json.RawMessage, error)
	// Append hands one event to the harness and returns its seq. An error
	// means nothing was written, but one wrapping ErrUnconfirmed: the
	// session took the event and its answer named no seq.
	Append(typ string, data, surfaceOp json.RawMessage, sourceEventSeqs []int) (int, error)
	// Agent is the session's live agent; false when there is none.
	Agent() (Agent, bool)
}

// Flusher is the optional flush of a live session (S52).
type Flusher interface {
	Flush() error
}

// Agent is a session's live agent (S2).
type Agent interface {
	// Status is "idle" or "running"; anything else is not known to be idle.
	Status() string
	// Followup queues a message that wakes the agent (S64).
	Followup(message json.RawMessage) error
}

// SameAgent is an Agent that can tell whether another is the same live
// agent. A wake pending with an agent the session no longer has is never
// delivered (the session was unloaded and loaded again, the harness
// restarted it), so it ends (S65); without it a wake ends only with its
// trigger.
type SameAgent interface {
	Same(other Agent) bool
}

// wake is a followup this editor sent: its trigger id and the agent that
// took it (S65).
type wake struct {
	trigger string
	agent   Agent
}

// Registry is where the host registers exact fetch routes. Handle may
// fail (a host's registry); Remove takes back a route Handle added.
type Registry interface {
	Has(path string) bool
	Handle(path string, h http.Handler) error
	Remove(path string)
}

// ErrAlreadyActive is Activate's refusal when a route is taken (S82).
var ErrAlreadyActive = errors.New(AlreadyActiveMessage)

// Activate registers the four routes, or fails without registering any:
// when one is taken (only one editor instance may be active, S82), or when
// the registry refuses one, after taking back those it added.
func Activate(reg Registry, port Port) (*Handler, error) {
	for _, p := range Paths {
		if reg.Has(p) {
			return nil, ErrAlreadyActive
		}
	}
	h := New(port)
	for i, p := range Paths {
		if err := reg.Handle(p, h); err != nil {
			for _, q := range Paths[:i] {
				reg.Remove(q)
			}
			return nil, err
		}
	}
	return h, nil
}

// Handler serves the editor routes for one host.
type Handler struct {
	port Port

	mu    sync.Mutex
	locks map[string]*fifo // per-session operation lock (S80)
	wakes map[string]wake
}

// New returns a handler for port without registering it anywhere.
func New(port Port) *Handler {
	return &Handler{port: port, locks: map[string]*fifo{}, wakes: map[string]wake{}}
}

// fifo is a first-in-first-out lock; sync.Mutex promises no order (S80).
type fifo struct {
	busy    bool
	waiters []chan struct{}
	refs    int
}

func (h *Handler) lock(session string) {
	h.mu.Lock()
	f := h.locks[session]
	if f == nil {
		f = &fifo{}
		h.locks[session] = f
	}
	f.refs++
	if !f.busy {
		f.busy = true
		h.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	f.waiters = append(f.waiters, ch)
	h.mu.Unlock()
	<-ch
}

func (h *Handler) unlock(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.locks[session]
	f.refs--
	if len(f.waiters) > 0 {
		ch := f.waiters[0]
		f.waiters = f.waiters[1:]
		close(ch) // ownership passes straight to the next waiter
		return
	}
	f.busy = false
	if f.refs == 0 {
		delete(h.locks, session) // keep memory flat over long runs
	}
}

// httpError is an answer other than success.
type httpError struct {
	status int
	code   string
	msg    string
	allow  string // the Allow header of a 405
}

var statusOf = map[string]int{
	sessionlog.CodeBadRequest:         http.StatusBadRequest,
	sessionlog.CodeEmptyMessage:       http.StatusBadRequest,
	sessionlog.CodeNotUserMessage:     http.StatusBadRequest,
	CodeUnauthorized:                  http.StatusUnauthorized,
	CodeForbidden:                     http.StatusForbidden,
	sessionlog.CodeMessageNotFound:    http.StatusNotFound,
	CodeMethodNotAllowed:              http.StatusMethodNotAllowed,
	sessionlog.CodeAssistantImmutable: http.StatusConflict,
	sessionlog.CodeTargetShadowed:     http.StatusConflict,
	sessionlog.CodeNoPrompt:           http.StatusConflict,
	sessionlog.CodeRegenerateNotLast:  http.StatusConflict,
	sessionlog.CodeAgentBusy:          http.StatusConflict,
	sessionlog.CodeNothingToUndo:      http.StatusConflict,
	sessionlog.CodeSessionNotLoaded:   http.StatusConflict,
	sessionlog.CodeUnsupportedFormat:  http.StatusConflict,
	CodeVersionSkew:                   http.StatusConflict,
	CodeTooLarge:                      http.StatusRequestEntityTooLarge,
	sessionlog.CodeCompactionOpen:     http.StatusLocked,
	sessionlog.CodeInternal:           http.StatusInternalServerError,
}

func fail(code, format string, args ...any) *httpError {
	st, ok := statusOf[code]
	if !ok {
		st = http.StatusInternalServerError
	}
	return &httpError{status: st, code: code, msg: fmt.Sprintf(format, args...)}
}

func fromLog(err error) *httpError {
	var se *sessionlog.Error
	if errors.As(err, &se) {
		return fail(se.Code, "%s", se.Message)
	}
	return fail(sessionlog.CodeInternal, "%v", err)
}

// ErrUnconfirmed marks a Session.Append whose event was taken but whose
// answer was no seq: neither "saved" nor "nothing was saved" is true.
var ErrUnconfirmed = errors.New("its answer named no seq")

// write sends the S84 envelope.
func write(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	b, err := sessionlog.EncodeJSON(body) // (a lone surrogate in a row's text stays one)
	if err != nil {
		b = []byte(`{"ok":false,"error":{"code":"internal","message":"the answer could not be encoded"}}`)
	}
	w.Write(append(b, '\n'))
}

func writeErr(w http.ResponseWriter, e *httpError) {
	if e.allow != "" {
		w.Header().Set("Allow", e.allow)
	}
	write(w, e.status, map[string]any{"ok": false, "error": map[string]any{"code": e.code, "message": e.msg}})
}

func ok(w http.ResponseWriter, value any) {
	write(w, http.StatusOK, map[string]any{"ok": true, "value": value})
}

// ServeHTTP runs the transport checks of S85 in order, then the operation.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var op sessionlog.Op
	switch r.URL.Path {
	case PathEdit:
		op = sessionlog.OpEdit
	case PathUndo:
		op = sessionlog.OpUndo
	case PathRegenerate:
		op = sessionlog.OpRegenerate
	case PathState:
	default:
		http.NotFound(w, r) // exact paths only; no prefix matching (S82)
		return
	}
	if e := h.transport(r, op); e != nil {
		writeErr(w, e)
		return
	}
	if op == "" {
		h.state(w, r)
		return
	}
	req, session, e := readBody(w, r, op)
	if e != nil {
		writeErr(w, e)
		return
	}
	value, e := h.operate(session, req)
	if e != nil {
		writeErr(w, e)
		return
	}
	ok(w, value)
}

// transport is S85 steps 1–5 (the body limit is checked up front from
// Content-Length and again while reading).
func (h *Handler) transport(r *http.Request, op sessionlog.Op) *httpError {
	origin := h.port.Origin()
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || r.Host != u.Host {
		return fail(CodeForbidden, "request host %q is not this host", r.Host)
	}
	// Origin, when sent at all, must be exactly ours: an empty value or a
	// repeated header is not "absent" (S85.1).
	if vals, sent := r.Header["Origin"]; sent && (len(vals) != 1 || vals[0] != origin) {
		return fail(CodeForbidden, "cross-origin request from %q refused", strings.Join(vals, ", "))
	}
	if !h.port.Authorize(r) {
		// The widget shows this: after a host restart the page still holds
		// the credential of the host's last run.
		return fail(CodeUnauthorized, "This page is not authorized by the host (it may have restarted since the page was loaded): reload the page. Nothing was saved.")
	}
	want := http.MethodPost
	if op == "" {
		want = http.MethodGet
	}
	if r.Method != want {
		e := fail(CodeMethodNotAllowed, "%s is not allowed here; use %s", r.Method, want)
		e.allow = want
		return e
	}
	cv := r.Header.Get(VersionHeader)
	if cv == "" {
		return fail(sessionlog.CodeBadRequest, "missing %s header", VersionHeader)
	}
	if hv := h.port.Version(); cv != hv {
		return fail(CodeVersionSkew, "The host runs tavern-core-message-editor %s but this page runs %s. Restart DeepSeek Harness to load the new version; no data was changed.", hv, cv)
	}
	if r.ContentLength > MaxBody {
		return fail(CodeTooLarge, tooLarge, MaxBody)
	}
	return nil
}

// tooLarge is shown by the message editor widget: a user pasted a long text.
const tooLarge = "This edit is too large to save: a request may carry at most %d bytes (about 64,000 letters, or about 21,000 Chinese or Japanese characters; quotes, backslashes and line breaks count twice). Shorten the message and save again. Nothing was saved."

func readBody(w http.ResponseWriter, r *http.Request, op sessionlog.Op) (sessionlog.Request, string, *httpError) {
	var req sessionlog.Request
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		return req, "", fail(sessionlog.CodeBadRequest, "cannot read the request body: %v", err)
	}
	if len(raw) > MaxBody {
		return req, "", fail(CodeTooLarge, tooLarge, MaxBody)
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if _, hasCharset := params["charset"]; err != nil || mt != "application/json" || len(params) > 1 || (len(params) == 1 && !hasCharset) {
		return req, "", fail(sessionlog.CodeBadRequest, "Content-Type must be application/json")
	}
	bad := func(format string, args ...any) (sessionlog.Request, string, *httpError) {
		return sessionlog.Request{}, "", fail(sessionlog.CodeBadRequest, format, args...)
	}
	if m := checkText(raw); m != "" {
		return bad("%s", m)
	}
	// The POST shape of S83, kept raw to tell absent from null and to refuse
	// ill-typed fields.
	b, err := members(raw, "session", "target", "text", "removeAttachments")
	if err != nil {
		return bad("invalid request body: %v", err)
	}
	var session string
	if b["session"] == nil || isNull(b["session"]) || json.Unmarshal(b["session"], &session) != nil || session == "" {
		return bad("session must be a non-empty string")
	}
	if b["target"] == nil || isNull(b["target"]) {
		return bad("target is required")
	}
	t, err := members(b["target"], "messageId", "seq")
	if err != nil {
		return bad("invalid target: %v", err)
	}
	var tg struct {
		MessageID *string
		Seq       *int
	}
	if v := t["messageId"]; v != nil {
		var id string
		if isNull(v) || json.Unmarshal(v, &id) != nil {
			return bad("target.messageId must be a string")
		}
		tg.MessageID = &id
	}
	if v := t["seq"]; v != nil {
		var n int
		if isNull(v) || json.Unmarshal(v, &n) != nil || n < 0 || n > 1<<53-1 {
			return bad("target.seq must be a non-negative safe integer")
		}
		tg.Seq = &n
	}
	if (tg.MessageID == nil) == (tg.Seq == nil) {
		return bad("target must name exactly one of messageId or seq")
	}
	req = sessionlog.Request{Op: op, Target: sessionlog.Target{MessageID: tg.MessageID, Seq: tg.Seq}}
	if b["text"] != nil {
		var s string
		if isNull(b["text"]) || json.Unmarshal(b["text"], &s) != nil {
			return bad("text must be a string")
		}
		req.Text = &s
	}
	if b["removeAttachments"] != nil {
		var ids []string
		if isNull(b["removeAttachments"]) || json.Unmarshal(b["removeAttachments"], &ids) != nil {
			return bad("removeAttachments must be a list of attachment ids")
		}
		if ids == nil {
			ids = []string{}
		}
		req.RemoveAttachments = ids
	}
	switch op {
	case sessionlog.OpEdit:
		if req.Text == nil {
			return bad("edit requires text")
		}
	case sessionlog.OpUndo:
		if req.Text != nil || req.RemoveAttachments != nil {
			return bad("undo takes no text and no removeAttachments")
		}
	}
	return req, session, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// Served reports whether the live path edits a session of header version
// v: version 4, the specification's (S20), and version 0, the only format
// DeepSeek Harness 0.1.x writes and accepts (its real-harness suite checks
// these write rules). Versions 1–3 have no live writer to check their rules
// against, and a 0.2 harness migrates them to 4 when it loads them, so they
// are refused as S20 says (C61): guessing a generation's write rules is
// riskier than refusing.
func Served(v int) bool { return v == 0 || v == 4 }

// live resolves a loaded session of a known format and its agent (S78).
func (h *Handler) live(id string) (Session, Agent, *httpError) {
	s, found := h.port.Session(id)
	if !found || s == nil {
		return nil, nil, notLoaded()
	}
	a, found := s.Agent()
	if !found || a == nil {
		return nil, nil, notLoaded()
	}
	v, e := headerVersion(s)
	switch {
	case e != nil:
		return nil, nil, e
	case v < 0:
		return nil, nil, fail(sessionlog.CodeUnsupportedFormat, "This session names no log format version this editor knows (it edits versions 0 and 4 live). Nothing was changed.")
	case !Served(v):
		return nil, nil, fail(sessionlog.CodeUnsupportedFormat, "This session uses log format version %d, which this editor does not edit live (it edits versions 0 and 4). Nothing was changed.", v)
	}
	return s, a, nil
}

// headerVersion reads the session's format version; a host that fails to
// answer is internal (a version that is no number is the caller's refusal).
func headerVersion(s Session) (int, *httpError) {
	v, err := s.HeaderVersion()
	if err != nil {
		return 0, fail(sessionlog.CodeInternal, "cannot read the session's log format version: %v", err)
	}
	return v, nil
}

func notLoaded() *httpError {
	return fail(sessionlog.CodeSessionNotLoaded, "This session is not loaded. Send a message to resume it first, then edit.")
}

// gone reports that the agent a wake went to is not the session's agent now.
func gone(woken, now Agent) bool {
	s, ok := woken.(SameAgent)
	return ok && !s.Same(now)
}

// snapshot folds the session's events and settles the pending wake: it ends
// once its trigger appears in the log (S65).
func (h *Handler) snapshot(id string, s Session, a Agent) (*sessionlog.Log, sessionlog.Env, *httpError) {
	events, err := s.Events()
	if err != nil {
		return nil, sessionlog.Env{}, fail(sessionlog.CodeInternal, "cannot read the session snapshot: %v", err)
	}
	// Read again beside the snapshot it folds (in operate, under the lock
	// taken since live() read it to refuse early).
	v, e := headerVersion(s)
	if e != nil {
		return nil, sessionlog.Env{}, e
	}
	l, err := sessionlog.LiveSnapshot(v, events)
	if err != nil {
		return nil, sessionlog.Env{}, fail(sessionlog.CodeInternal, "the live session log does not fold: %v", err)
	}
	h.mu.Lock()
	w, pending := h.wakes[id]
	if pending && (l.HasMessageID(w.trigger) || gone(w.agent, a)) {
		delete(h.wakes, id)
		pending = false
	}
	h.mu.Unlock()
	return l, sessionlog.Env{AgentRunning: a.Status() != "idle", WakePending: pending}, nil
}

func (h *Handler) operate(id string, req sessionlog.Request) (any, *httpError) {
	s, a, e := h.live(id)
	if e != nil {
		return nil, e
	}
	// The lock covers snapshot, plan, append, flush and followup (S80).
	h.lock(id)
	defer h.unlock(id)
	l, env, e := h.snapshot(id, s, a)
	if e != nil {
		return nil, e
	}
	p, err := l.Plan(req, env)
	if err != nil {
		return nil, fromLog(err)
	}
	if p.Unchanged {
		// Unchanged against the live session, which may hold the change
		// from an attempt whose flush failed: it is no success until that
		// is on disk (S4, S52). A flush with nothing pending does nothing.
		if f, isFlusher := s.(Flusher); isFlusher {
			if err := f.Flush(); err != nil {
				return nil, fail(sessionlog.CodeInternal, "The session holds changes that are not saved yet, and persisting them failed, so nothing is confirmed: %v", err)
			}
		}
		return map[string]any{"unchanged": true}, nil
	}
	ev := p.Event
	data, _ := sessionlog.EncodeJSON(ev.Fields()["data"])
	surfaceOp, _ := sessionlog.EncodeJSON(ev.Fields()["surfaceOp"])
	seq, err := s.Append(ev.Type, data, surfaceOp, p.SourceEventSeqs())
	if errors.Is(err, ErrUnconfirmed) {
		return nil, fail(sessionlog.CodeInternal, "The harness took the change but %v, so it is unconfirmed: reload the session before trying again", err)
	}
	if err != nil {
		return nil, fail(sessionlog.CodeInternal, "The harness rejected the write, so nothing was saved: %v", err)
	}
	if f, isFlusher := s.(Flusher); isFlusher {
		if err := f.Flush(); err != nil {
			return nil, fail(sessionlog.CodeInternal, "The change was appended to the live session at seq %d, but persisting it failed, so it is unconfirmed: %v", seq, err)
		}
	}
	if !p.Wake {
		return map[string]any{"unchanged": false, "seq": seq, "replacedSeq": p.ReplacedSeq, "inFlight": p.InFlight}, nil
	}
	trigger, _ := sessionlog.EncodeJSON(l.Trigger(seq))
	if err := a.Followup(trigger); err != nil {
		return nil, fail(sessionlog.CodeInternal, "The old answer has been removed from the model's context (seq %d), but the model could not be woken: %v. Sending a message will continue the conversation.", seq, err)
	}
	triggerID := sessionlog.TriggerIDPrefix + strconv.Itoa(seq)
	h.mu.Lock()
	h.wakes[id] = wake{triggerID, a}
	h.mu.Unlock()
	return map[string]any{"seq": seq, "shadowedSeqs": p.ShadowedSeqs, "triggerId": triggerID}, nil
}

// state answers GET …/state (S87): no lock, one consistent snapshot.
func (h *Handler) state(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	ids := q["session"]
	if err != nil || len(q) != 1 || len(ids) != 1 || ids[0] == "" || !utf8.ValidString(ids[0]) {
		writeErr(w, fail(sessionlog.CodeBadRequest, "the query must be exactly session={id}, once"))
		return
	}
	id := ids[0]
	s, a, e := h.live(id)
	if e != nil {
		writeErr(w, e)
		return
	}
	l, env, e := h.snapshot(id, s, a)
	if e != nil {
		writeErr(w, e)
		return
	}
	ov := l.Overlay(env)
	ok(w, map[string]any{
		"hostVersion":    h.port.Version(),
		"formatVersion":  l.Version(),
		"agentRunning":   env.AgentRunning,
		"compactionOpen": ov.CompactionOpen,
		"wakePending":    env.WakePending,
		"userRows":       ov.UserRows,
		"assistantRows":  ov.AssistantRows,
		"hiddenSeqs":     ov.HiddenSeqs,
	})
}
