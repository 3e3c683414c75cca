package chatsurface

// Coverage of chat-surface rules C51–C100 (spec/chatsurface.md §7–§10) that
// no earlier test caught: each test names the clause it guards.

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"tavern-core/apierr"
)

// C53: a root whose mesid attribute changed (static mode polices no such
// change, C101) fails the content update with "DOM identity changed", faults,
// and leaves the content as it was.
func TestC53_DOMIdentityChanged_MesidAttribute(t *testing.T) {
	h := staticHarness(t, "m0", "m1")
	h.participant("p", hooks{content: nop})
	h.create()
	h.mustRender()
	root := h.host.MessageElement(1)
	h.dom.SetAttr(root, "mesid", "7")
	h.js.chat[1].mes = "edited"
	h.log = nil
	_, err := h.host.UpdateContent(Num(1), false)
	wantErr(t, err, apierr.PlainError, "ChatSurface message 1 DOM identity changed during content reconciliation")
	if h.host.Fault() != err || h.dom.textOf(root) != "m1" || len(h.log) != 0 {
		t.Fatal("must fault, leave the content and call no hook")
	}
}

// C53: a root whose first .mes_text is no longer the recorded content fails
// with "DOM identity changed" (checked before C45's content ownership), in
// both modes.
func TestC53_DOMIdentityChanged_FirstMesText(t *testing.T) {
	for _, managed := range []bool{false, true} {
		h := newHarness(t, managed)
		h.js.push("m0", "m1")
		h.create()
		if managed {
			h.open()
			h.sch.flush()
		} else {
			h.mustRender()
		}
		root := h.host.MessageElement(0)
		x := h.dom.mk("div")
		h.dom.setAttr(x, "class", "mes_text")
		h.dom.InsertBefore(root, x.id, h.dom.n(root).kids[0].id)
		_, err := h.host.UpdateContent(Num(0), false)
		wantErr(t, err, apierr.PlainError, "ChatSurface message 0 DOM identity changed during content reconciliation")
		if h.host.Fault() != err {
			t.Fatal("must fault")
		}
	}
}

// C54: if closing the old content lease (step 5) fails, the update throws that
// failure and faults; the old content stays live, and the staged content, its
// didCommitContent and its claimed sources are discarded (never activated).
func TestC54_CommitFailureKeepsOldContent(t *testing.T) {
	h := staticHarness(t, "<pre>x</pre>")
	e := h.js.throw(errTest("content disposer failed"))
	fail := false
	h.participant("p", hooks{prepare: h.claimPre("p"), content: func(call) (Return, *JSValue) {
		return h.js.disposerRet(func() (Return, *JSValue) {
			if fail {
				return Return{}, e
			}
			return Return{}, nil
		}), nil
	}})
	h.create()
	h.mustRender()
	root := h.host.MessageElement(0)
	content := h.dom.QueryFirst(root, SelMesText)
	fail = true
	h.js.chat[0].mes = "<pre>y</pre>"
	h.log = nil
	_, err := h.host.UpdateContent(Num(0), false)
	if err != e {
		t.Fatalf("got %v, want the disposer failure", err)
	}
	if h.host.Fault() == nil {
		t.Fatal("must fault")
	}
	if h.dom.QueryFirst(root, SelMesText) != content || h.dom.textOf(content) != "x" {
		t.Fatalf("the old content must stay live: %q", h.dom.InnerHTML(content))
	}
	wantLog(t, h.log, "p.prepare:0", "p:runtime:content-released")
}

// C52, C56: on an unmounted message updateContent only records the flag (a
// non-transient call clears it) and returns false; a transient message that
// mounts later gets didMount and raw content, nothing else.
func TestC52_C56_UnmountedTransientFlag(t *testing.T) {
	h := staticHarness(t, "<pre>0</pre>", "<pre>1</pre>", "<pre>2</pre>")
	h.participant("p", hooks{prepare: h.claimPre("p"), mount: nop, content: nop})
	h.create()
	if err := h.host.Render(RenderOptions{First: Num(2)}); err != nil {
		t.Fatal(err)
	}
	h.log = nil
	for _, c := range []struct {
		m         int
		transient bool
	}{{0, true}, {1, true}, {1, false}} {
		if ok, err := h.host.UpdateContent(Num(float64(c.m)), c.transient); ok || err != nil {
			t.Fatal("unmounted: false, no error", ok, err)
		}
	}
	if len(h.log) != 0 {
		t.Fatal("no hook for an unmounted message", h.log)
	}
	if err := h.host.Render(RenderOptions{First: Num(0)}); err != nil {
		t.Fatal(err)
	}
	wantLog(t, h.log, "p.prepare:1", "p.mount:0", "p.mount:1", "p.content:1", "p.activate:1")
	if got := h.dom.InnerHTML(h.dom.QueryFirst(h.host.MessageElement(0), SelMesText)); got != "<p><pre>0</pre></p>" {
		t.Fatal("raw content:", got)
	}
	if r := h.host.Snapshot().Runtime; len(r.Candidates) != 2 {
		t.Fatalf("only 1 and 2 have candidates: %+v", r.Candidates)
	}
}

// C51 step 2: prepareContent at a content update sees a staging element: a
// detached, childless shallow clone of the live .mes_text (same attributes)
// holding the formatted HTML; the live .mes_text keeps its identity.
func TestC51_StagingIsDetachedShallowClone(t *testing.T) {
	h := staticHarness(t, "m0")
	h.js.materialize = func(id MessageID, mesid int) *fnode {
		n := h.dom.html(`<div class="mes"><div class="mes_text" data-x="1"><p>` + h.js.msg(id).mes + `</p></div></div>`)[0]
		n.size = 100
		return n
	}
	var seen []Node
	var checks []string
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		seen = append(seen, c.content)
		x, _ := h.dom.Attr(c.content, "data-x")
		cl, _ := h.dom.Attr(c.content, "class")
		checks = append(checks, strconv.Itoa(int(h.dom.Parent(c.content)))+"|"+x+"|"+cl+"|"+h.dom.InnerHTML(c.content))
		return Return{}, nil
	}})
	h.create()
	h.mustRender()
	live := h.dom.QueryFirst(h.host.MessageElement(0), SelMesText)
	h.js.chat[0].mes = "new"
	if _, err := h.host.UpdateContent(Num(0), false); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[1] == live || seen[0] != live {
		t.Fatal("the update's prepareContent must see a staging element, not the live .mes_text")
	}
	if checks[1] != "0|1|mes_text|<p>new</p>" {
		t.Fatal("staging element:", checks[1])
	}
	if h.dom.QueryFirst(h.host.MessageElement(0), SelMesText) != live || h.dom.InnerHTML(live) != "<p>new</p>" {
		t.Fatal("the live .mes_text keeps its identity and gets the content")
	}
}

// C67 step 4: liveness is checked again after activate; an activate that
// removes its own source fails with "not live", its runtime lease closes with
// activation-failed (running the disposer it returned) and the epoch faults.
func TestC67_LivenessCheckedAfterActivate(t *testing.T) {
	h := staticHarness(t, "<pre>x</pre>")
	act := h.js.fn(func(c call) (Return, *JSValue) {
		h.dom.detach(h.dom.n(c.source))
		sig := c.signal
		return h.js.disposer(func() { h.log = append(h.log, "disposer:"+h.js.sigs[sig].reason) }), nil
	})
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		_ = h.host.Claim(c.claims, h.dom.findTag(c.content, "pre"), act)
		return Return{}, nil
	}})
	h.create()
	err := h.render()
	wantErr(t, err, apierr.PlainError, "ChatSurface runtime source is not live: p")
	wantLog(t, h.log, "p.prepare:0", "disposer:activation-failed")
	if h.host.Fault() != err || h.host.Snapshot().Runtime.Active != 0 {
		t.Fatal("faults; the candidate stays inactive")
	}
	// C60, C34: an eager grant failure is a phase 9–12 failure: the committed
	// DOM stays.
	if len(h.mounted()) != 1 || len(h.dom.Children(h.dom.root.id)) != 1 {
		t.Fatal("the committed root must stay")
	}
}

// C62: Rmax defaults to 8 (also reported in eager mode); Infinity and
// negative limits are refused.
func TestC62_RuntimeLimitDefaultAndRange(t *testing.T) {
	for _, managed := range []bool{true, false} {
		h := newHarness(t, managed)
		h.create()
		if r := h.host.Snapshot().Runtime; r.MaxActive != 8 {
			t.Fatalf("managed=%v: maxActive %d", managed, r.MaxActive)
		}
	}
	for _, bad := range []float64{posInf(), -1, -8} {
		h := newHarness(t, true)
		o := validOptions()
		o.RuntimeLimit = Num(bad)
		_, err := h.page.CreateHost(o, Env{DOM: h.dom, JS: h.js, Sched: h.sch, Root: h.dom.root.id})
		wantErr(t, err, apierr.TypeError, "RuntimeAdmission maxActive must be a positive integer")
	}
	h := newHarness(t, true)
	h.create(func(o *HostOptions) { o.RuntimeLimit = Num(3) })
	if h.host.Snapshot().Runtime.MaxActive != 3 {
		t.Fatal("runtimeLimit 3")
	}
}

func posInf() float64 { x := 1e308; return x * 10 }

// C63: registering or unregistering a candidate while the demand is not
// suspended re-evaluates the desired set (ordering when oversubscribed);
// while it is suspended nothing is evaluated.
func TestC63_RegistrationReevaluates(t *testing.T) {
	a, e := newAdm(t, true, 1)
	c0, c1, c2 := cand("c0", 0), cand("c1", 1), cand("c2", 1)
	_ = a.Register(c0)
	_ = a.SetDemand(fs(0, 1), false)
	e.log = nil
	if err := a.Register(c1); err != nil {
		t.Fatal(err)
	}
	wantLog(t, e.log, "order")
	e.order2 = func(l []*Candidate) ([]*Candidate, error) { return []*Candidate{l[1], l[0]}, nil }
	e.log = nil
	for e.pending {
		e.frame(a)
	}
	if !c1.active || c0.active {
		t.Fatal("the registration's evaluation must drive the grants", e.log)
	}
	e.order2 = nil
	e.log = nil
	_ = a.Register(c2) // 3 candidates, Rmax 1
	if err := a.Unregister(c2); err != nil {
		t.Fatal(err)
	}
	wantLog(t, e.log, "order", "order")
	_ = a.SetDemand(fs(0, 1), true)
	e.log = nil
	c3 := cand("c3", 0)
	_ = a.Register(c3)
	_ = a.Unregister(c3)
	wantLog(t, e.log)
}

// C64: the grant takes the first not-active desired candidate in desired
// order (not registration order).
func TestC64_GrantInDesiredOrder(t *testing.T) {
	a, e := newAdm(t, true, 2)
	ca, cb, cc := cand("a", 0), cand("b", 0), cand("c", 1)
	for _, c := range []*Candidate{ca, cb, cc} {
		_ = a.Register(c)
	}
	e.order2 = func(l []*Candidate) ([]*Candidate, error) { return []*Candidate{l[2], l[1], l[0]}, nil }
	_ = a.SetDemand(fs(0, 1), false)
	e.log = nil
	e.frame(a)
	e.frame(a)
	wantLog(t, e.log, "order", "grant:c", "order", "grant:b")
	if a.Snapshot().Scheduled || ca.active {
		t.Fatal("settled with c and b")
	}
}

// C64: an evaluation after which no revoke or grant is due schedules no
// frame (re-setting the satisfied demand, or a demand below Rmax already
// granted).
func TestC64_NoFrameWhenNothingDue(t *testing.T) {
	a, e := newAdm(t, true, 1)
	c0, c1 := cand("c0", 0), cand("c1", 1)
	_ = a.Register(c0)
	_ = a.Register(c1)
	_ = a.SetDemand(fs(0, 1), false)
	for e.pending {
		e.frame(a)
	}
	frames := e.frames
	e.log = nil
	_ = a.SetDemand(fs(0, 1), false)
	wantLog(t, e.log, "order") // evaluated afresh (C63)…
	if e.pending || e.frames != frames || a.Snapshot().Scheduled {
		t.Fatal("…but nothing is due, so no frame")
	}
}

// C63: a candidate whose source lost its parent element, when the desired set
// is evaluated at an admission frame with more candidates than Rmax, faults
// with "runtime host is missing".
func TestC63_RuntimeHostMissing(t *testing.T) {
	h := managedHarness(t, 1)
	h.js.chat[0].mes = "<div><pre>a</pre></div><div><pre>b</pre></div>"
	act := h.js.fn(func(c call) (Return, *JSValue) { return h.js.disposer(func() {}), nil })
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		for _, k := range h.dom.n(h.dom.n(c.content).kids[0].id).kids {
			_ = h.host.Claim(c.claims, k.kids[0].id, act)
		}
		return Return{}, nil
	}})
	h.create(func(o *HostOptions) { o.RuntimeLimit = Num(1) })
	h.open()
	if !h.host.Snapshot().Runtime.Scheduled {
		t.Fatal("set-up: an evaluation is due at the next frame")
	}
	pres := []*fnode{}
	for _, k := range h.dom.n(h.dom.QueryFirst(h.host.MessageElement(0), SelMesText)).kids[0].kids {
		pres = append(pres, k.kids[0])
	}
	h.dom.detach(pres[1])
	h.sch.frame()
	wantErr(t, h.host.Fault(), apierr.PlainError, "ChatSurface runtime host is missing: p")
	if len(h.js.faults) != 1 || h.host.Snapshot().Runtime.Active != 0 {
		t.Fatal("faults through onFault; nothing granted")
	}
}

// C61: in managed mode registration grants nothing; grants come one per
// admission frame.
func TestC61_ManagedGrantsOnlyInFrames(t *testing.T) {
	h, log := claimingHarness(t, 5)
	h.open()
	for _, l := range *log {
		if l == "p.activate:0" || len(l) > 10 && l[:10] == "p.activate" {
			t.Fatal("no grant outside a frame:", *log)
		}
	}
	if !h.host.Snapshot().Runtime.Scheduled || h.host.Snapshot().Runtime.Active != 0 {
		t.Fatal("an admission frame must be pending")
	}
	h.sch.frame()
	if h.host.Snapshot().Runtime.Active != 1 {
		t.Fatal("one grant per frame:", h.host.Snapshot().Runtime.Active)
	}
}

// C72, C92: during open() the root is marked bounded and bootstrapping, with
// overflow-anchor none; the first commit is tail-only: T is the first root
// mounted, V is empty and the top spacer is start(T) − Ps − G.
func TestC92_OpenBootstrapsTailFirst(t *testing.T) {
	h := managedHarness(t, 100)
	var first []string
	h.participant("p", hooks{mount: func(c call) (Return, *JSValue) {
		if first == nil {
			s := h.host.Snapshot()
			boot, _ := h.dom.Attr(h.dom.root.id, "data-tt-chat-bootstrap")
			mark, _ := h.dom.Attr(h.dom.root.id, "data-tt-chat-surface")
			first = append([]string{strconv.Itoa(c.mesid), string(s.State), boot, mark,
				h.dom.InlineStyle(h.dom.root.id, "overflow-anchor"), strconv.Itoa(len(s.Viewport))}, h.children()...)
		}
		return Return{}, nil
	}})
	h.create()
	h.open()
	wantLog(t, first, "99", "bootstrapping", "true", "bounded", "none", "0", "top(19800px)", "99")
	if _, ok := h.dom.Attr(h.dom.root.id, "data-tt-chat-bootstrap"); ok || h.host.Snapshot().State != StateSettled {
		t.Fatal("bootstrap attribute removed, settled")
	}
}

// C72: overflow-anchor stays none while the epoch is faulted; a reset removes
// the property when the root had none.
func TestC72_OverflowAnchorFaultedAndRestoredAbsent(t *testing.T) {
	h := managedHarness(t, 10)
	h.create()
	h.open()
	h.dom.Remove(h.host.MessageElement(9))
	h.host.OnMutation()
	if h.host.Fault() == nil || h.dom.InlineStyle(h.dom.root.id, "overflow-anchor") != "none" {
		t.Fatal("faulted, overflow-anchor still none")
	}
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.dom.root.style["overflow-anchor"]; ok {
		t.Fatal("the property must be removed")
	}
}

// C74, C75: every mounted root carries data-tt-virtual-index; the middle
// spacer is a tt-chat-spacer with aria-hidden.
func TestC75_VirtualIndexAndMiddleSpacer(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	if _, err := h.host.JumpToMessage(Num(500)); err != nil {
		t.Fatal(err)
	}
	h.sch.flush()
	for _, m := range h.mounted() {
		if v, ok := h.dom.Attr(h.host.MessageElement(m), "data-tt-virtual-index"); !ok || v != strconv.Itoa(m) {
			t.Fatalf("root %d: data-tt-virtual-index %q", m, v)
		}
	}
	var mid Node
	for _, c := range h.dom.Children(h.dom.root.id) {
		if v, _ := h.dom.Attr(c, "data-tt-chat-spacer"); v == "middle" {
			mid = c
		}
	}
	if mid == 0 || h.dom.TagName(mid) != "tt-chat-spacer" {
		t.Fatal("middle spacer", h.children())
	}
	if v, _ := h.dom.Attr(mid, "aria-hidden"); v != "true" {
		t.Fatal("middle spacer aria-hidden")
	}
}

// C74: the middle spacer exists iff V's last mesid is < T − 1. With 200 px
// roots and H 1000: S = 198201 gives V = [989..998] (no middle spacer, one
// range); S = 198199 gives V = [988..997] and a 200 px middle spacer.
func TestC74_MiddleSpacerEdge(t *testing.T) {
	for _, c := range []struct {
		s    float64
		last string
		mid  bool
	}{{198201, "998", false}, {198199, "997", true}} {
		h := managedHarness(t, 1000)
		h.js.size = func(int) float64 { return 200 }
		h.create()
		h.open()
		h.sch.flush()
		h.scrollTo(c.s)
		kids := h.children()
		hasMid := slices.Contains(kids, "middle(200px)")
		if hasMid != c.mid || kids[len(kids)-1] != "999" || kids[len(kids)-2] != map[bool]string{true: "middle(200px)", false: c.last}[c.mid] {
			t.Fatalf("S=%v: %v", c.s, kids)
		}
		if want := map[bool]int{true: 2, false: 1}[c.mid]; len(h.host.Snapshot().Ranges) != want {
			t.Fatalf("S=%v: ranges %v", c.s, h.host.Snapshot().Ranges)
		}
	}
}

// C93: a structural render() during a gesture commits the new structure,
// keeps the demand suspended and the state gesture-scrolling.
func TestC93_RenderDuringGesture(t *testing.T) {
	h, _ := claimingHarness(t, 1000)
	h.open()
	h.sch.flush()
	h.dom.SetScrollTop(0, 50000)
	h.host.OnScroll()
	h.sch.frame()
	h.js.push("<pre>new</pre>")
	h.mustRender()
	s := h.host.Snapshot()
	if s.State != StateGestureScrolling || !s.Runtime.Suspended || s.MessageCount != 1001 || !slices.Contains(s.Mounted, 1000) {
		t.Fatalf("%s suspended=%v count=%d", s.State, s.Runtime.Suspended, s.MessageCount)
	}
	h.sch.fireTimers()
	h.sch.flush()
	if s := h.host.Snapshot(); s.State != StateSettled || s.Runtime.Suspended {
		t.Fatal("the gesture's end settles")
	}
}

// C93: render({replace}) in managed mode cold-remounts the listed mounted
// mesids only.
func TestC93_ManagedReplace(t *testing.T) {
	h := managedHarness(t, 100)
	h.participant("p", hooks{mount: h.disposerLog("unmount")})
	h.create()
	h.open()
	h.sch.flush()
	r98, r99 := h.host.MessageElement(98), h.host.MessageElement(99)
	h.log = nil
	if err := h.host.Render(RenderOptions{Replace: []int{99}}); err != nil {
		t.Fatal(err)
	}
	if h.host.MessageElement(99) == r99 || h.host.MessageElement(98) != r98 {
		t.Fatal("only 99 is remounted")
	}
	wantLog(t, h.log, "unmount:projection-unmount", "p.mount:99")
}

// C94: the preconditions in order (static before range, range before the
// hold), a non-integer target, and a jump on an inactive host opens first.
func TestC94_PreconditionOrderAndInactiveOpen(t *testing.T) {
	s := staticHarness(t, "a")
	s.create()
	_, err := s.host.JumpToMessage(Num(5))
	wantErr(t, err, apierr.PlainError, "Bounded ChatSurface is not active")
	h := managedHarness(t, 100)
	h.create()
	h.open()
	_ = h.host.SetProjectionHeld(true)
	_, err = h.host.JumpToMessage(Num(100))
	wantErr(t, err, apierr.RangeError, "Chat virtualizer target 100 is outside the structure")
	_, err = h.host.JumpToMessage(Num(-1))
	wantErr(t, err, apierr.RangeError, "Chat virtualizer target -1 is outside the structure")
	_, err = h.host.JumpToMessage(Num(1.5))
	wantErr(t, err, apierr.RangeError, "Chat virtualizer target 1.5 is outside the structure")
	if h.host.Fault() != nil {
		t.Fatal("no precondition faults")
	}
	// inactive: the jump opens the epoch first
	h = managedHarness(t, 1000)
	var states []State
	h.participant("p", hooks{mount: func(c call) (Return, *JSValue) {
		if c.mesid == 500 {
			states = append(states, h.host.Snapshot().State)
		}
		return Return{}, nil
	}})
	h.create()
	root, err := h.host.JumpToMessage(Num(500))
	if err != nil || root == 0 || root != h.host.MessageElement(500) {
		t.Fatal(err)
	}
	if v, _ := h.dom.Attr(h.dom.root.id, "data-tt-chat-surface"); v != "bounded" || !slices.Contains(h.mounted(), 999) {
		t.Fatal("the epoch must be open, T mounted")
	}
	if h.host.Snapshot().State != StateSettled || !slices.Equal(states, []State{StateJumping}) {
		t.Fatal("jumping during the jump, settled after:", states)
	}
}

// C87, C94 step 5: a jump to the tail follows it; a reset stops following.
func TestC87_JumpToTailFollowsResetStops(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.scrollTo(0)
	if h.host.Snapshot().FollowingTail {
		t.Fatal("set-up: not following")
	}
	if _, err := h.host.JumpToMessage(Num(999)); err != nil {
		t.Fatal(err)
	}
	if !h.host.Snapshot().FollowingTail {
		t.Fatal("a jump that ends at the end follows")
	}
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	if h.host.Snapshot().FollowingTail || h.host.b.following {
		t.Fatal("a reset turns following off")
	}
}

// C95, C96: scrollToEnd is not held: while held it still commits at the end.
func TestC95_ScrollToEndWhileHeld(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.scrollTo(0)
	_ = h.host.SetProjectionHeld(true)
	if err := h.host.ScrollToEnd(); err != nil {
		t.Fatal(err)
	}
	m := h.mounted()
	if m[0] < 900 || !h.host.Snapshot().FollowingTail || h.dom.scroll != h.dom.scrollHeight()-1000 {
		t.Fatal(m)
	}
}

// C96: a structural render() is not held; releasing a hold with nothing owed
// schedules nothing; a reset clears the hold and the owed mark.
func TestC96_HoldDetails(t *testing.T) {
	h := openedHarness(t, 1000)
	_ = h.host.SetProjectionHeld(true)
	_ = h.host.SetProjectionHeld(false)
	if len(h.sch.frames) != 0 {
		t.Fatal("nothing owed: no frame")
	}
	_ = h.host.SetProjectionHeld(true)
	h.js.push("new")
	h.mustRender()
	if m := h.mounted(); m[len(m)-1] != 1000 || !h.host.Snapshot().ProjectionHeld {
		t.Fatal("render is not held", m)
	}
	h.sch.flush()
	_ = h.host.SetProjectionHeld(false)
	h.sch.flush()
	// owed, then reset
	_ = h.host.SetProjectionHeld(true)
	h.scrollTo(0) // the gesture's commit is owed
	if !h.host.b.owed {
		t.Fatal("set-up: a commit is owed")
	}
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	if h.host.Snapshot().ProjectionHeld {
		t.Fatal("a reset clears the hold")
	}
	h.open()
	h.sch.flush()
	_ = h.host.SetProjectionHeld(true)
	_ = h.host.SetProjectionHeld(false)
	if len(h.sch.frames) != 0 {
		t.Fatal("a reset clears the owed mark")
	}
}

// C97: a measurement refresh drops every measured size: unmounted messages
// measured earlier fall back to the 200 px estimate.
func TestC97_RefreshDropsMeasuredSizes(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.sch.flush() // 988..999 measured at 100 px
	if _, err := h.host.JumpToMessage(Num(500)); err != nil {
		t.Fatal(err)
	}
	h.sch.flush()
	midHeight := func() float64 {
		for _, c := range h.dom.Children(h.dom.root.id) {
			if v, _ := h.dom.Attr(c, "data-tt-chat-spacer"); v == "middle" {
				return parseLength(h.dom.InlineStyle(c, "height"))
			}
		}
		t.Fatal("no middle spacer")
		return 0
	}
	v := h.host.Snapshot().Viewport
	last := v[len(v)-1]
	if midHeight() >= float64(998-last)*200 {
		t.Fatal("set-up: some unmounted messages are measured at 100 px")
	}
	// The refresh re-measures only the forced window around the anchor, the
	// jump target until the user scrolls (C86 as changed), at 100 px; every
	// other unmounted message is back at the estimate.
	_, forcedLast := Centered(500, 1000)
	_ = h.host.RefreshLayout()
	h.sch.flush()
	v = h.host.Snapshot().Viewport
	last = v[len(v)-1]
	want := 0.0
	for i := last + 1; i <= 998; i++ {
		if i <= forcedLast {
			want += 100
		} else {
			want += 200
		}
	}
	if got := midHeight(); got != want {
		t.Fatalf("middle spacer %v, want %v (unmounted sizes outside the forced window dropped)", got, want)
	}
}

// C96, C97: while held, a refresh is deferred to the owed commit; releasing
// the hold runs exactly one.
func TestC97_HeldRefreshDeferred(t *testing.T) {
	h := openedHarness(t, 1000)
	_ = h.host.SetProjectionHeld(true)
	_ = h.host.RefreshLayout()
	h.sch.flush()
	if h.host.b.refreshRuns != 0 || !h.host.b.owed {
		t.Fatal("held: the refresh is owed", h.host.b.refreshRuns)
	}
	_ = h.host.SetProjectionHeld(false)
	h.sch.flush()
	if h.host.b.refreshRuns != 1 {
		t.Fatal("released: exactly one refresh", h.host.b.refreshRuns)
	}
}

// C88: notifications on a faulted host are ignored; a scrollend with no
// gesture is ignored; the settle timer is 150 ms.
func TestC88_IgnoredNotificationsAndTimer(t *testing.T) {
	h := openedHarness(t, 100)
	h.host.OnScrollEnd()
	if len(h.sch.frames) != 0 || h.host.Snapshot().State != StateSettled {
		t.Fatal("a scrollend without a gesture does nothing")
	}
	h.dom.SetScrollTop(0, 100)
	h.host.OnScroll()
	for _, ms := range h.sch.timers {
		if ms != 150 {
			t.Fatal("settle delay", ms)
		}
	}
	if len(h.sch.timers) != 1 {
		t.Fatal("one settle timer")
	}
	h = managedHarness(t, 100)
	h.create()
	h.open()
	h.sch.flush()
	h.dom.Remove(h.host.MessageElement(99))
	h.host.OnMutation()
	h.dom.SetScrollTop(0, 100)
	h.host.OnScroll()
	if len(h.sch.timers) != 0 || len(h.sch.frames) != 0 || h.host.Snapshot().State != StateFaulted {
		t.Fatal("a faulted host ignores scrolls")
	}
}

// C100: first defaults to the current first mounted mesid capped at count
// (0 when nothing is mounted); first == count is an empty projection; an
// invalid first is refused before the structural pass, without a fault.
func TestC100_StaticFirstDefault(t *testing.T) {
	h := staticHarness(t, "0", "1", "2", "3", "4")
	h.create()
	if err := h.host.Render(RenderOptions{First: Num(2)}); err != nil {
		t.Fatal(err)
	}
	h.js.push("5")
	h.mustRender()
	if !slices.Equal(h.mounted(), ints(2, 3, 4, 5)) {
		t.Fatal("the default keeps the first mounted mesid:", h.mounted())
	}
	h.js.chat = h.js.chat[:1]
	h.mustRender() // first = min(2, 1) = 1: [1, 1)
	if len(h.mounted()) != 0 || h.host.Fault() != nil {
		t.Fatal("capped at count: nothing mounted", h.mounted())
	}
	h.mustRender() // nothing mounted: first 0
	if !slices.Equal(h.mounted(), ints(0)) {
		t.Fatal(h.mounted())
	}
	if err := h.host.Render(RenderOptions{First: Num(1)}); err != nil || len(h.mounted()) != 0 {
		t.Fatal("first == count is valid and empty", err)
	}
	// the precondition comes before the structural pass
	h.js.chat = append(h.js.chat, h.js.chat[0])
	err := h.host.Render(RenderOptions{First: Num(9)})
	wantErr(t, err, apierr.RangeError, "ChatSurface static range start 9 is outside [0, 2]")
	if h.host.Fault() != nil {
		t.Fatal("no fault")
	}
}

// C100: static mode has no spacers or bounded attributes.
func TestC100_StaticHasNoBoundedMarks(t *testing.T) {
	h := staticHarness(t, "0", "1", "2")
	h.create()
	if err := h.host.Render(RenderOptions{First: Num(1)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range h.dom.Children(h.dom.root.id) {
		if _, ok := h.dom.Attr(c, "data-tt-virtual-index"); ok || h.dom.TagName(c) == "tt-chat-spacer" {
			t.Fatal("bounded marks in static mode:", h.children())
		}
	}
	if _, ok := h.dom.Attr(h.dom.root.id, "data-tt-chat-surface"); ok || h.dom.InlineStyle(h.dom.root.id, "overflow-anchor") != "" {
		t.Fatal("root marked in static mode")
	}
	if s := h.host.Snapshot(); len(s.Viewport) != 0 || s.FollowingTail || s.ProjectionHeld {
		t.Fatalf("%+v", s)
	}
}

// C79: a foreign change undone before the observer callback or the next
// operation runs is not reported (the DOM is compared with the projection,
// not with a record of changes).
func TestC79_UndoneChangeNotReported(t *testing.T) {
	h := openedHarness(t, 10)
	root := h.host.MessageElement(8)
	next := h.host.MessageElement(9)
	h.dom.Remove(root)
	h.dom.InsertBefore(h.dom.root.id, root, next)
	h.dom.SetAttr(next, "mesid", "3")
	h.dom.SetAttr(next, "mesid", "9")
	h.host.OnMutation()
	if err := h.render(); err != nil || h.host.Fault() != nil {
		t.Fatal("an undone change is no change:", err)
	}
}

// C78: `.style-pins` may sit anywhere; the other children are the top
// spacer, V's roots ascending, the middle spacer and the tail root, in that
// order, at every commit, wherever page code put the pins element.
func TestC78_ChildOrderWithStylePinsAnywhere(t *testing.T) {
	h := managedHarness(t, 1000)
	pins := h.dom.html(`<div class="style-pins"></div>`)[0]
	h.dom.appendChild(h.dom.root, pins)
	h.create()
	h.open()
	order := func(step string) {
		t.Helper()
		var rest []string
		sawPins := false
		for _, c := range h.children() {
			if c == "div" {
				sawPins = true
				continue
			}
			rest = append(rest, c)
		}
		if !sawPins {
			t.Fatalf("%s: the .style-pins element was removed: %v", step, h.children())
		}
		s := h.host.Snapshot()
		var want []string
		if len(s.Viewport) > 0 && s.Viewport[0] > 0 {
			want = append(want, "top")
		}
		for _, m := range s.Viewport {
			want = append(want, strconv.Itoa(m))
		}
		if n := len(s.Viewport); n > 0 && s.Viewport[n-1] < 998 {
			want = append(want, "middle")
		}
		if n := len(s.Viewport); n == 0 || s.Viewport[n-1] < 999 {
			want = append(want, "999")
		}
		if len(rest) != len(want) {
			t.Fatalf("%s: children %v, want the order %v", step, h.children(), want)
		}
		for i := range want {
			if !strings.HasPrefix(rest[i], want[i]) {
				t.Fatalf("%s: children %v, want the order %v", step, h.children(), want)
			}
		}
	}
	order("open")
	h.jump(500)
	order("jump")
	// Page code moves the pins element between two roots; the next commits
	// leave it there and keep the rest in order.
	kids := h.dom.Children(h.dom.root.id)
	h.dom.InsertBefore(h.dom.root.id, pins.id, kids[len(kids)/2])
	h.scrollTo(h.dom.ScrollTop(0) - 1500)
	order("scroll")
	h.jump(20)
	order("jump near the top")
	if h.host.Fault() != nil {
		t.Fatal(h.host.Fault())
	}
}

// C83: the first commit of open() is tail-only (V empty, T alone; see
// TestC92_OpenBootstrapsTailFirst); jumpToMessage's forced commit mounts the
// window of min(count, 32) messages centred on t before the normal commit
// narrows it to what the viewport needs.
func TestC83_ForcedModeMountsTheCentredWindow(t *testing.T) {
	h := managedHarness(t, 1000)
	var mountedInJump []int
	jumping := false
	h.participant("p", hooks{mount: func(c call) (Return, *JSValue) {
		if jumping {
			mountedInJump = append(mountedInJump, c.mesid)
		}
		return Return{}, nil
	}})
	h.create()
	h.open()
	for _, tc := range []struct{ t, first, last int }{{500, 484, 515}, {3, 0, 31}, {990, 968, 999}} {
		mountedInJump = nil
		was := map[int]bool{}
		for _, m := range h.mounted() {
			was[m] = true
		}
		jumping = true
		h.jump(tc.t)
		jumping = false
		got := map[int]bool{}
		for _, m := range mountedInJump {
			got[m] = true
		}
		for m := tc.first; m <= tc.last; m++ {
			if !got[m] && !was[m] {
				t.Fatalf("jump(%d): message %d of the forced window [%d, %d] was never mounted (mounted: %v)", tc.t, m, tc.first, tc.last, mountedInJump)
			}
		}
		for m := range got {
			if (m < tc.first || m > tc.last) && m != 999 && !slices.Contains(h.host.Snapshot().Viewport, m) {
				t.Fatalf("jump(%d): mounted %d, outside the forced window and the final viewport", tc.t, m)
			}
		}
	}
}

// C98: the bounded state is one of the seven, each seen where the rules put
// it: inactive before open, bootstrapping inside it, settled after,
// gesture-scrolling while a gesture lasts, jumping inside a jump, faulted
// after a fault, disposed after dispose.
func TestC98_BoundedStates(t *testing.T) {
	h := managedHarness(t, 200)
	var inHooks []State
	h.participant("p", hooks{mount: func(c call) (Return, *JSValue) {
		inHooks = append(inHooks, h.host.Snapshot().State)
		return Return{}, nil
	}})
	h.create()
	want := func(s State) {
		t.Helper()
		if got := h.host.Snapshot().State; got != s {
			t.Fatalf("state %q, want %q", got, s)
		}
	}
	want(StateInactive)
	h.open()
	if !slices.Contains(inHooks, StateBootstrapping) {
		t.Fatalf("no hook during open() saw bootstrapping: %v", inHooks)
	}
	want(StateSettled)
	h.dom.SetScrollTop(0, h.dom.ScrollTop(0)-3000)
	h.host.OnScroll()
	want(StateGestureScrolling)
	h.sch.frame()
	want(StateGestureScrolling)
	h.sch.fireTimers()
	h.sch.flush()
	want(StateSettled)
	inHooks = nil
	h.jump(20)
	if !slices.Contains(inHooks, StateJumping) {
		t.Fatalf("no hook during jumpToMessage saw jumping: %v", inHooks)
	}
	want(StateSettled)
	h.dom.Remove(h.host.MessageElement(199))
	h.host.OnMutation()
	want(StateFaulted)
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	want(StateInactive)
	if err := h.host.Dispose(); err != nil {
		t.Fatal(err)
	}
	want(StateDisposed)
}

// C86/C88 as changed (docs/chatsurface.md, "A clamp after a content
// change"): while following, a mounted root's content replaced by content
// that may be shorter (an update, a refresh making it pending) lets page code
// that reads layout make the browser clamp the offset; the content may have
// grown back by the notification, which then looks like a move up. Until the
// next geometry frame such a move is the clamp: following stays on and the
// view returns to the end. After that frame, or after streamed (transient)
// text, the same move is the user's.
func TestC88_ClampAfterContentReplacementIsNotAGesture(t *testing.T) {
	setup := func() (*harness, float64) {
		h := managedHarness(t, 200)
		h.create()
		h.open()
		h.sch.flush()
		if !h.host.Snapshot().FollowingTail {
			t.Fatal("following after open")
		}
		return h, h.dom.ScrollTop(0)
	}
	moveUp := func(h *harness, by float64) {
		h.dom.SetScrollTop(0, h.dom.ScrollTop(0)-by) // the browser's clamp, or the user
		h.host.OnScroll()
	}
	settle := func(h *harness) {
		h.sch.flush()
		h.sch.fireTimers()
		h.sch.flush()
	}
	// leaves: a move up is a gesture that ends with following off.
	leaves := func(h *harness, when string) {
		t.Helper()
		moveUp(h, 468)
		if s := h.host.Snapshot(); s.State != StateGestureScrolling {
			t.Fatalf("a move up %s is a gesture, state %s", when, s.State)
		}
		settle(h)
		if h.host.Snapshot().FollowingTail {
			t.Fatalf("the user left the tail %s", when)
		}
	}

	// An update of the last message, a clamp, the notification.
	h, end := setup()
	if _, err := h.host.UpdateContent(Num(199), false); err != nil {
		t.Fatal(err)
	}
	moveUp(h, 468)
	if s := h.host.Snapshot(); s.State != StateSettled || !s.FollowingTail {
		t.Fatalf("a clamp after an update was taken for a gesture: %s, following %v", s.State, s.FollowingTail)
	}
	settle(h)
	if s := h.host.Snapshot(); !s.FollowingTail || h.dom.ScrollTop(0) != end {
		t.Fatalf("following %v, offset %v, want the end %v", s.FollowingTail, h.dom.ScrollTop(0), end)
	}

	// The same move once the geometry frame has run is the user's.
	if _, err := h.host.UpdateContent(Num(199), false); err != nil {
		t.Fatal(err)
	}
	h.sch.flush()
	leaves(h, "after the frame")

	// Streamed text only grows: a move up right after a transient update is
	// the user leaving the tail.
	h, _ = setup()
	if _, err := h.host.UpdateContent(Num(199), true); err != nil {
		t.Fatal(err)
	}
	leaves(h, "while streaming")

	// The frame the replacement asks for commits nothing on its account: it
	// reads neither the view nor a root's box (a size that changed is
	// notified, and commits, anyway).
	h, _ = setup()
	if _, err := h.host.UpdateContent(Num(199), false); err != nil {
		t.Fatal(err)
	}
	reads := func() int { return h.dom.ops[DomReadView] + h.dom.ops[DomReadBox] + h.dom.ops[DomReadRect] }
	before := reads()
	h.sch.flush()
	if n := reads() - before; n != 0 {
		t.Fatalf("the clause's frame made %d geometry reads", n)
	}

	// A replacement made while a geometry frame was already requested (a
	// callback of that frame, ahead of the host's): the browser's clamp is
	// notified only in the frame after, and is still the clamp there (found
	// in review).
	h, _ = setup()
	if err := h.host.RefreshLayout(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.host.UpdateContent(Num(199), false); err != nil {
		t.Fatal(err)
	}
	h.sch.frame()
	moveUp(h, 468)
	if s := h.host.Snapshot(); s.State != StateSettled || !s.FollowingTail {
		t.Fatalf("a clamp notified the frame after was taken for a gesture: %s, following %v", s.State, s.FollowingTail)
	}
	settle(h)
	if end := h.dom.scrollHeight() - h.dom.height; !h.host.Snapshot().FollowingTail || h.dom.ScrollTop(0) != end {
		t.Fatalf("following %v, offset %v, want the end %v", h.host.Snapshot().FollowingTail, h.dom.ScrollTop(0), end)
	}
	h.sch.flush()
	leaves(h, "two frames after")

	// While the projection is held (an editor open), the clause does not
	// apply, as the resize clause does not: nothing is measured until the
	// hold ends, and the user's scrolls would be undone then.
	h, _ = setup()
	if err := h.host.SetProjectionHeld(true); err != nil {
		t.Fatal(err)
	}
	if _, err := h.host.UpdateContent(Num(199), false); err != nil {
		t.Fatal(err)
	}
	moveUp(h, 468)
	if s := h.host.Snapshot(); s.State != StateGestureScrolling {
		t.Fatalf("a move up while held is a gesture, state %s", s.State)
	}
}
