package chatsurface

import (
	"slices"
	"strconv"
	"testing"

	"tavern-core/apierr"
)

// ---- fake processor bridge ----

// pcall is one processor call (one layer of one request) as the fake bridge
// sees it. onBase runs in a later "microtask" when renderBase settles.
type pcall struct {
	token  Token
	id     string
	msg    MessageID
	mesid  int
	signal Signal
	onBase func(html string, err error)
}

type settled struct {
	emit bool
	err  error
}

type fakeProcs struct {
	run     map[Ref]func(*pcall)
	ids     map[Ref]string
	calls   []*pcall
	micro   []func()
	settled map[Wait]*settled
	evals   map[string]int   // calls per processor id
	read    string           // the version SameVersion last read, for NewRequest
	held    map[Token]string // results the bridge keeps during ProcessorDoneHeld
}

// version is C121's version of message object msg as the fake keeps it.
func (j *fakeJS) version(msg MessageID) string { return `["` + j.msg(msg).mes + `",0]` }

func (j *fakeJS) NewRequest(msg MessageID, _ int) Signal {
	s := j.NewSignal()
	j.sigs[s].msg, j.sigs[s].ver = msg, j.pc.read
	return s
}
func (j *fakeJS) VersionedRequest(msg MessageID, mesid int) (Signal, *JSValue) {
	s := j.NewSignal()
	j.sigs[s].msg, j.sigs[s].ver = msg, j.version(msg)
	return s, nil
}
func (j *fakeJS) SameVersion(msg MessageID, _ int, req Signal) (bool, *JSValue) {
	j.pc.read = j.version(msg)
	return j.pc.read == j.sigs[req].ver, nil
}
func (j *fakeJS) VersionChanged(req Signal) (bool, *JSValue) {
	r := j.sigs[req]
	r.next = j.version(r.msg)
	return r.next != r.ver, nil
}
func (j *fakeJS) AdoptVersion(req Signal) { r := j.sigs[req]; r.ver = r.next }
func (j *fakeJS) CurrentVersion(msg MessageID, mesid int, req Signal) (bool, bool, *JSValue) {
	if id, _ := j.MessageAt(mesid); id != msg {
		return false, false, nil
	}
	r := j.sigs[req]
	return true, j.version(r.msg) == r.ver, nil
}
func (j *fakeJS) CallProcessor(tok Token, prep Ref, msg MessageID, mesid int, s Signal) {
	c := &pcall{token: tok, id: j.pc.ids[prep], msg: msg, mesid: mesid, signal: s}
	j.pc.calls = append(j.pc.calls, c)
	j.pc.evals[c.id]++
	j.pc.run[prep](c)
}
func (j *fakeJS) SettleBaseHeld(tok, from Token) {
	html, ok := j.pc.held[from]
	if !ok {
		j.t.Fatalf("SettleBaseHeld(%d, %d): nothing held for %d", tok, from, from)
	}
	j.SettleBase(tok, html, nil)
}
func (j *fakeJS) HeldText(from Token) string {
	html, ok := j.pc.held[from]
	if !ok {
		j.t.Fatalf("HeldText(%d): nothing held", from)
	}
	return html
}

// doneHeld fulfils call c with html as the bridge does: kept for the
// length of the ProcessorDoneHeld call only.
func (h *harness) doneHeld(c *pcall, html string) {
	h.js.pc.held[c.token] = html
	h.host.ProcessorDoneHeld(c.token)
	delete(h.js.pc.held, c.token)
}

func (j *fakeJS) SettleBase(tok Token, html string, err error) {
	for _, c := range j.pc.calls {
		if c.token == tok && c.onBase != nil {
			f := c.onBase
			j.pc.micro = append(j.pc.micro, func() { f(html, err) })
		}
	}
}
func (j *fakeJS) AbortRequest(s Signal) {
	if !j.sigs[s].aborted {
		j.sigs[s].aborted, j.sigs[s].reason = true, "AbortError"
	}
}
func (j *fakeJS) Settle(w Wait, emit bool, err error) {
	if j.pc.settled[w] != nil {
		j.t.Fatalf("wait %d settled twice", w)
	}
	j.pc.settled[w] = &settled{emit, err}
}

var _ ProcessorCallbacks = (*fakeJS)(nil)

// ---- harness helpers ----

func procHarness(t *testing.T, msgs ...string) *harness {
	h := staticHarness(t, msgs...)
	h.js.pc = fakeProcs{run: map[Ref]func(*pcall){}, ids: map[Ref]string{}, settled: map[Wait]*settled{}, evals: map[string]int{}, held: map[Token]string{}}
	return h
}

// proc registers a processor whose calls run f.
func (h *harness) proc(id string, f func(*pcall)) {
	h.t.Helper()
	r := h.js.ref()
	h.js.pc.run[r], h.js.pc.ids[r] = f, id
	if _, err := h.page.RegisterContentProcessor(Str(id), Fn(r)); err != nil {
		h.t.Fatal(err)
	}
}

// wrapping registers a processor that logs, awaits renderBase and fulfils
// with id(base); a rejected base propagates.
func (h *harness) wrapping(id string) {
	h.proc(id, func(c *pcall) {
		h.log = append(h.log, id+":in")
		c.onBase = func(html string, err error) {
			h.log = append(h.log, id+":out")
			if err != nil {
				h.host.ProcessorFailed(c.token, h.js.throw(err))
				return
			}
			h.doneHeld(c, id+"("+html+")") // as the bridge fulfils with a string
		}
		h.host.RenderBase(c.token)
	})
}

// held registers a processor that records its calls and completes only
// when the test says so (the processor is "slow").
func (h *harness) held(id string) {
	h.proc(id, func(c *pcall) { h.log = append(h.log, id+":start"+strconv.Itoa(c.mesid)) })
}

// drain runs the pending microtasks.
func (h *harness) drain() {
	for len(h.js.pc.micro) > 0 {
		f := h.js.pc.micro[0]
		h.js.pc.micro = h.js.pc.micro[1:]
		f()
	}
}

func (h *harness) last() *pcall { return h.js.pc.calls[len(h.js.pc.calls)-1] }

func (h *harness) evals() int { return len(h.js.pc.calls) }

func (h *harness) content(m int) Node {
	r := h.host.MessageElement(m)
	if r == 0 {
		h.t.Fatalf("message %d not mounted", m)
	}
	return h.dom.QueryFirst(r, SelMesText)
}

func (h *harness) html(m int) string { return h.dom.InnerHTML(h.content(m)) }

func (h *harness) busy(m int) bool {
	v, ok := h.dom.Attr(h.content(m), "aria-busy")
	return ok && v == "true"
}

func (h *harness) wait(w Wait) *settled { return h.js.pc.settled[w] }

func causeOf(t *testing.T, j *fakeJS, err error) error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("got %T, want *Error", err)
	}
	if v, ok := e.Cause.(*JSValue); ok {
		if x, ok := j.vals[v.Ref].(error); ok {
			return x
		}
		return v
	}
	return e.Cause
}

// ---- C113, C114 ----

// C113 S71: validation in order, exact messages, untrimmed ids.
func TestC113_S71_Registration(t *testing.T) {
	h := procHarness(t)
	f := Fn(h.js.ref())
	msg := "ChatSurface content processor requires an id and prepare function"
	for _, c := range []struct{ id, prep Value }{
		{Undefined, Undefined},   // null
		{Undefined, Undefined},   // {}
		{Str("   "), f},          // blank id
		{Str("a"), Undefined},    // no prepare
		{Num(5), f},              // numeric id
		{Str("a"), Object("{}")}, // prepare not a function
	} {
		_, err := h.page.RegisterContentProcessor(c.id, c.prep)
		wantErr(t, err, apierr.TypeError, msg)
	}
	if _, err := h.page.RegisterContentProcessor(Str("a"), f); err != nil {
		t.Fatal(err)
	}
	_, err := h.page.RegisterContentProcessor(Str("a"), f)
	wantErr(t, err, apierr.PlainError, "ChatSurface content processor already registered: a")
	if _, err := h.page.RegisterContentProcessor(Str(" a"), f); err != nil {
		t.Fatal(err)
	}
	if ps := h.page.Processors(); len(ps) != 2 || ps[1].ID != " a" {
		t.Fatalf("processors %+v", ps)
	}
}

// C114 S72: after any materialisation, even with zero processors, and in
// any later epoch, registration is closed; the timing check comes first.
func TestC114_S72_RegistrationClosed(t *testing.T) {
	h := procHarness(t, "m0")
	h.create()
	h.mustRender()
	const msg = "ChatSurface content processors must register before the first projection"
	_, err := h.page.RegisterContentProcessor(Str("p"), Fn(h.js.ref()))
	wantErr(t, err, apierr.PlainError, msg)
	_, err = h.page.RegisterContentProcessor(Undefined, Undefined)
	wantErr(t, err, apierr.PlainError, msg)
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	_, err = h.page.RegisterContentProcessor(Str("p"), Fn(h.js.ref()))
	wantErr(t, err, apierr.PlainError, msg)
}

// C114: an empty projection materialises nothing and leaves registration open.
func TestC114_EmptyProjectionKeepsRegistrationOpen(t *testing.T) {
	h := procHarness(t)
	h.create()
	h.mustRender()
	if h.page.ContentStarted() {
		t.Fatal("started without a materialisation")
	}
	h.held("p")
}

// ---- C115–C117 ----

// C115 S73: outer wraps inner; renderBase is memoised; inner runs once.
func TestC115_S73_ChainOrderAndMemo(t *testing.T) {
	h := procHarness(t, "m0")
	var firsts []bool
	h.proc("outer", func(c *pcall) {
		h.log = append(h.log, "outer:in")
		c.onBase = func(html string, err error) {
			h.log = append(h.log, "outer:out")
			h.host.ProcessorDone(c.token, Str("outer("+html+")"))
		}
		firsts = append(firsts, h.host.RenderBase(c.token), h.host.RenderBase(c.token))
	})
	h.wrapping("inner")
	h.create()
	h.mustRender()
	h.drain()
	wantLog(t, h.log, "outer:in", "inner:in", "inner:out", "outer:out")
	if got := h.html(0); got != "outer(inner(<p>m0</p>))" {
		t.Fatalf("content %q", got)
	}
	if len(firsts) != 2 || !firsts[0] || firsts[1] {
		t.Fatalf("renderBase firsts %v: want the second call to reuse the first Promise", firsts)
	}
	if h.js.pc.evals["inner"] != 1 {
		t.Fatalf("inner called %d times", h.js.pc.evals["inner"])
	}
	if h.busy(0) {
		t.Fatal("aria-busy left after commit")
	}
}

// C115: the downstream part does not run if renderBase is never called.
func TestC115_NoRenderBaseNoInner(t *testing.T) {
	h := procHarness(t, "m0")
	h.proc("outer", func(c *pcall) {
		h.js.pc.micro = append(h.js.pc.micro, func() { h.host.ProcessorDone(c.token, Str("<b>own</b>")) })
	})
	h.wrapping("inner")
	h.create()
	h.mustRender()
	h.drain()
	if h.js.pc.evals["inner"] != 0 || h.html(0) != "<b>own</b>" {
		t.Fatalf("inner %d, html %q", h.js.pc.evals["inner"], h.html(0))
	}
}

// C117 C123 S77: a raw edit before renderBase re-formats the base and is
// recorded, so remounts and re-insertion reuse the result.
func TestC117_S77_EditBeforeRenderBase(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.proc("p", func(c *pcall) {
		h.js.msg(c.msg).mes = "Y"
		c.onBase = func(html string, err error) { h.host.ProcessorDone(c.token, Str(html)) }
		h.host.RenderBase(c.token)
	})
	h.create()
	if err := h.host.Render(RenderOptions{First: Num(1)}); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if h.html(1) != "<p>Y</p>" || h.evals() != 1 {
		t.Fatalf("content %q after %d evaluations", h.html(1), h.evals())
	}
	if err := h.host.Render(RenderOptions{Replace: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if h.evals() != 1 || h.html(1) != "<p>Y</p>" || h.busy(1) {
		t.Fatalf("remount re-evaluated: %d %q", h.evals(), h.html(1))
	}
	// Removed, rendered, re-inserted elsewhere, rendered: no new evaluation.
	m := h.js.chat[1]
	h.js.chat = h.js.chat[:1]
	h.mustRender()
	h.js.chat = []*fmsg{m, h.js.chat[0]}
	if err := h.host.Render(RenderOptions{First: Num(0)}); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if h.evals() != 2 || h.html(0) != "<p>Y</p>" { // the second is message "m0", mounted for the first time
		t.Fatalf("re-insertion: %d evaluations, %q", h.evals(), h.html(0))
	}
	if h.js.pc.calls[1].msg == m.id {
		t.Fatal("the re-inserted message was evaluated again")
	}
}

// ---- C118, C119, C127 ----

// C119 S78 (deviation): a raw edit after renderBase fails the processor.
func TestC119_S78_EditAfterRenderBase(t *testing.T) {
	h := procHarness(t, "m0")
	h.proc("p", func(c *pcall) {
		c.onBase = func(html string, err error) {
			h.js.msg(c.msg).mes = "later"
			h.host.ProcessorDone(c.token, Str(html))
		}
		h.host.RenderBase(c.token)
	})
	h.create()
	h.mustRender()
	if err := h.host.FinishContent(Num(0), 1, false); err != nil {
		t.Fatal(err)
	}
	h.drain()
	s := h.wait(1)
	if s == nil || s.err == nil {
		t.Fatal("finishContent did not reject")
	}
	wantErr(t, s.err, apierr.PlainError, "ChatSurface content processor p failed for message 0")
	wantErr(t, s.err.(*Error).Cause, apierr.PlainError, "ChatSurface content processor p changed message 0 after renderBase")
	if h.host.Fault() != s.err || len(h.js.faults) != 1 {
		t.Fatalf("fault %v, onFault %d", h.host.Fault(), len(h.js.faults))
	}
	if h.html(0) != "" || !h.busy(0) {
		t.Fatalf("content %q busy %v", h.html(0), h.busy(0))
	}
}

// C118 S79: a non-string result is a TypeError, wrapped; onFault once.
func TestC118_S79_NonString(t *testing.T) {
	h := procHarness(t, "m0")
	h.proc("bad", func(c *pcall) {
		h.js.pc.micro = append(h.js.pc.micro, func() { h.host.ProcessorDone(c.token, Num(42)) })
	})
	h.create()
	h.mustRender()
	h.drain()
	e := wantErr(t, h.host.Fault(), apierr.PlainError, "ChatSurface content processor bad failed for message 0")
	wantErr(t, e.Cause, apierr.TypeError, "prepare must return an HTML string")
	if len(h.js.faults) != 1 {
		t.Fatalf("onFault called %d times", len(h.js.faults))
	}
}

// C118 C127 S80: causes nest one level per layer; the outer error faults;
// no prepareContent runs and the text stays empty.
func TestC118_S80_NestedWrapping(t *testing.T) {
	h := procHarness(t, "m0")
	h.participant("A", hooks{prepare: nop})
	h.wrapping("outer")
	var deep *JSValue
	h.proc("inner", func(c *pcall) {
		deep = h.js.throw("deep")
		h.js.pc.micro = append(h.js.pc.micro, func() { h.host.ProcessorFailed(c.token, deep) })
	})
	h.create()
	h.mustRender()
	h.drain()
	outer := wantErr(t, h.host.Fault(), apierr.PlainError, "ChatSurface content processor outer failed for message 0")
	inner := wantErr(t, causeOf(t, h.js, outer), apierr.PlainError, "ChatSurface content processor inner failed for message 0")
	if inner.Cause != deep {
		t.Fatalf("innermost cause %v, want the thrown 'deep'", inner.Cause)
	}
	for _, l := range h.log {
		if l == "A.prepare:0" {
			t.Fatal("prepareContent ran for a failed request")
		}
	}
	if h.dom.textOf(h.content(0)) != "" || !h.busy(0) {
		t.Fatal("failed content not empty and busy")
	}
}

// C118: an outer processor that catches a failed renderBase recovers the
// request; a caught inner C119 failure makes the outer one fail C119 too.
func TestC118_OuterRecovers(t *testing.T) {
	h := procHarness(t, "m0")
	h.proc("outer", func(c *pcall) {
		c.onBase = func(html string, err error) {
			if err == nil {
				t.Error("inner should fail")
			}
			h.host.ProcessorDone(c.token, Str("<p>recovered</p>"))
		}
		h.host.RenderBase(c.token)
	})
	h.proc("inner", func(c *pcall) {
		h.js.pc.micro = append(h.js.pc.micro, func() { h.host.ProcessorFailed(c.token, h.js.throw("x")) })
	})
	h.create()
	h.mustRender()
	h.drain()
	if h.host.Fault() != nil || h.html(0) != "<p>recovered</p>" {
		t.Fatalf("fault %v, html %q", h.host.Fault(), h.html(0))
	}

	h2 := procHarness(t, "m0")
	h2.proc("outer", func(c *pcall) {
		c.onBase = func(string, error) { h2.host.ProcessorDone(c.token, Str("<p>caught</p>")) }
		h2.host.RenderBase(c.token)
	})
	h2.proc("inner", func(c *pcall) {
		c.onBase = func(html string, err error) {
			h2.js.msg(c.msg).mes = "edited"
			h2.host.ProcessorDone(c.token, Str(html))
		}
		h2.host.RenderBase(c.token)
	})
	h2.create()
	h2.mustRender()
	h2.drain()
	e := wantErr(t, h2.host.Fault(), apierr.PlainError, "ChatSurface content processor outer failed for message 0")
	wantErr(t, e.Cause, apierr.PlainError, "ChatSurface content processor outer changed message 0 after renderBase")
}

// ---- C120 ----

// C120 S81: one FIFO queue in start order; a failure does not block it.
func TestC120_S81_GlobalQueue(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.held("p")
	h.create()
	h.mustRender()
	wantLog(t, h.log, "p:start0")
	h.log = append(h.log, "end0")
	h.host.ProcessorDone(h.js.pc.calls[0].token, Str("a"))
	h.log = append(h.log, "end1")
	h.host.ProcessorDone(h.js.pc.calls[1].token, Str("b"))
	wantLog(t, h.log, "p:start0", "end0", "p:start1", "end1")

	h2 := procHarness(t, "m0", "m1")
	h2.held("p")
	h2.create()
	h2.mustRender()
	h2.host.ProcessorFailed(h2.js.pc.calls[0].token, h2.js.throw("boom"))
	wantLog(t, h2.log, "p:start0", "p:start1")
}

// C120: a request aborted before its turn is skipped without a call.
func TestC120_AbortedWhileQueuedIsSkipped(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.held("p")
	h.create()
	h.mustRender()
	if _, err := h.host.UpdateContent(Num(1), true); err != nil { // aborts the queued request of 1
		t.Fatal(err)
	}
	h.host.ProcessorDone(h.js.pc.calls[0].token, Str("<p>done</p>"))
	if h.evals() != 1 {
		t.Fatalf("%d evaluations: the aborted request ran", h.evals())
	}
}

// C120 (deviation, docs/decisions.md): requests of mounted messages go
// first. After a jump the tail's requests, still current (unmounting does
// not abort, C126), wait behind the messages on screen; they run after.
func TestC120_MountedGoFirst(t *testing.T) {
	h := managedHarness(t, 1000)
	h.js.pc = fakeProcs{run: map[Ref]func(*pcall){}, ids: map[Ref]string{}, settled: map[Wait]*settled{}, evals: map[string]int{}, held: map[Token]string{}}
	h.js.size = func(int) float64 { return 200 }
	h.held("p")
	h.create()
	h.open()
	tail := h.host.Snapshot().Mounted
	if len(tail) < 2 || h.evals() != 1 {
		t.Fatalf("mounted %v, %d calls", tail, h.evals())
	}
	first := h.last().mesid
	if _, err := h.host.JumpToMessage(Num(500)); err != nil {
		t.Fatal(err)
	}
	near := h.host.Snapshot().Mounted
	// The last message stays mounted (the bottom of the window) and is the
	// one running; the rest of the tail is not.
	others := func(ms []int, not []int) []int {
		return slices.DeleteFunc(slices.Clone(ms), func(m int) bool { return m == first || slices.Contains(not, m) })
	}
	rest := others(tail, near)
	if len(rest) != len(tail)-1 {
		t.Fatalf("tail %v, now mounted %v", tail, near)
	}
	near = others(near, nil)
	// The running request (the tail's first) holds the queue until it
	// settles; then one at a time.
	for c := h.last(); ; c = h.last() {
		h.host.ProcessorDone(c.token, Str("<p>x</p>"))
		if h.last() == c {
			break
		}
	}
	var order []int
	for _, c := range h.js.pc.calls {
		order = append(order, c.mesid)
	}
	// (Committed results let the window grow: more messages mount and
	// start later, behind or ahead of the tail's as they are on screen.)
	if len(order) < 1+len(near) || order[0] != first || !sameSet(order[1:1+len(near)], near) ||
		slices.ContainsFunc(rest, func(m int) bool { return !slices.Contains(order, m) }) {
		t.Fatalf("started %v: want %d, then %v, and %v later", order, first, near, rest)
	}
}

func sameSet(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// ---- C122–C125 ----

// C124 C125 S74: pending content is empty and busy, then committed through
// prepareContent and didCommitContent; the claimed runtime follows.
func TestC124_S74_PendingThenCommit(t *testing.T) {
	h := procHarness(t, "m0")
	h.participant("A", hooks{prepare: h.claimPre("A"), mount: nop, content: nop})
	h.held("p")
	h.create()
	h.mustRender()
	c := h.content(0)
	if len(h.dom.n(c).kids) != 0 || !h.busy(0) {
		t.Fatal("pending content is not empty and busy")
	}
	wantLog(t, h.log, "A.mount:0", "p:start0")
	if s := h.host.Snapshot(); !slices.Equal(s.PendingPreparations, ints(0)) {
		t.Fatalf("pendingPreparations %v", s.PendingPreparations)
	}
	h.log = nil
	h.host.ProcessorDone(h.last().token, Str("<pre>x</pre>"))
	if h.html(0) != "<pre>x</pre>" || h.busy(0) {
		t.Fatalf("content %q busy %v", h.html(0), h.busy(0))
	}
	wantLog(t, h.log, "A.prepare:0", "A.content:0", "A.activate:0")
	if s := h.host.Snapshot(); len(s.PendingPreparations) != 0 {
		t.Fatalf("pendingPreparations %v", s.PendingPreparations)
	}
}

// C122 S75: a completed message unmounted and remounted with the same base
// is applied in the same commit without evaluation; a new base re-evaluates.
func TestC122_S75_RemountReuse(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.participant("A", hooks{prepare: nop})
	h.wrapping("p")
	h.create()
	h.mustRender()
	h.drain()
	if h.evals() != 2 {
		t.Fatalf("%d evaluations", h.evals())
	}
	if err := h.host.Render(RenderOptions{First: Num(1)}); err != nil {
		t.Fatal(err)
	}
	h.log = nil
	if err := h.host.Render(RenderOptions{First: Num(0)}); err != nil {
		t.Fatal(err)
	}
	if h.evals() != 2 || h.html(0) != "p(<p>m0</p>)" || h.busy(0) {
		t.Fatalf("remount: %d evaluations, %q", h.evals(), h.html(0))
	}
	wantLog(t, h.log, "A.prepare:0")
	h.js.format = func(m *fmsg) string { return "<p>" + m.mes + "!</p>" }
	if err := h.host.Render(RenderOptions{Replace: []int{0}}); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if h.evals() != 3 || h.html(0) != "p(<p>m0!</p>)" {
		t.Fatalf("new base: %d evaluations, %q", h.evals(), h.html(0))
	}
}

// C123 S76: results survive renumbering; edits and refresh() invalidate.
func TestC123_S76_ReuseCounts(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.wrapping("p")
	h.create()
	h.mustRender()
	h.drain()
	if h.evals() != 2 {
		t.Fatalf("%d evaluations", h.evals())
	}
	h.js.chat = h.js.chat[1:]
	h.mustRender()
	h.drain()
	if h.evals() != 2 || h.html(0) != "p(<p>m1</p>)" {
		t.Fatalf("after shift: %d evaluations, %q", h.evals(), h.html(0))
	}
	h.js.chat[0].mes = "edited"
	if _, err := h.host.UpdateContent(Num(0), false); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if h.evals() != 3 || h.html(0) != "p(<p>edited</p>)" {
		t.Fatalf("after edit: %d evaluations, %q", h.evals(), h.html(0))
	}
	h.host.RefreshClear()
	h.host.RefreshApply(7)
	h.drain()
	if h.evals() != 4 || h.wait(7) == nil || h.wait(7).err != nil {
		t.Fatalf("after refresh: %d evaluations, wait %+v", h.evals(), h.wait(7))
	}
}

// ---- C126, C128 ----

// C126 C125 S82: a pending message renumbered by a render is aborted, a new
// request with the new mesid starts, and the late result is never written.
func TestC126_S82_RenumberAborts(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.held("p")
	h.create()
	h.mustRender()
	h.host.ProcessorDone(h.js.pc.calls[0].token, Str("<p>zero</p>"))
	old := h.js.pc.calls[1]
	if old.mesid != 1 {
		t.Fatal("setup")
	}
	h.js.chat = h.js.chat[1:]
	h.mustRender()
	if s := h.js.sigs[old.signal]; !s.aborted || s.reason != "AbortError" {
		t.Fatalf("old signal %+v", s)
	}
	fresh := h.last()
	if fresh == old || fresh.mesid != 0 || fresh.msg != old.msg {
		t.Fatalf("no new request with mesid 0: %+v", fresh)
	}
	h.host.ProcessorDone(old.token, Str("<p>stale</p>"))
	if h.html(0) != "" || !h.busy(0) {
		t.Fatalf("stale result written: %q", h.html(0))
	}
	h.host.ProcessorDone(fresh.token, Str("<p>fresh</p>"))
	if h.html(0) != "<p>fresh</p>" {
		t.Fatalf("content %q", h.html(0))
	}
}

// C128 C55 S83: marking a pending message transient aborts it; the raw
// text shows, no processor runs, the late result is ignored.
func TestC128_S83_TransientAborts(t *testing.T) {
	h := procHarness(t, "m0")
	h.held("p")
	h.create()
	h.mustRender()
	old := h.last()
	h.js.chat[0].mes = "streaming"
	if _, err := h.host.UpdateContent(Num(0), true); err != nil {
		t.Fatal(err)
	}
	if !h.js.sigs[old.signal].aborted || h.dom.textOf(h.content(0)) != "streaming" || h.busy(0) || h.evals() != 1 {
		t.Fatal("transient update did not abort and show raw text")
	}
	h.host.ProcessorDone(old.token, Str("<p>late</p>"))
	if h.dom.textOf(h.content(0)) != "streaming" || h.host.Fault() != nil {
		t.Fatal("late result written")
	}
	if s := h.host.Snapshot(); len(s.PendingPreparations) != 0 {
		t.Fatalf("transient content counted pending: %v", s.PendingPreparations)
	}
}

// C126 C107 S84: a reset aborts pending requests; the new chat is processed
// and nothing faults.
func TestC126_S84_ResetAborts(t *testing.T) {
	h := procHarness(t, "m0")
	h.wrapping("p")
	h.proc("slow", func(c *pcall) {}) // inner never settles
	h.create()
	h.mustRender()
	old := h.last()
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	if !h.js.sigs[old.signal].aborted {
		t.Fatal("reset did not abort")
	}
	h.js.chat = nil
	h.js.push("new chat")
	n := h.evals()
	h.mustRender()
	if h.evals() == n {
		t.Fatal("new chat not processed")
	}
	h.host.ProcessorDone(old.token, Str("<p>old</p>"))
	h.host.ProcessorDone(h.last().token, Str("<p>new chat</p>"))
	h.drain()
	if h.host.Fault() != nil || h.html(0) != "p(<p>new chat</p>)" {
		t.Fatalf("fault %v, html %q", h.host.Fault(), h.html(0))
	}
}

// ---- C129–C131 ----

// C129 S85: refresh() skips a message being edited; after the editor goes,
// finishContent processes it, and a refresh keeps root and mount lease.
func TestC129_S85_RefreshSkipsEditor(t *testing.T) {
	h := procHarness(t, "m0")
	h.wrapping("p")
	h.create()
	if _, err := h.host.UpdateContent(Num(0), true); err != nil {
		t.Fatal(err)
	}
	h.mustRender()
	root := h.host.MessageElement(0)
	ta := h.dom.html(`<textarea class="edit_textarea">draft</textarea>`)[0]
	h.dom.appendChild(h.dom.n(root), ta)
	h.host.RefreshClear()
	h.host.RefreshApply(1)
	if h.evals() != 0 || h.host.MessageElement(0) != root || ta.parent != h.dom.n(root) || h.dom.textOf(ta.id) != "draft" {
		t.Fatal("refresh touched the editing message")
	}
	if s := h.wait(1); s == nil || s.err != nil {
		t.Fatalf("refresh wait %+v", s)
	}
	h.dom.detach(ta)
	if err := h.host.FinishContent(Num(0), 2, false); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if h.evals() != 1 || h.wait(2) == nil {
		t.Fatalf("finishContent: %d evaluations", h.evals())
	}
	r := h.host.residencyAt(0)
	mount := r.mount
	h.host.RefreshClear()
	h.host.RefreshApply(3)
	if !h.busy(0) {
		t.Fatal("refreshed content not pending")
	}
	h.drain()
	if h.evals() != 2 || h.host.MessageElement(0) != root || h.host.residencyAt(0).mount != mount || mount.Closed() {
		t.Fatal("refresh did not keep root and mount lease")
	}
	if s := h.wait(3); s == nil || s.err != nil {
		t.Fatalf("refresh wait %+v", s)
	}
}

// C131 S86: the event is emitted only after the display committed, and
// never when another object took the index.
func TestC131_S86_FinishContentEmit(t *testing.T) {
	h := procHarness(t, "m0")
	h.held("p")
	h.create()
	h.mustRender()
	if err := h.host.FinishContent(Num(0), 1, true); err != nil {
		t.Fatal(err)
	}
	if h.wait(1) != nil || h.dom.textOf(h.content(0)) != "" {
		t.Fatal("settled before the processor")
	}
	h.host.ProcessorDone(h.last().token, Str("<p>final</p>"))
	if s := h.wait(1); s == nil || !s.emit || s.err != nil || h.html(0) != "<p>final</p>" {
		t.Fatalf("wait %+v, html %q", s, h.html(0))
	}

	h2 := procHarness(t, "m0")
	h2.held("p")
	h2.create()
	h2.mustRender()
	old := h2.last()
	if err := h2.host.FinishContent(Num(0), 1, true); err != nil {
		t.Fatal(err)
	}
	h2.js.chat[0] = &fmsg{id: 99, mes: "other"}
	h2.mustRender()
	h2.host.ProcessorDone(old.token, Str("<p>late</p>"))
	if s := h2.wait(1); s == nil || s.emit || s.err != nil {
		t.Fatalf("wait %+v: want fulfilled without emit", s)
	}
}

// C51 C117 C122: a refresh re-formats each message to the HTML it had, which
// normalises as it did (a round trip is a function of the HTML and of the
// content's tag), so that parse is not repeated; changed HTML is parsed, and
// either way the base is the normalised HTML.
func TestC51_C122_SameHTMLNormalisesOnce(t *testing.T) {
	h := procHarness(t, "m0")
	h.js.format = func(m *fmsg) string { return "<b>" + m.mes } // normalises to <b>m0</b>
	h.wrapping("p")
	h.create()
	h.mustRender()
	h.drain()
	refresh := func(w Wait) {
		h.host.RefreshClear()
		h.host.RefreshApply(w)
		h.drain()
		if s := h.wait(w); s == nil || s.err != nil {
			t.Fatalf("refresh wait %+v", s)
		}
	}
	refresh(1)
	c := h.dom.clones
	if h.html(0) != "p(<b>m0</b>)" {
		t.Fatalf("first refresh: %q", h.html(0))
	}
	refresh(2)
	if h.dom.clones != c || h.html(0) != "p(<b>m0</b>)" || h.evals() != 3 {
		t.Fatalf("same HTML: %d clones (was %d), %q, %d evaluations", h.dom.clones, c, h.html(0), h.evals())
	}
	h.js.chat[0].mes = "m1"
	refresh(3)
	if h.dom.clones != c+1 || h.html(0) != "p(<b>m1</b>)" {
		t.Fatalf("changed HTML: %d clones (was %d), %q", h.dom.clones, c, h.html(0))
	}
	h.js.format = func(m *fmsg) string { return "<i>" + m.mes }
	refresh(4)
	if h.dom.clones != c+2 || h.html(0) != "p(<i>m1</i>)" {
		t.Fatalf("re-formatted HTML: %d clones (was %d), %q", h.dom.clones, c, h.html(0))
	}
}

// C129 C125 S87: a failure during refresh() rejects it; a result arriving
// after its message scrolled out writes nothing and is reused on remount.
func TestC129_S87_RefreshFailureAndScrolledOut(t *testing.T) {
	h := procHarness(t, "m0")
	fail := false
	h.proc("p", func(c *pcall) {
		h.js.pc.micro = append(h.js.pc.micro, func() {
			if fail {
				h.host.ProcessorFailed(c.token, h.js.throw("nope"))
			} else {
				h.host.ProcessorDone(c.token, Str("<p>ok</p>"))
			}
		})
	})
	h.create()
	h.mustRender()
	h.drain()
	fail = true
	h.host.RefreshClear()
	h.host.RefreshApply(1)
	h.drain()
	s := h.wait(1)
	if s == nil || s.err == nil {
		t.Fatal("refresh did not reject")
	}
	wantErr(t, s.err, apierr.PlainError, "ChatSurface content processor p failed for message 0")

	h2 := procHarness(t, "m0", "m1")
	h2.held("p")
	h2.create()
	h2.mustRender()
	h2.host.ProcessorDone(h2.js.pc.calls[0].token, Str("<p>a</p>"))
	if err := h2.host.Render(RenderOptions{First: Num(2)}); err != nil { // scroll both out
		t.Fatal(err)
	}
	h2.host.ProcessorDone(h2.js.pc.calls[1].token, Str("<p>b</p>"))
	if err := h2.host.Render(RenderOptions{First: Num(0)}); err != nil {
		t.Fatal(err)
	}
	if h2.evals() != 2 || h2.html(1) != "<p>b</p>" || h2.busy(1) {
		t.Fatalf("remount: %d evaluations, %q", h2.evals(), h2.html(1))
	}
}

// C130: render()'s Promise waits for the mounted messages' requests and
// rejects with the first failure.
func TestC130_WaitMounted(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.held("p")
	h.create()
	h.mustRender()
	h.host.WaitMounted(1)
	h.host.ProcessorDone(h.js.pc.calls[0].token, Str("a"))
	if h.wait(1) != nil {
		t.Fatal("settled with a request outstanding")
	}
	h.host.ProcessorDone(h.js.pc.calls[1].token, Str("b"))
	if s := h.wait(1); s == nil || s.err != nil {
		t.Fatalf("wait %+v", s)
	}
	h.host.WaitMounted(2) // nothing pending: settles at once
	if h.wait(2) == nil {
		t.Fatal("empty wait not settled")
	}
}

// C126: a waiting Promise of an aborted request fulfils when that request
// settles, never rejects, and never waits for the replacement request.
func TestC126_AbortedWaitFulfils(t *testing.T) {
	h := procHarness(t, "m0")
	h.held("p")
	h.create()
	h.mustRender()
	old := h.last()
	h.host.WaitMounted(1)
	h.js.chat[0].mes = "edit"
	if _, err := h.host.UpdateContent(Num(0), false); err != nil {
		t.Fatal(err)
	}
	if h.wait(1) != nil {
		t.Fatal("settled before the aborted chain settled")
	}
	h.host.ProcessorFailed(old.token, h.js.throw("ignored"))
	if s := h.wait(1); s == nil || s.err != nil {
		t.Fatalf("wait %+v: want fulfilled", s)
	}
	if h.host.Fault() != nil {
		t.Fatal("a stale failure faulted")
	}
}

// C116: every layer of a request shares its mesid and signal.
func TestC116_SharedContext(t *testing.T) {
	h := procHarness(t, "m0")
	h.wrapping("outer")
	h.held("inner")
	h.create()
	h.mustRender()
	a, b := h.js.pc.calls[0], h.js.pc.calls[1]
	if a.signal != b.signal || a.mesid != b.mesid || a.msg != b.msg {
		t.Fatalf("layers differ: %+v %+v", a, b)
	}
}

// C55 C120: marking an unmounted pending message transient aborts it and
// frees the queue at once.
func TestC120_TransientUnmountedFreesQueue(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.held("p")
	h.create()
	h.mustRender()
	if err := h.host.Render(RenderOptions{First: Num(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.host.UpdateContent(Num(0), true); err != nil {
		t.Fatal(err)
	}
	wantLog(t, h.log, "p:start0", "p:start1")
}

// C107: a reset leaves no processor entry behind once requests settled.
func TestC107_ResetClearsProcessorTables(t *testing.T) {
	h := procHarness(t, "m0", "m1")
	h.wrapping("p")
	h.create()
	h.mustRender()
	h.drain()
	if tb := h.host.Tables(); tb.Requests != 2 {
		t.Fatalf("tables %+v", tb)
	}
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	if tb := h.host.Tables(); tb.Requests+tb.Queue+tb.Tokens != 0 {
		t.Fatalf("tables %+v", tb)
	}
}

// countingJS counts the calls out to the facade that a processor chain
// makes; each is a crossing in production.
type countingJS struct {
	*fakeJS
	n map[string]int
}

func (c *countingJS) MessageAt(i int) (MessageID, *JSValue) {
	c.n["messageAt"]++
	return c.fakeJS.MessageAt(i)
}
func (c *countingJS) SameVersion(msg MessageID, mesid int, req Signal) (bool, *JSValue) {
	c.n["sameVersion"]++
	return c.fakeJS.SameVersion(msg, mesid, req)
}
func (c *countingJS) VersionChanged(req Signal) (bool, *JSValue) {
	c.n["versionChanged"]++
	return c.fakeJS.VersionChanged(req)
}
func (c *countingJS) AdoptVersion(req Signal) {
	c.n["adoptVersion"]++
	c.fakeJS.AdoptVersion(req)
}
func (c *countingJS) CurrentVersion(msg MessageID, mesid int, req Signal) (bool, bool, *JSValue) {
	c.n["currentVersion"]++
	return c.fakeJS.CurrentVersion(msg, mesid, req)
}
func (c *countingJS) NewRequest(msg MessageID, mesid int) Signal {
	c.n["newRequest"]++
	return c.fakeJS.NewRequest(msg, mesid)
}
func (c *countingJS) VersionedRequest(msg MessageID, mesid int) (Signal, *JSValue) {
	c.n["versionedRequest"]++
	return c.fakeJS.VersionedRequest(msg, mesid)
}
func (c *countingJS) SettleBase(tok Token, html string, err error) {
	c.n["settleBase"]++
	c.fakeJS.SettleBase(tok, html, err)
}
func (c *countingJS) SettleBaseHeld(tok, from Token) {
	c.n["settleBaseHeld"]++
	c.fakeJS.SettleBaseHeld(tok, from)
}
func (c *countingJS) HeldText(from Token) string {
	c.n["heldText"]++
	return c.fakeJS.HeldText(from)
}

// C122, C125 (issue 13): per message, a refresh of a 3-processor chain
// asks chat[] once for C51's identity check (the outermost layer's C119 read
// answers C125's test for its result), reads the version once for the new
// request together with the request itself (no entry can be used after
// refresh() cleared them) and once more for the innermost layer's base
// (C117), and once per layer as it settles (C119). The HTML crosses twice:
// the base into the innermost layer, the outermost layer's result out; an
// inner layer's result reaches the layer outside it without crossing.
func TestC125_RefreshCrossingsPerMessage(t *testing.T) {
	h := procHarness(t, "a", "b", "c", "d")
	for _, id := range []string{"p", "q", "r"} {
		h.wrapping(id)
	}
	cj := &countingJS{fakeJS: h.js, n: map[string]int{}}
	host, err := h.page.CreateHost(validOptions(), Env{DOM: h.dom, JS: cj, Sched: h.sch, Root: h.dom.root.id})
	if err != nil {
		t.Fatal(err)
	}
	h.host, h.sch.h = host, host
	h.mustRender()
	h.drain()
	clear(cj.n)
	h.host.RefreshClear()
	h.host.RefreshApply(9)
	h.drain()
	if s := h.js.pc.settled[9]; s == nil || s.err != nil {
		t.Fatalf("refresh settled %+v", s)
	}
	want := map[string]int{"messageAt": 4, "versionedRequest": 4, "versionChanged": 4, "currentVersion": 12,
		"settleBase": 4, "settleBaseHeld": 8, "heldText": 4}
	for k, v := range want {
		if cj.n[k] != v {
			t.Errorf("%s: %d calls for 4 messages, want %d (%v)", k, cj.n[k], v, cj.n)
		}
	}
	if cj.n["newRequest"] != 0 {
		t.Errorf("newRequest called %d times", cj.n["newRequest"])
	}
	for i, c := range []string{"a", "b", "c", "d"} {
		if got := h.html(i); got != "p(q(r(<p>"+c+"</p>)))" {
			t.Fatalf("message %d: %q", i, got)
		}
	}
}

// C45, C115 (issue 13): C45's check of every mounted root is one read (not
// a query per root), and a request's layers live in one array sized for the
// chain that the token table points into; the chain still settles in order.
func TestC45_C115_OneReadAndOneLayerArray(t *testing.T) {
	h := procHarness(t, "a", "b")
	for _, id := range []string{"p", "q", "r"} {
		h.wrapping(id)
	}
	h.create()
	h.mustRender()
	h.drain()
	if err := h.host.verifyOwnership(); err != nil {
		t.Fatal(err)
	}
	own, query := h.dom.ops[DomOwnership], h.dom.ops[DomQuery]
	if err := h.host.verifyOwnership(); err != nil || h.dom.ops[DomOwnership] != own+1 || h.dom.ops[DomQuery] != query {
		t.Fatalf("C45 over %d roots: %d ownership reads, %d queries", len(h.host.mounted), h.dom.ops[DomOwnership]-own, h.dom.ops[DomQuery]-query)
	}
	h.host.RefreshClear()
	h.host.RefreshApply(5)
	req := h.host.proc.running
	if req == nil || len(req.layers) != 3 || cap(req.layers) != 3 {
		t.Fatalf("running request's layers: %+v", req)
	}
	for i := range req.layers {
		if l := &req.layers[i]; h.host.proc.tokens[l.token] != l {
			t.Fatalf("layer %d is not the one its token names", i)
		}
	}
	h.drain()
	if h.html(0) != "p(q(r(<p>a</p>)))" || h.html(1) != "p(q(r(<p>b</p>)))" {
		t.Fatalf("%q %q", h.html(0), h.html(1))
	}
}
