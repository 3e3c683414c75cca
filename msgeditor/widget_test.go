package msgeditor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"tavern-core/sessionlog"
	"tavern-core/sessionlog/route"
)

// The widget against the real route handler serving fixture F (spec §18 H).

type fSession struct {
	log   *sessionlog.Log
	agent *fAgent
}

func (s *fSession) HeaderVersion() (int, error) { return s.log.Version(), nil }
func (s *fSession) Events() ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	for _, e := range s.log.Events {
		b, err := e.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
func (s *fSession) Append(typ string, data, surfaceOp json.RawMessage, src []int) (int, error) {
	env := map[string]any{"type": typ, "seq": s.log.Len(), "time": 1, "data": data, "surfaceOp": surfaceOp}
	if src != nil {
		env["sourceEventSeqs"] = src
	}
	b, _ := json.Marshal(env)
	ev, err := sessionlog.ParseEvent(b, s.log.Len())
	if err == nil {
		err = s.log.Append(ev)
	}
	if err != nil {
		return 0, err
	}
	return ev.Seq, nil
}
func (s *fSession) Agent() (route.Agent, bool) { return s.agent, true }

type fAgent struct {
	status    string
	followups int
}

func (a *fAgent) Status() string                 { return a.status }
func (a *fAgent) Followup(json.RawMessage) error { a.followups++; return nil }

type fPort struct {
	s       *fSession
	version string
}

func (p *fPort) Session(id string) (route.Session, bool) {
	if id != "sF" {
		return nil, false
	}
	return p.s, true
}
func (p *fPort) Authorize(*http.Request) bool { return true }
func (p *fPort) Origin() string               { return "http://127.0.0.1:4000" }
func (p *fPort) Version() string              { return p.version }

type rig struct {
	t    *testing.T
	w    *Widget
	port *fPort
	h    http.Handler
	sent []Request
	// hold answers for these paths instead of serving them
	override map[string]func() (int, string)
}

func newRig(t *testing.T) *rig {
	t.Helper()
	b, err := os.ReadFile("../testdata/sessionlog/f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	l, err := sessionlog.DecodeBytes(b, sessionlog.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &fPort{s: &fSession{log: l, agent: &fAgent{status: "idle"}}, version: Version}
	r := &rig{t: t, w: New("sF"), port: p, h: route.New(p), override: map[string]func() (int, string){}}
	r.run(r.w.Refresh())
	return r
}

// run serves requests (and what follows them) until none is left.
func (r *rig) run(reqs []Request) { r.runFor(r.w, reqs) }

// runFor serves the requests of another widget on the same host (a second
// tab).
func (r *rig) runFor(w *Widget, reqs []Request) {
	for len(reqs) > 0 {
		q := reqs[0]
		reqs = reqs[1:]
		r.sent = append(r.sent, q)
		path := q.Path
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if f := r.override[path]; f != nil {
			status, body := f()
			reqs = append(reqs, w.Response(q.ID, status, body)...)
			continue
		}
		hr := httptest.NewRequest(q.Method, "http://127.0.0.1:4000"+q.Path, strings.NewReader(q.Body))
		hr.Header.Set(VersionHeader, Version)
		if q.Body != "" {
			hr.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		r.h.ServeHTTP(rec, hr)
		reqs = append(reqs, w.Response(q.ID, rec.Code, rec.Body.String())...)
	}
}

func (r *rig) posts(path string) []Request {
	var out []Request
	for _, q := range r.sent {
		if q.Path == path {
			out = append(out, q)
		}
	}
	return out
}

func TestStateOfF(t *testing.T) {
	r := newRig(t)
	v2, v15 := r.w.Row(2), r.w.Row(15)
	if v2.Kind != UserRowKind || v2.Text != "q1" || !v2.Pencil || v2.Edited || v2.Undo {
		t.Fatalf("row 2: %+v", v2)
	}
	if len(v15.Chips) != 2 || v15.Chips[0].Label != "a.png" || v15.Chips[1].Label != "b.txt" || v15.Text != "q2\nmore" {
		t.Fatalf("row 15: %+v", v15)
	}
	// C69: the regenerate arrow only on row 17.
	for _, s := range []int{6, 11, 17} {
		if got := r.w.Row(s); got.Kind != AssistantRowKind || got.Regenerate != (s == 17) {
			t.Fatalf("row %d: %+v", s, got)
		}
	}
	if got := r.w.Row(3); got.Kind != OtherRow || got.Pencil {
		t.Fatalf("context row 3 is the host's: %+v", got)
	}
}

// C67: the editor's buttons and keys.
func TestC67EditorKeys(t *testing.T) {
	r := newRig(t)
	r.w.Open(2)
	v := r.w.Row(2)
	if !v.Editing || v.Draft != "q1" || v.SaveRegenerate {
		t.Fatalf("row 2 editor: %+v", v)
	}
	r.w.Open(15)
	if !r.w.Row(15).SaveRegenerate {
		t.Fatal("row 15's editor offers Save & regenerate")
	}
	cases := []struct {
		key              string
		shift, composing bool
		want             KeyAction
	}{
		{"Enter", false, false, KeySave}, {"Enter", true, false, KeyNone},
		{"Escape", false, false, KeyCancel}, {"Enter", false, true, KeyNone}, {"a", false, false, KeyNone},
	}
	for _, c := range cases {
		if got := Key(c.key, c.shift, c.composing); got != c.want {
			t.Errorf("Key(%q, %v, %v) = %v, want %v", c.key, c.shift, c.composing, got, c.want)
		}
	}
	r.w.Cancel(15)
	if r.w.Row(15).Editing {
		t.Fatal("Esc closes the editor")
	}
	r.w.SetDraft(2, "q1*")
	reqs := r.w.Save(2, false)
	if len(reqs) != 1 || reqs[0].Path != PathEdit || reqs[0].Body != `{"session":"sF","target":{"seq":2},"text":"q1*"}` {
		t.Fatalf("save: %+v", reqs)
	}
	if !r.w.Row(2).Busy || r.w.Save(2, false) != nil {
		t.Fatal("no double submit while in flight")
	}
	r.run(reqs)
	v = r.w.Row(2)
	if v.Editing || v.Text != "q1*" || !v.Edited || !v.Undo || v.Busy {
		t.Fatalf("after save: %+v", v)
	}
	if n := len(r.posts(PathState + "?session=sF")); n != 2 {
		t.Fatalf("state fetched %d times, want 2", n)
	}
	// Undo restores the original.
	r.run(r.w.Undo(2))
	if v = r.w.Row(2); v.Text != "q1" || v.Edited || v.Undo {
		t.Fatalf("after undo: %+v", v)
	}
}

// C68: refusals stay inline with the draft; inFlight adds the note.
func TestC68Refusal(t *testing.T) {
	r := newRig(t)
	r.override[PathEdit] = func() (int, string) {
		return 423, `{"ok":false,"error":{"code":"compaction-open","message":"A compaction is running."}}`
	}
	r.w.Open(2)
	r.w.SetDraft(2, "typed")
	r.run(r.w.Save(2, false))
	v := r.w.Row(2)
	if !v.Editing || v.Draft != "typed" || v.Error != "A compaction is running." || v.Text != "q1" {
		t.Fatalf("after refusal: %+v", v)
	}
	delete(r.override, PathEdit)
	r.port.s.agent.status = "running"
	r.run(r.w.Save(2, false))
	if v = r.w.Row(2); v.Editing || v.Error != "" || v.Note != InFlightNote || v.Text != "typed" {
		t.Fatalf("in flight: %+v", v)
	}
}

// C69: chips, hiding, regenerate, skew.
func TestC69ChipsRegenerateSkew(t *testing.T) {
	r := newRig(t)
	r.w.Open(15)
	r.w.ToggleChip(15, "img-A")
	if v := r.w.Row(15); !v.Chips[0].Marked || v.Chips[1].Marked {
		t.Fatalf("marks: %+v", v.Chips)
	}
	r.w.Cancel(15)
	r.w.Open(15)
	if r.w.Row(15).Chips[0].Marked {
		t.Fatal("Cancel clears the marks")
	}
	r.w.ToggleChip(15, "img-A")
	r.w.SetDraft(15, "Q2")
	reqs := r.w.Save(15, true)
	if reqs[0].Path != PathRegenerate || reqs[0].Body != `{"session":"sF","target":{"seq":15},"text":"Q2","removeAttachments":["img-A"]}` {
		t.Fatalf("save & regenerate: %+v", reqs)
	}
	r.run(reqs)
	if r.port.s.agent.followups != 1 {
		t.Fatal("the agent was woken once")
	}
	v := r.w.Row(15)
	if v.Text != "Q2" || len(v.Chips) != 1 || v.Undo || !r.w.Row(17).Hidden {
		t.Fatalf("after regenerate: %+v, row 17 %+v", v, r.w.Row(17))
	}
	// A model reply cannot be edited: the refusal shows on its row.
	r.run(r.w.Call("edit", 6, "x", true, nil, 7))
	s := r.w.TakeSettled()
	if len(s) != 1 || s[0].Token != 7 || s[0].Result.Code != "assistant-immutable" || !strings.HasPrefix(r.w.Row(6).Error, "Model replies cannot be rewritten") {
		t.Fatalf("assistant edit: %+v / %+v", s, r.w.Row(6))
	}
	// Version skew disables everything.
	r.port.version = "9.9.9"
	r.run(r.w.Refresh())
	if !r.w.Disabled() || !strings.Contains(r.w.Banner(), "Restart DeepSeek Harness") || !r.w.Row(2).Disabled {
		t.Fatalf("skew: %q", r.w.Banner())
	}
	r.w.Open(2)
	if r.w.Row(2).Editing {
		t.Fatal("no editing after skew")
	}
}

func TestSkewOn404WithoutEnvelope(t *testing.T) {
	if res := ParseResponse(404, "not found"); res.Code != CodeVersionSkew || res.Message != SkewMessage {
		t.Fatalf("%+v", res)
	}
	if res := ParseResponse(404, `{"ok":false,"error":{"code":"message-not-found","message":"m"}}`); res.Code != "message-not-found" {
		t.Fatalf("%+v", res)
	}
	if res := ParseResponse(502, "bad gateway"); res.Code != CodeInternal {
		t.Fatalf("%+v", res)
	}
}

func TestNotLoadedShowsNoControls(t *testing.T) {
	r := newRig(t)
	r.w.session = "nope"
	r.run(r.w.Refresh())
	if r.w.State() != nil || r.w.Row(2).Pencil || r.w.Banner() == "" {
		t.Fatalf("not loaded: %+v %q", r.w.Row(2), r.w.Banner())
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a\"b\\c", "line\nnext\ttab", "\x01\x1f", "emoji 😀 中文", "\u2028"} {
		v, err := Parse(Quote(s))
		if err != nil || v.Str() != s {
			t.Fatalf("%q: %v %q", s, err, v.Str())
		}
		var std string
		if err := json.Unmarshal([]byte(Quote(s)), &std); err != nil || std != s {
			t.Fatalf("encoding/json reads %q as %q (%v)", Quote(s), std, err)
		}
	}
	v, err := Parse(` {"a":[1,-2.5e3,true,false,null,"\ud83d\ude00\u00e9\/"],"b":{}} `)
	if err != nil || v.Get("a").Items[1].N != -2500 || v.Get("a").Items[5].Str() != "😀é/" || v.Get("b").Kind != Object {
		t.Fatalf("%v %+v", err, v)
	}
	for _, bad := range []string{"", "{", `{"a"}`, "[1,]", `"\x"`, "tru", `{"a":1}x`, strings.Repeat("[", 100) + strings.Repeat("]", 100)} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestQueryEscape(t *testing.T) {
	if got := queryEscape("a b/c&d"); got != "a%20b%2Fc%26d" {
		t.Fatal(got)
	}
}

// S87/S98: a state read that finds the session not loaded (a host restart
// the page asked too early for) or that does not reach the host is read
// again, backing off from 250 ms to 5 s; an answer resets the schedule, and
// version skew is not retried (controls stay off until a reload, S97).
func TestS87_StateReadRetriedWhileNotLoaded(t *testing.T) {
	w := New("sF")
	answer := func(status int, body string) {
		t.Helper()
		reqs := w.Refresh()
		if len(reqs) != 1 {
			t.Fatalf("refresh sent %d requests", len(reqs))
		}
		w.Response(reqs[0].ID, status, body)
	}
	notLoaded := `{"ok":false,"error":{"code":"session-not-loaded","message":"Session sF is not loaded."}}`
	var got []int
	for i := 0; i < 7; i++ {
		answer(409, notLoaded)
		got = append(got, w.TakeStateRetry())
	}
	if want := []int{250, 500, 1000, 2000, 4000, 5000, 5000}; !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	if w.TakeStateRetry() != 0 {
		t.Fatal("TakeStateRetry does not clear")
	}
	answer(0, "Failed to fetch") // the request did not reach the host
	if d := w.TakeStateRetry(); d != 5000 {
		t.Fatalf("transport failure: %d", d)
	}
	answer(200, `{"ok":true,"value":{"hostVersion":"1.3.0","formatVersion":4,"agentRunning":false,"compactionOpen":false,"wakePending":false,"userRows":[],"assistantRows":[],"hiddenSeqs":[]}}`)
	if d := w.TakeStateRetry(); d != 0 {
		t.Fatalf("a state answer left a retry: %d", d)
	}
	answer(409, notLoaded)
	if d := w.TakeStateRetry(); d != 250 {
		t.Fatalf("after an answer the schedule starts again: %d", d)
	}
	answer(404, "not found") // version skew
	if d := w.TakeStateRetry(); d != 0 || !w.Disabled() {
		t.Fatalf("skew retried (%d) or not disabling", d)
	}
}

// S92, S97: a page's call on a row whose editor is saving neither ends the
// save's busy state nor closes the editor: only the save's own answer does,
// and a refused save keeps the draft. (The first answer re-enabled Save and
// closed the editor while the save was still out; its refusal then had no
// draft to return to.)
func TestS92_PageCallDuringSaveKeepsItBusy(t *testing.T) {
	r := newRig(t)
	r.w.Open(2)
	r.w.SetDraft(2, "A")
	save := r.w.Save(2, false)
	r.run(r.w.Call("edit", 2, "C", true, nil, 9))
	if s := r.w.TakeSettled(); len(s) != 1 || !s[0].Result.OK {
		t.Fatalf("the page's call: %+v", s)
	}
	if v := r.w.Row(2); !v.Busy || !v.Editing || v.Draft != "A" {
		t.Fatalf("while the save is out: %+v", v)
	}
	if r.w.Save(2, false) != nil || r.w.Undo(2) != nil {
		t.Fatal("a second request while the save is out")
	}
	if r.w.Cancel(2); !r.w.Row(2).Editing {
		t.Fatal("Cancel closed the editor of a save in flight")
	}
	r.override[PathEdit] = func() (int, string) {
		return 423, `{"ok":false,"error":{"code":"compaction-open","message":"A compaction is running."}}`
	}
	r.run(save)
	if v := r.w.Row(2); v.Busy || !v.Editing || v.Draft != "A" || v.Error != "A compaction is running." || v.Text != "C" {
		t.Fatalf("after the save's refusal: %+v", v)
	}
}

// S98, S4: an operation whose answer did not arrive may still have been
// written (the connection cut after the host wrote): the widget reads the
// state again and says the outcome is unknown. (It said "Nothing was saved"
// and kept showing the old text.)
func TestS98_UnansweredOperationReadsStateAgain(t *testing.T) {
	r := newRig(t)
	r.w.Open(2)
	r.w.SetDraft(2, "A")
	q := r.w.Save(2, false)[0]
	hr := httptest.NewRequest(q.Method, "http://127.0.0.1:4000"+q.Path, strings.NewReader(q.Body))
	hr.Header.Set(VersionHeader, Version)
	hr.Header.Set("Content-Type", "application/json")
	r.h.ServeHTTP(httptest.NewRecorder(), hr) // written; the answer is lost
	next := r.w.Response(q.ID, 0, "Failed to fetch")
	if len(next) != 1 || next[0].Method != "GET" {
		t.Fatalf("no state read after the lost answer: %+v", next)
	}
	r.run(next)
	v := r.w.Row(2)
	if !v.Editing || v.Draft != "A" || v.Text != "A" || !v.Edited || v.Error != NoAnswerMessage("Failed to fetch") || strings.Contains(v.Error, "Nothing was saved") {
		t.Fatalf("after the lost answer: %+v", v)
	}
	// A call's promise hears the same.
	r.w.Cancel(2)
	c := r.w.Call("undo", 2, "", false, nil, 4)
	r.w.Response(c[0].ID, 0, "offline")
	if s := r.w.TakeSettled(); len(s) != 1 || s[0].Result.OK || s[0].Result.Message != NoAnswerMessage("offline") {
		t.Fatalf("settled %+v", s)
	}
}

// A refusal under a row with no editor open stayed there through every later
// operation (found by a tester: "this one is a context message" under the
// context row for the rest of the session); the next operation clears it.
// An open editor's refusal stays with its draft (S97).
func TestS97_RefusalOfAClosedRowClearsAtTheNextOperation(t *testing.T) {
	r := newRig(t)
	r.run(r.w.Call("edit", 3, "x", true, nil, 0)) // the context row
	if v := r.w.Row(3); v.Error == "" {
		t.Fatalf("the context row's edit is refused: %+v", v)
	}
	r.override[PathEdit] = func() (int, string) {
		return 423, `{"ok":false,"error":{"code":"compaction-open","message":"A compaction is running."}}`
	}
	r.w.Open(15)
	r.w.SetDraft(15, "typed")
	r.run(r.w.Save(15, false))
	if v := r.w.Row(15); !v.Editing || v.Error != "A compaction is running." {
		t.Fatalf("refused save: %+v", v)
	}
	if v := r.w.Row(3); v.Error != "" {
		t.Fatalf("the next operation clears the closed row's refusal: %+v", v)
	}
	delete(r.override, PathEdit)
	r.w.Open(2)
	r.w.SetDraft(2, "q1, edited")
	r.run(r.w.Save(2, false))
	if v := r.w.Row(15); !v.Editing || v.Error != "A compaction is running." || v.Draft != "typed" {
		t.Fatalf("an open editor keeps its refusal and draft: %+v", v)
	}
	if v := r.w.Row(2); v.Editing || v.Error != "" || v.Text != "q1, edited" {
		t.Fatalf("row 2 saved: %+v", v)
	}
}

// S98: the state is read again after every operation, a refused one too,
// and the open editor keeps the user's text (S97).
func TestS98_RefusedOperationReadsStateAgain(t *testing.T) {
	r := newRig(t)
	r.override[PathEdit] = func() (int, string) {
		return 409, `{"ok":false,"error":{"code":"target-shadowed","message":"This message is no longer in the model's view."}}`
	}
	r.w.Open(2)
	r.w.SetDraft(2, "typed")
	n := len(r.posts(PathState + "?session=sF"))
	r.run(r.w.Save(2, false))
	if got := len(r.posts(PathState + "?session=sF")); got != n+1 {
		t.Fatalf("state reads after the refusal: %d, want %d", got, n+1)
	}
	if v := r.w.Row(2); !v.Editing || v.Draft != "typed" || v.Error == "" {
		t.Fatalf("after refusal: %+v", v)
	}
}

// Two tabs on one session (C62 lets the last save win): a draft the user
// did not touch follows the message when a state read brings another tab's
// change, so an unchanged Enter writes nothing; a typed draft is not saved
// over a change it has not seen until the user saves again.
func TestS48S97_ChangedElsewhereWhileTheEditorIsOpen(t *testing.T) {
	r := newRig(t)
	b := New("sF")
	r.runFor(b, b.Refresh())
	events := func() int { return r.port.s.log.Len() }

	b.Open(2) // tab B opens the editor: "q1"
	r.w.Open(2)
	r.w.SetDraft(2, "A-edit")
	r.run(r.w.Save(2, false)) // tab A saves
	if v := r.w.Row(2); v.Text != "A-edit" {
		t.Fatalf("A: %+v", v)
	}
	r.runFor(b, b.Refresh()) // B reads the state (visibility, another tab's word)
	if v := b.Row(2); !v.Editing || v.Draft != "A-edit" {
		t.Fatalf("B's untouched draft follows the message: %+v", v)
	}
	before := events()
	r.runFor(b, b.Save(2, false))
	if events() != before {
		t.Fatal("an unchanged Enter in B wrote an event")
	}
	if v := b.Row(2); v.Editing || v.Text != "A-edit" {
		t.Fatalf("B after an unchanged save: %+v", v)
	}

	b.Open(2)
	b.SetDraft(2, "B-edit") // typed in B
	r.w.Open(2)
	r.w.SetDraft(2, "A-again")
	r.run(r.w.Save(2, false))
	r.runFor(b, b.Refresh())
	if v := b.Row(2); v.Draft != "B-edit" {
		t.Fatalf("a typed draft stays: %+v", v)
	}
	before = events()
	if reqs := b.Save(2, false); reqs != nil {
		t.Fatalf("the first Save over an unseen change sent %v", reqs)
	}
	if v := b.Row(2); !v.Editing || v.Error != ChangedElsewhereMessage {
		t.Fatalf("B is told: %+v", v)
	}
	r.runFor(b, b.Save(2, false)) // a second Save replaces it
	if events() != before+1 {
		t.Fatal("the second Save did not write")
	}
	if v := b.Row(2); v.Editing || v.Text != "B-edit" {
		t.Fatalf("B after the second save: %+v", v)
	}
}

// A typed draft outlives the widget (a session switch, a reload): the edge
// stores DraftsJSON and a new widget restores it once its state is loaded.
// Untouched editors and rows the state no longer has are not kept.
func TestDraftsSurviveARemount(t *testing.T) {
	r := newRig(t)
	r.w.Open(2)
	r.w.SetDraft(2, "typed \"here\"\n")
	r.w.Open(15) // untouched
	doc := r.w.DraftsJSON()
	if doc != `{"2":["typed \"here\"\n","q1"]}` {
		t.Fatalf("DraftsJSON = %s", doc)
	}
	b := New("sF")
	if b.RestoreDrafts(doc) {
		t.Fatal("restored before the state was loaded")
	}
	r.runFor(b, b.Refresh())
	if !b.RestoreDrafts(doc + "") {
		t.Fatal("not restored with the state loaded")
	}
	if v := b.Row(2); !v.Editing || v.Draft != "typed \"here\"\n" || v.Text != "q1" {
		t.Fatalf("row 2 after restore: %+v", v)
	}
	if b.Row(15).Editing {
		t.Fatal("an untouched editor was restored")
	}
	c := New("sF")
	r.runFor(c, c.Refresh())
	c.RestoreDrafts(`{"999":["gone","x"],"x":["bad","x"],"17":["a reply",""],"15":1,"2":"old format"}`)
	for _, seq := range []int{15, 17, 999} {
		if c.Row(seq).Editing {
			t.Fatalf("row %d opened", seq)
		}
	}
	// A plain string is a draft an earlier build stored, before drafts kept
	// the text they were typed over: kept, over the message's text now.
	if v := c.Row(2); !v.Editing || v.Draft != "old format" || v.Text != "q1" {
		t.Fatalf("an earlier build's draft: %+v", v)
	}
	if doc := c.DraftsJSON(); doc != `{"2":["old format","q1"]}` {
		t.Fatalf("DraftsJSON = %s", doc)
	}
}

// A draft restored after its message changed elsewhere (another tab saved
// while this one was closed) asks before its first save, as an open
// editor's draft does; the second save goes.
func TestDraftRestoredOverAChangedMessageAsks(t *testing.T) {
	r := newRig(t)
	r.w.Open(2)
	r.w.SetDraft(2, "my draft")
	doc := r.w.DraftsJSON()
	other := New("sF")
	r.runFor(other, other.Refresh())
	other.Open(2)
	other.SetDraft(2, "other tab")
	r.runFor(other, other.Save(2, false))
	b := New("sF")
	r.runFor(b, b.Refresh())
	b.RestoreDrafts(doc)
	if v := b.Row(2); !v.Editing || v.Draft != "my draft" || v.Text != "other tab" {
		t.Fatalf("restored: %+v", v)
	}
	if reqs := b.Save(2, false); reqs != nil || b.Row(2).Error != ChangedElsewhereMessage {
		t.Fatalf("first save: %+v %q", reqs, b.Row(2).Error)
	}
	r.runFor(b, b.Save(2, false))
	if v := b.Row(2); v.Editing || v.Text != "my draft" {
		t.Fatalf("second save: %+v", v)
	}
}

// C51, S60: Save & regenerate over an untouched draft sends no text, so
// the message's blocks are copied as they are rather than merged into one.
func TestC51_UntouchedSaveAndRegenerateSendsNoText(t *testing.T) {
	r := newRig(t)
	r.w.Open(15)
	reqs := r.w.Save(15, true)
	if len(reqs) != 1 || reqs[0].Body != `{"session":"sF","target":{"seq":15}}` {
		t.Fatalf("save & regenerate: %+v", reqs)
	}
	r.run(reqs)
	if v := r.w.Row(15); v.Text != "q2\nmore" || len(v.Chips) != 2 {
		t.Fatalf("after: %+v", v)
	}
	if u := r.w.user(15); u.Edited {
		t.Fatalf("an untouched regenerate marked the row edited: %+v", u)
	}
}

// S4, S97: a state read that does not get through after a save keeps the
// rows as the save left them and an open editor's typing, says it is
// retrying (not that nothing was saved), and the next read restores all.
func TestS97_FailedStateReadKeepsTheRows(t *testing.T) {
	r := newRig(t)
	r.w.Open(15)
	r.w.SetDraft(15, "typing")
	r.w.Open(2)
	r.w.SetDraft(2, "q1*")
	r.override[PathState] = func() (int, string) { return 0, "net down" }
	r.run(r.w.Save(2, false))
	if r.port.s.log.Len() != 21 {
		t.Fatal("the save was not written")
	}
	if v := r.w.Row(2); v.Text != "q1*" || v.Editing {
		t.Fatalf("row 2: %+v", v)
	}
	if v := r.w.Row(15); !v.Editing || v.Draft != "typing" {
		t.Fatalf("row 15: %+v", v)
	}
	if b := r.w.Banner(); b != StateUnreadMessage("net down") || strings.Contains(b, "Nothing was saved") {
		t.Fatalf("banner %q", b)
	}
	if r.w.TakeStateRetry() == 0 {
		t.Fatal("no retry")
	}
	delete(r.override, PathState)
	r.run(r.w.Refresh())
	if r.w.Banner() != "" || r.w.Row(2).Text != "q1*" || !r.w.Row(2).Undo {
		t.Fatalf("after the retry: %q %+v", r.w.Banner(), r.w.Row(2))
	}
}

// A save whose answer was lost may have landed: when the message now holds
// the very draft, the next save is no "changed elsewhere" question. An
// answer that is not the route's (a proxy's 502) says the outcome is
// unknown, as a lost one does.
func TestS4_LostAnswerThatLandedIsNoConflict(t *testing.T) {
	r := newRig(t)
	r.w.Open(2)
	r.w.SetDraft(2, "X")
	other := New("sF")
	r.runFor(other, other.Refresh())
	r.runFor(other, other.Call("edit", 2, "X", true, nil, 1)) // as if our save landed unanswered
	r.run(r.w.Refresh())
	r.run(r.w.Save(2, false))
	if v := r.w.Row(2); v.Editing || v.Error != "" || v.Text != "X" {
		t.Fatalf("row 2: %+v", v)
	}
	r.w.Open(2)
	r.w.SetDraft(2, "Y")
	r.override[PathEdit] = func() (int, string) { return 502, "<html>Bad Gateway</html>" }
	r.run(r.w.Save(2, false))
	if e := r.w.Row(2).Error; e != "The host answered HTTP 502 without an editor envelope. It may have been saved; the rows show the host's state once it answers." {
		t.Fatalf("502: %q", e)
	}
}

// S92: while a Save & regenerate is out, the turn's other regenerate
// controls are off, and a click on them sends nothing; its own editor
// keeps its (busy) button.
func TestS92_OneRegenerateAtATime(t *testing.T) {
	r := newRig(t)
	r.w.Open(15)
	r.w.SetDraft(15, "Q2")
	reqs := r.w.Save(15, true)
	if len(reqs) != 1 {
		t.Fatalf("save & regenerate: %+v", reqs)
	}
	if r.w.Row(17).Regenerate || !r.w.Row(15).SaveRegenerate || !r.w.Row(15).Busy {
		t.Fatalf("while out: 17 %+v, 15 %+v", r.w.Row(17), r.w.Row(15))
	}
	if again := r.w.RegenerateTurn(17); again != nil {
		t.Fatalf("a second regenerate went out: %+v", again)
	}
	r.run(reqs)
	if r.port.s.agent.followups != 1 {
		t.Fatalf("followups %d", r.port.s.agent.followups)
	}
}
