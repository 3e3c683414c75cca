package route

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tavern-core/sessionlog"
)

const (
	origin  = "http://127.0.0.1:4000"
	version = "1.3.0"
)

// fakeSession is a live-session double that runs the real validator and
// fold on every append (S24).
type fakeSession struct {
	mu        sync.Mutex
	log       *sessionlog.Log
	version   int
	agent     *fakeAgent
	appendErr error
	flushErr  error
	hold      chan struct{} // when set, Append waits on it

	inside, maxInside atomic.Int32
}

func (s *fakeSession) HeaderVersion() (int, error) { return s.version, nil }

func (s *fakeSession) Events() ([]json.RawMessage, error) {
	n := s.inside.Add(1)
	for {
		m := s.maxInside.Load()
		if n <= m || s.maxInside.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]json.RawMessage, 0, s.log.Len())
	for _, e := range s.log.Events {
		b, err := e.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (s *fakeSession) Append(typ string, data, surfaceOp json.RawMessage, src []int) (int, error) {
	if s.hold != nil {
		<-s.hold
	}
	// An edit's critical section runs from Events to here (C62 probe).
	defer s.inside.Add(-1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.appendErr != nil {
		return 0, s.appendErr
	}
	env := map[string]any{"type": typ, "seq": s.log.Len(), "time": 1790000999000, "data": data, "surfaceOp": surfaceOp}
	if src != nil {
		env["sourceEventSeqs"] = src
	}
	b, _ := json.Marshal(env)
	ev, err := sessionlog.ParseEvent(b, s.log.Len())
	if err != nil {
		return 0, err
	}
	if err := s.log.Append(ev); err != nil {
		return 0, err
	}
	return ev.Seq, nil
}

func (s *fakeSession) Agent() (Agent, bool) {
	if s.agent == nil {
		return nil, false
	}
	return s.agent, true
}

// appendRaw lets a test act as the harness.
func (s *fakeSession) appendRaw(t *testing.T, js string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var m map[string]any
	json.Unmarshal([]byte(js), &m)
	m["seq"], m["time"] = s.log.Len(), 1
	b, _ := json.Marshal(m)
	ev, err := sessionlog.ParseEvent(b, s.log.Len())
	if err == nil {
		err = s.log.Append(ev)
	}
	if err != nil {
		t.Fatal(err)
	}
}

type flushingSession struct{ *fakeSession }

func (s flushingSession) Flush() error { return s.flushErr }

type fakeAgent struct {
	mu        sync.Mutex
	status    string
	followups []json.RawMessage
	err       error
}

func (a *fakeAgent) Status() string    { return a.status }
func (a *fakeAgent) Same(o Agent) bool { return Agent(a) == o }
func (a *fakeAgent) Followup(m json.RawMessage) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.followups = append(a.followups, m)
	return a.err
}

type fakePort struct {
	sessions map[string]Session
	deny     bool
}

func (p *fakePort) Session(id string) (Session, bool) {
	s, ok := p.sessions[id]
	return s, ok
}
func (p *fakePort) Authorize(*http.Request) bool { return !p.deny }
func (p *fakePort) Origin() string               { return origin }
func (p *fakePort) Version() string              { return version }

func loadF(t *testing.T) *sessionlog.Log {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessionlog", "f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := sessionlog.DecodeBytes(b, sessionlog.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

type env struct {
	h    *Handler
	port *fakePort
	s    *fakeSession
	a    *fakeAgent
}

func setup(t *testing.T) *env {
	a := &fakeAgent{status: "idle"}
	s := &fakeSession{log: loadF(t), version: 4, agent: a}
	p := &fakePort{sessions: map[string]Session{"sF": s}}
	return &env{h: New(p), port: p, s: s, a: a}
}

type envelope struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (e *env) do(t *testing.T, method, path, body string, mutate ...func(*http.Request)) (*httptest.ResponseRecorder, envelope) {
	t.Helper()
	r := httptest.NewRequest(method, origin+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(VersionHeader, version)
	for _, m := range mutate {
		m(r)
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	e.s.inside.Store(0)
	var env envelope
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil && w.Code != http.StatusNotFound {
		t.Fatalf("non-JSON answer %d: %s", w.Code, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); w.Code != http.StatusNotFound && (ct != "application/json; charset=utf-8" || w.Header().Get("Cache-Control") != "no-store") {
		t.Fatalf("S84 headers: %q %q", ct, w.Header().Get("Cache-Control"))
	}
	return w, env
}

func wantFail(t *testing.T, w *httptest.ResponseRecorder, e envelope, status int, code string) {
	t.Helper()
	if w.Code != status || e.OK || e.Error.Code != code {
		t.Fatalf("want %d %s, got %d %s", status, code, w.Code, w.Body.String())
	}
}

func wantValue(t *testing.T, w *httptest.ResponseRecorder, e envelope, want string) {
	t.Helper()
	if w.Code != 200 || !e.OK {
		t.Fatalf("want 200, got %d %s", w.Code, w.Body.String())
	}
	var g, x any
	json.Unmarshal(e.Value, &g)
	json.Unmarshal([]byte(want), &x)
	gb, _ := json.Marshal(g)
	xb, _ := json.Marshal(x)
	if string(gb) != string(xb) {
		t.Fatalf("value\n got: %s\nwant: %s", gb, xb)
	}
}

// C21, S52: a cold edit through the route.
func TestC21_RouteColdEdit(t *testing.T) {
	e := setup(t)
	w, env := e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`)
	wantValue(t, w, env, `{"unchanged":false,"seq":20,"replacedSeq":2,"inFlight":false}`)
	if e.s.log.Len() != 21 || len(e.a.followups) != 0 {
		t.Fatal("wrong side effects")
	}
	// C24 through the route.
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"seq":2},"text":"q1*"}`)
	wantValue(t, w, env, `{"unchanged":true}`)
	if e.s.log.Len() != 21 {
		t.Fatal("unchanged wrote")
	}
}

// C31, S51
func TestC31_RouteInFlight(t *testing.T) {
	e := setup(t)
	e.a.status = "running"
	w, env := e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`)
	wantValue(t, w, env, `{"unchanged":false,"seq":20,"replacedSeq":2,"inFlight":true}`)
}

// C33, S53, S86: refusals map to their statuses and write nothing.
func TestC33_RouteRefusals(t *testing.T) {
	e := setup(t)
	w, env := e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"a1"},"text":"x"}`)
	wantFail(t, w, env, 409, "assistant-immutable")
	if env.Error.Message != sessionlog.AssistantImmutableMessage {
		t.Fatal(env.Error.Message)
	}
	w, env = e.do(t, "POST", PathUndo, `{"session":"sF","target":{"messageId":"a3"}}`)
	wantFail(t, w, env, 409, "assistant-immutable")
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"seq":999},"text":"x"}`)
	wantFail(t, w, env, 404, "message-not-found") // C34
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"rc1"},"text":"x"}`)
	wantFail(t, w, env, 400, "not-user-message") // C32
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":""}`)
	wantFail(t, w, env, 400, "empty-message") // C28
	w, env = e.do(t, "POST", PathUndo, `{"session":"sF","target":{"messageId":"u2"}}`)
	wantFail(t, w, env, 409, "nothing-to-undo") // C44
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1","seq":2},"text":"x"}`)
	wantFail(t, w, env, 400, "bad-request") // C35
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{},"text":"x"}`)
	wantFail(t, w, env, 400, "bad-request")
	if e.s.log.Len() != 20 || len(e.a.followups) != 0 {
		t.Fatal("refusal wrote")
	}
	e.s.appendRaw(t, `{"type":"compaction/start","data":{"compactionId":"k1"}}`)
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u2"},"text":"Q"}`)
	wantFail(t, w, env, 423, "compaction-open") // C38
}

// C47, S64: regenerate appends, then wakes the agent once.
func TestC47_RouteRegenerate(t *testing.T) {
	e := setup(t)
	w, env := e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"},"text":"Q2"}`)
	wantValue(t, w, env, `{"seq":20,"shadowedSeqs":[15,17],"triggerId":"tavern-core-message-editor:trigger:20"}`)
	if len(e.a.followups) != 1 {
		t.Fatalf("followups %d", len(e.a.followups))
	}
	var got, want any
	json.Unmarshal(e.a.followups[0], &got)
	json.Unmarshal([]byte(`{"id":"tavern-core-message-editor:trigger:20","role":"user","content":[{"type":"text","text":"Please respond to the message above."}],"source":{"kind":"plugin:tavern-core-message-editor"}}`), &want)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Fatalf("trigger %s", gb)
	}
	// C48: the wake is pending until the trigger lands, even though idle.
	w, env = e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	wantFail(t, w, env, 409, "agent-busy")
	_, env = e.do(t, "GET", PathState+"?session=sF", "")
	if !strings.Contains(string(env.Value), `"wakePending":true`) {
		t.Fatal(string(env.Value))
	}
	e.s.appendRaw(t, `{"type":"turn/start","data":{"turn":3}}`)
	trig, _ := json.Marshal(sessionlog.Trigger(20))
	e.s.appendRaw(t, `{"type":"user/message","data":`+string(trig)+`,"surfaceOp":"append"}`)
	_, env = e.do(t, "GET", PathState+"?session=sF", "")
	if !strings.Contains(string(env.Value), `"wakePending":false`) || !strings.Contains(string(env.Value), `"hiddenSeqs":[17,22]`) {
		t.Fatal(string(env.Value))
	}
	w, env = e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	wantValue(t, w, env, `{"seq":23,"shadowedSeqs":[20,22],"triggerId":"tavern-core-message-editor:trigger:23"}`)
}

// C57, S65
func TestC57_RouteBusy(t *testing.T) {
	e := setup(t)
	e.a.status = "running"
	w, env := e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	wantFail(t, w, env, 409, "agent-busy")
	if e.s.log.Len() != 20 || len(e.a.followups) != 0 {
		t.Fatal("busy wrote")
	}
}

// S65, S2: a status other than "idle" is not known to be idle; a pending
// wake ends when the session's agent is another one (the session was loaded
// again), since the agent that took it is gone, as it does with its trigger.
func TestS65_BusyUnlessIdle_WakeEndsWithItsAgent(t *testing.T) {
	for _, st := range []string{"busy", "IDLE", ""} {
		e := setup(t)
		e.a.status = st
		w, env := e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
		wantFail(t, w, env, 409, "agent-busy")
		if e.s.log.Len() != 20 {
			t.Fatalf("status %q wrote", st)
		}
	}
	e := setup(t)
	w, env := e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	wantValue(t, w, env, `{"seq":20,"shadowedSeqs":[15,17],"triggerId":"tavern-core-message-editor:trigger:20"}`)
	w, env = e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	wantFail(t, w, env, 409, "agent-busy") // the wake is pending
	e.s.agent = &fakeAgent{status: "idle"} // loaded again: a new agent
	w, env = e.do(t, "GET", PathState+"?session=sF", "")
	if w.Code != 200 || !strings.Contains(string(env.Value), `"wakePending":false`) {
		t.Fatal(string(env.Value))
	}
	w, env = e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	wantValue(t, w, env, `{"seq":21,"shadowedSeqs":[20],"triggerId":"tavern-core-message-editor:trigger:21"}`)
}

// C60, S68: the only partial outcome.
func TestC60_FollowupFails(t *testing.T) {
	e := setup(t)
	e.a.err = errors.New("agent gone")
	w, env := e.do(t, "POST", PathRegenerate, `{"session":"sF","target":{"messageId":"u2"},"text":"Q2"}`)
	wantFail(t, w, env, 500, "internal")
	if e.s.log.Len() != 21 || !strings.Contains(env.Error.Message, "could not be woken") || !strings.Contains(env.Error.Message, "removed from the model's context") {
		t.Fatal(env.Error.Message)
	}
}

// C61, S78, S20, S2: the port offers no load or resume, so none can happen.
func TestC61_SessionsNotLoaded(t *testing.T) {
	e := setup(t)
	w, env := e.do(t, "POST", PathEdit, `{"session":"sX","target":{"messageId":"u1"},"text":"x"}`)
	wantFail(t, w, env, 409, "session-not-loaded")
	if !strings.Contains(env.Error.Message, "Send a message to resume") {
		t.Fatal(env.Error.Message)
	}
	w, env = e.do(t, "GET", PathState+"?session=sX", "")
	wantFail(t, w, env, 409, "session-not-loaded")
	e.s.agent = nil
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"x"}`)
	wantFail(t, w, env, 409, "session-not-loaded")
	e.s.agent = e.a
	// Only versions no reader knows stay unsupported (docs/live-sessions.md).
	for _, v := range []int{5, 7, -1} {
		e.s.version = v
		w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"x"}`)
		wantFail(t, w, env, 409, "unsupported-format")
		w, env = e.do(t, "GET", PathState+"?session=sF", "")
		wantFail(t, w, env, 409, "unsupported-format")
	}
	if e.s.log.Len() != 20 {
		t.Fatal("wrote")
	}
}

func loadFixture(t *testing.T, name string, version int) *sessionlog.Log {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessionlog", name))
	if err != nil {
		t.Fatal(err)
	}
	if version >= 0 {
		lines := strings.SplitN(string(b), "\n", 2)
		var h map[string]any
		json.Unmarshal([]byte(lines[0]), &h)
		h["version"] = version
		hb, _ := json.Marshal(h)
		b = []byte(string(hb) + "\n" + lines[1])
	}
	l, err := sessionlog.DecodeBytes(b, sessionlog.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func lastEvent(t *testing.T, s *fakeSession) map[string]any {
	t.Helper()
	b, _ := s.log.Events[s.log.Len()-1].MarshalJSON()
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// S20 as changed, S10, S11, S64: a live v0 session (the only format the
// real harness 0.1.x writes) is served with its own write rules — the
// {op, start, end} spelling, a non-empty sourceEventSeqs on the copy, and a
// trigger in the {kind:'plugin'} wrapper — and a model reply stays
// immutable (the legacy planner is never wired to a live session).
func TestS20_LiveLegacyVersions(t *testing.T) {
	const v = 0
	a := &fakeAgent{status: "idle"}
	s := &fakeSession{log: loadFixture(t, "legacy-v0.jsonl", v), version: v, agent: a}
	p := &fakePort{sessions: map[string]Session{"sL": s}}
	e := &env{h: New(p), port: p, s: s, a: a}

	w, env := e.do(t, "POST", PathEdit, `{"session":"sL","target":{"messageId":"lu1"},"text":"hi"}`)
	wantValue(t, w, env, `{"unchanged":false,"seq":12,"replacedSeq":0,"inFlight":false}`)
	ev := lastEvent(t, s)
	if jsonOf(ev["surfaceOp"]) != `{"end":0,"op":"replace","start":0}` || jsonOf(ev["sourceEventSeqs"]) != `[0]` {
		t.Fatalf("v%d edit wrote %s", v, jsonOf(ev))
	}
	if jsonOf(s.log.Surface()) != `[12,1,7,9]` {
		t.Fatalf("v%d surface %v", v, s.log.Surface())
	}

	// assistant-immutable on every live version, with a true reason.
	for _, path := range []string{PathEdit, PathUndo} {
		body := `{"session":"sL","target":{"messageId":"la1"},"text":"R"}`
		if path == PathUndo {
			body = `{"session":"sL","target":{"messageId":"la1"}}`
		}
		w, env = e.do(t, "POST", path, body)
		wantFail(t, w, env, 409, "assistant-immutable")
		if env.Error.Message != sessionlog.LiveAssistantImmutableMessage {
			t.Fatalf("v%d message %q", v, env.Error.Message)
		}
	}
	if s.log.Len() != 13 || len(a.followups) != 0 {
		t.Fatalf("v%d refusal wrote", v)
	}

	// Undo writes the original back, again in the v0–v2 spelling.
	w, env = e.do(t, "POST", PathUndo, `{"session":"sL","target":{"seq":0}}`)
	wantValue(t, w, env, `{"unchanged":false,"seq":13,"replacedSeq":12,"inFlight":false}`)
	ev = lastEvent(t, s)
	if jsonOf(ev["surfaceOp"]) != `{"end":12,"op":"replace","start":12}` || jsonOf(ev["sourceEventSeqs"]) != `[12]` {
		t.Fatalf("v%d undo wrote %s", v, jsonOf(ev))
	}

	// Regenerate the last exchange: the range [13,1,7,9] is shadowed
	// and the trigger uses the v0–v3 plugin wrapper.
	w, env = e.do(t, "POST", PathRegenerate, `{"session":"sL","target":{"messageId":"la1"}}`)
	wantValue(t, w, env, `{"seq":14,"shadowedSeqs":[13,1,7,9],"triggerId":"tavern-core-message-editor:trigger:14"}`)
	ev = lastEvent(t, s)
	if jsonOf(ev["surfaceOp"]) != `{"end":9,"op":"replace","start":13}` || jsonOf(ev["sourceEventSeqs"]) != `[13,1,7,9]` {
		t.Fatalf("v%d regenerate wrote %s", v, jsonOf(ev))
	}
	if len(a.followups) != 1 {
		t.Fatalf("v%d followups %d", v, len(a.followups))
	}
	var trig map[string]any
	json.Unmarshal(a.followups[0], &trig)
	if jsonOf(trig["source"]) != `{"kind":"plugin","plugin":"tavern-core-message-editor"}` {
		t.Fatalf("v%d trigger %s", v, a.followups[0])
	}
	// The harness delivers it: the wake settles and the trigger row hides.
	s.appendRaw(t, `{"type":"turn/start","data":{"turn":2}}`)
	s.appendRaw(t, `{"type":"user/message","data":`+string(a.followups[0])+`,"surfaceOp":"append"}`)
	_, env = e.do(t, "GET", PathState+"?session=sL", "")
	var st struct {
		FormatVersion int   `json:"formatVersion"`
		WakePending   bool  `json:"wakePending"`
		HiddenSeqs    []int `json:"hiddenSeqs"`
	}
	json.Unmarshal(env.Value, &st)
	if st.FormatVersion != v || st.WakePending || jsonOf(st.HiddenSeqs) != `[1,7,9,16]` {
		t.Fatalf("v%d state %s", v, env.Value)
	}
}

// S20, C61: a live session of header version 1, 2 or 3 is refused with
// unsupported-format (409) by every operation, state included, and nothing
// is written or woken; only versions 0 and 4 are edited live.
func TestS20_C61_LiveVersions1To3Refused(t *testing.T) {
	for _, v := range []int{1, 2, 3} {
		fixture := "f.jsonl"
		if v < 3 {
			fixture = "legacy-v0.jsonl"
		}
		a := &fakeAgent{status: "idle"}
		s := &fakeSession{log: loadFixture(t, fixture, v), version: v, agent: a}
		p := &fakePort{sessions: map[string]Session{"sX": s}}
		e := &env{h: New(p), port: p, s: s, a: a}
		n := s.log.Len()
		for _, c := range []struct{ method, path, body string }{
			{"POST", PathEdit, `{"session":"sX","target":{"seq":0},"text":"x"}`},
			{"POST", PathUndo, `{"session":"sX","target":{"seq":0}}`},
			{"POST", PathRegenerate, `{"session":"sX","target":{"seq":0}}`},
			{"GET", PathState + "?session=sX", ""},
		} {
			w, env := e.do(t, c.method, c.path, c.body)
			wantFail(t, w, env, 409, "unsupported-format")
			if want := fmt.Sprintf("This session uses log format version %d, which this editor does not edit live (it edits versions 0 and 4). Nothing was changed.", v); env.Error.Message != want {
				t.Fatalf("v%d %s: %q", v, c.path, env.Error.Message)
			}
		}
		if s.log.Len() != n || len(a.followups) != 0 {
			t.Fatalf("v%d: a refusal wrote or woke", v)
		}
	}
	for v, want := range map[int]bool{0: true, 1: false, 2: false, 3: false, 4: true, 5: false, -1: false} {
		if Served(v) != want {
			t.Fatalf("Served(%d) = %v", v, !want)
		}
	}
}

// C62, S80: two concurrent edits serialise in order; one op in the lock.
func TestC62_Serialisation(t *testing.T) {
	e := setup(t)
	e.s.hold = make(chan struct{})
	var wg sync.WaitGroup
	results := make([]envelope, 2)
	for i, text := range []string{"A", "B"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := httptest.NewRequest("POST", origin+PathEdit, strings.NewReader(`{"session":"sF","target":{"messageId":"u1"},"text":"`+text+`"}`))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(VersionHeader, version)
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, r)
			json.Unmarshal(rec.Body.Bytes(), &results[i])
		}()
		// Let A take the lock before B arrives.
		for i == 0 && e.s.inside.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(e.s.hold)
	wg.Wait()
	if !results[0].OK || !results[1].OK {
		t.Fatalf("%+v", results)
	}
	if m := e.s.maxInside.Load(); m != 1 {
		t.Fatalf("%d operations inside the lock at once", m)
	}
	jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if jsonOf(e.s.log.Events[20].Fields()["surfaceOp"]) != `{"endSeq":2,"op":"replace","startSeq":2}` ||
		jsonOf(e.s.log.Events[21].Fields()["surfaceOp"]) != `{"endSeq":20,"op":"replace","startSeq":20}` {
		t.Fatal("not serialised in order")
	}
	msgs := e.s.log.Messages()
	if jsonOf(msgs[1].(map[string]any)["content"]) != `[{"text":"B","type":"text"}]` {
		t.Fatal("final text is not B")
	}
}

// S80: different sessions do not block each other.
func TestS80_SessionsIndependent(t *testing.T) {
	e := setup(t)
	other := &fakeSession{log: loadF(t), version: 4, agent: &fakeAgent{status: "idle"}}
	e.port.sessions["sG"] = other
	e.s.hold = make(chan struct{})
	go func() {
		r := httptest.NewRequest("POST", origin+PathEdit, strings.NewReader(`{"session":"sF","target":{"messageId":"u1"},"text":"A"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(VersionHeader, version)
		e.h.ServeHTTP(httptest.NewRecorder(), r)
	}()
	for e.s.inside.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	r := httptest.NewRequest("POST", origin+PathEdit, strings.NewReader(`{"session":"sG","target":{"messageId":"u1"},"text":"G"}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(VersionHeader, version)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, r)
	close(e.s.hold)
	if rec.Code != 200 {
		t.Fatal(rec.Body.String())
	}
}

// C63, S85.1–2
func TestC63_Transport(t *testing.T) {
	e := setup(t)
	body := `{"session":"sF","target":{"messageId":"u1"},"text":"x"}`
	w, env := e.do(t, "POST", PathEdit, body, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") })
	wantFail(t, w, env, 403, "forbidden")
	w, env = e.do(t, "POST", PathEdit, body, func(r *http.Request) { r.Host = "evil.example" })
	wantFail(t, w, env, 403, "forbidden")
	e.port.deny = true
	w, env = e.do(t, "POST", PathEdit, body)
	wantFail(t, w, env, 401, "unauthorized")
	// Shown by the widget: a page left open across a host restart holds
	// the last run's credential.
	if !strings.Contains(env.Error.Message, "reload the page") {
		t.Fatalf("message %q", env.Error.Message)
	}
	if e.s.log.Len() != 20 {
		t.Fatal("refused request wrote")
	}
	e.port.deny = false
	w, _ = e.do(t, "POST", PathEdit, body, func(r *http.Request) { r.Header.Set("Origin", origin) })
	if w.Code != 200 {
		t.Fatal(w.Body.String())
	}
}

// C64, S83, S85.5–6
func TestC64_Bodies(t *testing.T) {
	e := setup(t)
	prefix, suffix := `{"session":"sF","target":{"messageId":"u1"},"text":"`, `"}`
	fill := func(n int) string { return prefix + strings.Repeat("x", n-len(prefix)-len(suffix)) + suffix }
	w, env := e.do(t, "POST", PathEdit, fill(65537))
	wantFail(t, w, env, 413, "too-large")
	// The widget shows the message to whoever pasted the long text.
	if m := env.Error.Message; m != "This edit is too large to save: a request may carry at most 65536 bytes (about 64,000 letters, or about 21,000 Chinese or Japanese characters; quotes, backslashes and line breaks count twice). Shorten the message and save again. Nothing was saved." {
		t.Fatalf("message %q", m)
	}
	w, env = e.do(t, "POST", PathEdit, `{}`, func(r *http.Request) { r.ContentLength = 70000 })
	wantFail(t, w, env, 413, "too-large")
	for _, c := range []struct {
		body  string
		ctype string
	}{
		{`{"session":"sF","target":{"messageId":"u1"},"text":"x"}`, "text/plain"},
		{`{"session":"sF",`, "application/json"},
		{`{"session":"sF","target":{"messageId":"u1"},"text":"x","extra":1}`, "application/json"},
		{`{"session":"sF","target":{"messageId":"u1","x":1},"text":"x"}`, "application/json"},
		{`{"target":{"messageId":"u1"},"text":"x"}`, "application/json"},
		{`{"session":"sF","target":{"seq":"2"},"text":"x"}`, "application/json"},
		{`{"session":"sF","target":{"seq":2},"text":null}`, "application/json"},
		{`{"session":"sF","target":{"seq":2}}`, "application/json"},
		{`{"session":"sF","target":{"seq":2},"text":"x","removeAttachments":"img-A"}`, "application/json"},
		{`{"session":"sF","target":{"seq":2},"text":"x"} {}`, "application/json"},
		{`{"session":"sF","target":{"seq":2},"text":"x"}`, "application/json; charset=utf-8; x=y"},
	} {
		w, env = e.do(t, "POST", PathEdit, c.body, func(r *http.Request) { r.Header.Set("Content-Type", c.ctype) })
		wantFail(t, w, env, 400, "bad-request")
	}
	w, env = e.do(t, "POST", PathUndo, `{"session":"sF","target":{"seq":2},"text":"x"}`)
	wantFail(t, w, env, 400, "bad-request")
	if e.s.log.Len() != 20 {
		t.Fatal("bad request wrote")
	}
	w, _ = e.do(t, "POST", PathEdit, fill(65536), func(r *http.Request) { r.Header.Set("Content-Type", "application/json; charset=UTF-8") })
	if w.Code != 200 || e.s.log.Len() != 21 {
		t.Fatal(w.Code, w.Body.String())
	}
}

// C65, S82, S88
func TestC65_MethodsVersionsActivation(t *testing.T) {
	e := setup(t)
	w, env := e.do(t, "GET", PathEdit, "")
	wantFail(t, w, env, 405, "method-not-allowed")
	if w.Header().Get("Allow") != "POST" {
		t.Fatal("Allow header")
	}
	w, env = e.do(t, "POST", PathState+"?session=sF", "")
	wantFail(t, w, env, 405, "method-not-allowed")
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"seq":2},"text":"x"}`, func(r *http.Request) { r.Header.Set(VersionHeader, "1.2.0") })
	wantFail(t, w, env, 409, "version-skew")
	if env.Error.Message != "The host runs tavern-core-message-editor 1.3.0 but this page runs 1.2.0. Restart DeepSeek Harness to load the new version; no data was changed." {
		t.Fatal(env.Error.Message)
	}
	w, env = e.do(t, "GET", PathState+"?session=sF", "", func(r *http.Request) { r.Header.Del(VersionHeader) })
	wantFail(t, w, env, 400, "bad-request")
	// Exact paths only.
	w, _ = e.do(t, "POST", PathEdit+"/x", `{}`)
	if w.Code != 404 {
		t.Fatal(w.Code)
	}
	reg := &mapRegistry{m: map[string]http.Handler{}}
	if _, err := Activate(reg, e.port); err != nil {
		t.Fatal(err)
	}
	if len(reg.m) != 4 {
		t.Fatal("routes not registered")
	}
	if _, err := Activate(reg, e.port); err == nil || err.Error() != AlreadyActiveMessage {
		t.Fatalf("second activation: %v", err)
	}
	// A registry that refuses the third route: the two added are taken
	// back, and activation works once it accepts (S82: nothing half-mounted).
	refusing := &mapRegistry{m: map[string]http.Handler{}, refuse: Paths[2]}
	if _, err := Activate(refusing, e.port); err == nil || err.Error() != "refused "+Paths[2] {
		t.Fatalf("refused activation: %v", err)
	}
	if len(refusing.m) != 0 {
		t.Fatalf("half-mounted: %v", refusing.m)
	}
	refusing.refuse = ""
	if _, err := Activate(refusing, e.port); err != nil || len(refusing.m) != 4 {
		t.Fatalf("after the refusal: %v, %d routes", err, len(refusing.m))
	}
}

type mapRegistry struct {
	m      map[string]http.Handler
	refuse string
}

func (r *mapRegistry) Has(p string) bool { _, ok := r.m[p]; return ok }
func (r *mapRegistry) Handle(p string, h http.Handler) error {
	if p == r.refuse {
		return errors.New("refused " + p)
	}
	r.m[p] = h
	return nil
}
func (r *mapRegistry) Remove(p string) { delete(r.m, p) }

// C66, S4, S76, S81: ok only after the harness accepted the append.
func TestC66_AppendAndFlushFailures(t *testing.T) {
	e := setup(t)
	e.s.appendErr = errors.New("X")
	w, env := e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`)
	wantFail(t, w, env, 500, "internal")
	if !strings.Contains(env.Error.Message, "X") || !strings.Contains(env.Error.Message, "nothing was saved") || e.s.log.Len() != 20 {
		t.Fatal(env.Error.Message)
	}
	// A session that took the event but answered no seq: not "nothing was
	// saved" (the port's check of the answer, wasm/host).
	e.s.appendErr = fmt.Errorf("%w (it answered NaN)", ErrUnconfirmed)
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`)
	wantFail(t, w, env, 500, "internal")
	if env.Error.Message != "The harness took the change but its answer named no seq (it answered NaN), so it is unconfirmed: reload the session before trying again" {
		t.Fatal(env.Error.Message)
	}
	e.s.appendErr = nil
	e.s.flushErr = errors.New("disk full")
	e.port.sessions["sF"] = flushingSession{e.s}
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`)
	wantFail(t, w, env, 500, "internal")
	if e.s.log.Len() != 21 || !strings.Contains(env.Error.Message, "unconfirmed") {
		t.Fatal(env.Error.Message)
	}
	// The user retries the same edit: the live session already has it, so
	// the plan is unchanged, but it is not on disk. No success before the
	// pending write persisted (S4, S52).
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`)
	wantFail(t, w, env, 500, "internal")
	if e.s.log.Len() != 21 || !strings.Contains(env.Error.Message, "not saved yet") {
		t.Fatal(env.Error.Message)
	}
	e.s.flushErr = nil
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`)
	wantValue(t, w, env, `{"unchanged":true}`)
	w, env = e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1**"}`)
	wantValue(t, w, env, `{"unchanged":false,"seq":21,"replacedSeq":20,"inFlight":false}`)
}

// S87: the state document.
func TestS87_State(t *testing.T) {
	e := setup(t)
	w, env := e.do(t, "GET", PathState+"?session=sF", "")
	wantValue(t, w, env, `{"hostVersion":"1.3.0","formatVersion":4,"agentRunning":false,"compactionOpen":false,"wakePending":false,
	"userRows":[
	 {"seq":2,"id":"u1","liveSeq":2,"text":"q1","attachments":[],"edited":false,"undoable":false,"regenerable":false,"shadowed":false},
	 {"seq":15,"id":"u2","liveSeq":15,"text":"q2\nmore","attachments":[{"attachmentId":"img-A","kind":"image","name":"a.png","mediaType":"image/png"},{"attachmentId":"file-B","kind":"file","name":"b.txt"}],"edited":false,"undoable":false,"regenerable":true,"shadowed":false}],
	"assistantRows":[{"seq":6,"id":"a1","regenerable":false},{"seq":11,"id":"a2","regenerable":false},{"seq":17,"id":"a3","regenerable":true}],
	"hiddenSeqs":[]}`)
	w, env = e.do(t, "GET", PathState, "")
	wantFail(t, w, env, 400, "bad-request")
}

// S85.1: an Origin header that is present is checked, even when empty or
// repeated; absent is the only way to skip it (issue 15, item 9).
func TestS85_OriginPresentButEmptyOrRepeated(t *testing.T) {
	e := setup(t)
	body := `{"session":"sF","target":{"messageId":"u1"},"text":"x"}`
	for name, set := range map[string]func(*http.Request){
		"empty":    func(r *http.Request) { r.Header["Origin"] = []string{""} },
		"repeated": func(r *http.Request) { r.Header["Origin"] = []string{origin, origin} },
		"null":     func(r *http.Request) { r.Header.Set("Origin", "null") },
	} {
		w, env := e.do(t, "POST", PathEdit, body, set)
		if w.Code != 403 || env.Error.Code != "forbidden" {
			t.Fatalf("%s Origin: %d %s", name, w.Code, w.Body.String())
		}
	}
	if e.s.log.Len() != 20 {
		t.Fatal("refused request wrote")
	}
}

// S83: member names are exact (no other spellings), appear once, and the
// body is valid UTF-8 without lone surrogate escapes; each refusal writes
// nothing (issue 15, item 9).
func TestS83_StrictBodyEdges(t *testing.T) {
	e := setup(t)
	for _, body := range []string{
		`{"Session":"sF","target":{"messageId":"u1"},"text":"x"}`,
		`{"session":"sF","target":{"messageId":"u1"},"TEXT":"x"}`,
		`{"session":"sF","Target":{"messageId":"u1"},"text":"x"}`,
		`{"session":"sF","target":{"MessageId":"u1"},"text":"x"}`,
		`{"session":"sF","target":{"messageId":"u1"},"text":"x","RemoveAttachments":[]}`,
		`{"session":"sF","target":{"messageId":"u1"},"text":"x","text":"y"}`,
		`{"session":"sF","session":"sF","target":{"messageId":"u1"},"text":"x"}`,
		`{"session":"sF","target":{"messageId":"u1","messageId":"u2"},"text":"x"}`,
		"{\"session\":\"sF\",\"target\":{\"messageId\":\"u1\"},\"text\":\"a\xffb\"}",
		`{"session":"sF","target":{"messageId":"u1"},"text":"a\ud800b"}`,
		`{"session":"sF","target":{"messageId":"u1"},"text":"a\udc00b"}`,
		`{"session":"sF","target":{"messageId":"u1"},"text":"\ud800\u0041"}`,
		`{"session":"sF","target":{"messageId":"u1"},"text":"end\ud800"}`,
		`{"session":"sF","target":{"messageId":"u1"},"text":"x","removeAttachments":["\udfff"]}`,
		`{"session":"sF","target":{"seq":null},"text":"x"}`,
		// S8: a seq is a non-negative safe integer; others are ill-typed,
		// not a message that is not found.
		`{"session":"sF","target":{"seq":-1},"text":"x"}`,
		`{"session":"sF","target":{"seq":9007199254740992},"text":"x"}`,
		`{"session":"sF","target":{"seq":9007199254740993},"text":"x"}`,
		`["session","sF"]`,
	} {
		w, env := e.do(t, "POST", PathEdit, body)
		if w.Code != 400 || env.Error.Code != "bad-request" {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body.String())
		}
	}
	if e.s.log.Len() != 20 {
		t.Fatal("refused request wrote")
	}
	// A broken emoji reaches the user through the widget: said plainly.
	_, env := e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"a\ud83d b"}`)
	if m := env.Error.Message; m != `The text holds half of a character (a lone surrogate, \ud83d), which cannot be saved; delete it and save again. Nothing was saved.` {
		t.Fatalf("message %q", m)
	}
	// Escaped backslashes and proper pairs are fine: the text is stored
	// exactly ("\\ud800" is six characters, the pair is one emoji).
	w, env := e.do(t, "POST", PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"\\ud800 \ud83d\ude00 \u00e9"}`)
	wantValue(t, w, env, `{"unchanged":false,"seq":20,"replacedSeq":2,"inFlight":false}`)
	msg := e.s.log.Events[20].Data().(map[string]any)
	if got := msg["content"].([]any)[0].(map[string]any)["text"]; got != `\ud800 😀 é` {
		t.Fatalf("stored %q", got)
	}
}

// S87, S83: the state query names the session exactly once.
func TestS87_StrictQuery(t *testing.T) {
	e := setup(t)
	for _, q := range []string{"?session=sF&session=sF", "?Session=sF", "?session=sF&x=1", "?session=%ff", "?session=%zz"} {
		w, env := e.do(t, "GET", PathState+q, "")
		if w.Code != 400 || env.Error.Code != "bad-request" {
			t.Fatalf("%s: %d %s", q, w.Code, w.Body.String())
		}
	}
}
