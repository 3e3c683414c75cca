package chatsurface

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"tavern-core/apierr"
)

func managedHarness(t *testing.T, n int) *harness {
	h := newHarness(t, true)
	for i := 0; i < n; i++ {
		h.js.push("m" + strconv.Itoa(i))
	}
	return h
}

// openedHarness is a managed host over n messages, opened and settled.
func openedHarness(t *testing.T, n int) *harness {
	h := managedHarness(t, n)
	h.create()
	h.open()
	h.sch.flush()
	return h
}

func (h *harness) open() {
	h.t.Helper()
	if err := h.host.Open(); err != nil {
		h.t.Fatal(err)
	}
}

// children describes the root's children: mesids for roots, top/middle for spacers.
func (h *harness) children() []string {
	var out []string
	for _, c := range h.dom.Children(h.dom.root.id) {
		if v, ok := h.dom.Attr(c, "data-tt-chat-spacer"); ok {
			out = append(out, v+"("+h.dom.InlineStyle(c, "height")+")")
		} else if v, ok := h.dom.Attr(c, "mesid"); ok {
			out = append(out, v)
		} else {
			out = append(out, h.dom.TagName(c))
		}
	}
	return out
}

// invariant is C145: at most 33 roots, 2 ranges and Rmax active runtimes.
func (h *harness) invariant() {
	h.t.Helper()
	s := h.host.Snapshot()
	roots := 0
	for _, c := range h.dom.Children(h.dom.root.id) {
		if h.dom.Matches(c, SelMes) {
			roots++
		}
	}
	if roots > 33 || len(s.Ranges) > 2 || s.Runtime.Active > s.Runtime.MaxActive {
		h.t.Fatalf("C145 violated: %d roots, %d ranges, %d active", roots, len(s.Ranges), s.Runtime.Active)
	}
}

// C73, C92, C146 S52.
func TestC92_S52_OpenLargeChat(t *testing.T) {
	h := managedHarness(t, 10000)
	h.create()
	h.open()
	s := h.host.Snapshot()
	if s.State != StateSettled || len(s.Mounted) > 33 || s.Mounted[len(s.Mounted)-1] != 9999 || len(s.Ranges) > 2 {
		t.Fatalf("%+v", s)
	}
	if h.js.mat > 65 {
		t.Fatalf("%d materialize calls", h.js.mat)
	}
	tail := h.host.MessageElement(9999)
	for _, c := range h.dom.n(tail).classes {
		if c == "last_mes" {
			goto ok
		}
	}
	t.Fatal("tail lacks last_mes")
ok:
	kids := h.dom.Children(h.dom.root.id)
	if v, _ := h.dom.Attr(kids[0], "aria-hidden"); v != "true" {
		t.Fatal("top spacer first, aria-hidden")
	}
	if v, _ := h.dom.Attr(h.dom.root.id, "data-tt-chat-surface"); v != "bounded" {
		t.Fatal("root not marked")
	}
	if _, ok := h.dom.Attr(h.dom.root.id, "data-tt-chat-bootstrap"); ok {
		t.Fatal("bootstrap attribute left")
	}
	if h.dom.InlineStyle(h.dom.root.id, "overflow-anchor") != "none" {
		t.Fatal("C72 overflow-anchor")
	}
	if !s.FollowingTail {
		t.Fatal("open follows the tail")
	}
	h.invariant()
}

// C81, C82, C84 S53 through the host.
func TestC84_S53_OpenSpacer(t *testing.T) {
	h := managedHarness(t, 100)
	h.js.size = func(int) float64 { return 200 }
	h.create()
	h.open()
	wantLog(t, h.children(), "top(18600px)", "93", "94", "95", "96", "97", "98", "99")
	if h.dom.scroll != 19000 {
		t.Fatal(h.dom.scroll)
	}
}

// C94, C91 S55: jump and its demand.
func TestC94_S55_Jump(t *testing.T) {
	h := managedHarness(t, 1000)
	h.js.size = func(int) float64 { return 200 }
	var act []int
	a := h.js.fn(func(c call) (Return, *JSValue) { act = append(act, c.mesid); return h.js.disposer(func() {}), nil })
	h.js.push() // none
	for _, m := range h.js.chat {
		m.mes = "<pre>" + m.mes + "</pre>"
	}
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		_ = h.host.Claim(c.claims, h.dom.findTag(c.content, "pre"), a)
		return Return{}, nil
	}})
	h.create(func(o *HostOptions) { o.RuntimeLimit = Num(100) })
	h.open()
	root, err := h.host.JumpToMessage(Num(500))
	if err != nil {
		t.Fatal(err)
	}
	if root != h.host.MessageElement(500) || h.dom.scroll != 99600 {
		t.Fatal(h.dom.scroll)
	}
	s := h.host.Snapshot()
	want := ints(496, 497, 498, 499, 500, 501, 502, 503, 504, 999)
	if !slices.Equal(s.Mounted, want) {
		t.Fatal(s.Mounted)
	}
	if c := h.children(); c[len(c)-2] != "middle(98800px)" {
		t.Fatal(c)
	}
	if !slices.Equal(h.host.b.demand, ints(500, 499, 501, 498, 502, 496, 497, 503, 504)) {
		t.Fatal(h.host.b.demand)
	}
	act = nil
	h.sch.flush()
	if !slices.Equal(act, ints(500, 499, 501, 498, 502, 496, 497, 503, 504)) {
		t.Fatal("grants follow the demand order, one per frame:", act)
	}
	if h.host.Snapshot().FollowingTail {
		t.Fatal("a jump to the middle stops following")
	}
}

// C94 S65, S59: jump preconditions, none faults.
func TestC94_S59_S65_JumpPreconditions(t *testing.T) {
	h := managedHarness(t, 100)
	h.create()
	h.open()
	_, err := h.host.JumpToMessage(Num(100))
	wantErr(t, err, apierr.RangeError, "Chat virtualizer target 100 is outside the structure")
	_ = h.host.SetProjectionHeld(true)
	_, err = h.host.JumpToMessage(Num(5))
	wantErr(t, err, apierr.PlainError, "Bounded ChatSurface cannot leave an active message editor")
	if h.host.Fault() != nil {
		t.Fatal("no fault")
	}
	if r, err := h.host.JumpToMessage(Num(99)); err != nil || r != h.host.MessageElement(99) {
		t.Fatal(err)
	}
	s := staticHarness(t, "a")
	s.create()
	_, err = s.host.JumpToMessage(Num(0))
	wantErr(t, err, apierr.PlainError, "Bounded ChatSurface is not active")
}

// C87, C31 S57: following keeps the new tail in view.
func TestC87_S57_FollowPush(t *testing.T) {
	h := managedHarness(t, 10000)
	h.create()
	h.open()
	old := h.host.MessageElement(9999)
	h.js.push("new")
	h.mustRender()
	m := h.mounted()
	if m[len(m)-1] != 10000 {
		t.Fatal(m)
	}
	if hasClass(h.dom.n(old), "last_mes") || !hasClass(h.dom.n(h.host.MessageElement(10000)), "last_mes") {
		t.Fatal("last_mes must move")
	}
	if h.dom.scroll != h.host.b.layout.MaxScroll() {
		t.Fatal("scrollTop must be total − H")
	}
}

func hasClass(n *fnode, c string) bool {
	for _, x := range n.classes {
		if x == c {
			return true
		}
	}
	return false
}

// C76, C77 S58.
func TestC76_S58_ForeignChildren(t *testing.T) {
	h := managedHarness(t, 3)
	d := h.dom.mk("div")
	d.attrs["id"] = "ecosystem-root-write"
	h.dom.appendChild(h.dom.root, d)
	h.create()
	wantErr(t, h.host.Open(), apierr.PlainError, "Bounded ChatSurface contains an unknown direct child: div")
	if h.host.Snapshot().State != StateFaulted {
		t.Fatal("must fault")
	}
	if _, ok := h.dom.Attr(h.dom.root.id, "data-tt-chat-bootstrap"); ok {
		t.Fatal("C106: bootstrap attribute removed on fault")
	}
	h = managedHarness(t, 3)
	p := h.dom.html(`<div class="style-pins"></div>`)[0]
	h.dom.appendChild(h.dom.root, p)
	h.create()
	h.open()
	h = managedHarness(t, 3)
	sm := h.dom.html(`<div><div id="show_more_messages"></div></div>`)[0]
	h.dom.appendChild(h.dom.root, sm)
	h.create()
	wantErr(t, h.host.Open(), apierr.PlainError, "Bounded ChatSurface cannot adopt the static Show More control")
}

// C28, C73 S61.
func TestC73_S61_ShiftAndPop(t *testing.T) {
	h := newHarness(t, true)
	h.js.push("first", "second", "third")
	h.create()
	h.open()
	h.js.chat = h.js.chat[1:]
	h.mustRender()
	if !slices.Equal(h.mounted(), ints(0, 1)) || h.dom.textOf(h.host.MessageElement(0)) != "second" {
		t.Fatal(h.mounted())
	}
	h.js.chat = h.js.chat[:1]
	h.mustRender()
	if !slices.Equal(h.mounted(), ints(0)) || h.dom.textOf(h.host.MessageElement(0)) != "second" {
		t.Fatal(h.mounted())
	}
	h.js.chat = nil
	h.mustRender()
	if len(h.mounted()) != 0 || len(h.dom.Children(h.dom.root.id)) != 0 {
		t.Fatal(h.children())
	}
}

// jump is jumpToMessage(m) and the frames after it.
func (h *harness) jump(m int) {
	h.t.Helper()
	if _, err := h.host.JumpToMessage(Num(float64(m))); err != nil {
		h.t.Fatal(err)
	}
	h.sch.flush()
}

// scrollTo simulates a user gesture that settles through the timer.
func (h *harness) scrollTo(s float64) {
	h.dom.SetScrollTop(0, s)
	h.host.OnScroll()
	h.sch.frame() // a frame during the gesture: suspended
	h.sch.fireTimers()
	h.sch.flush()
}

// C89, C96 S60: commits are held; releasing the hold commits around the top.
func TestC96_S60_HeldGesture(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	before := h.mounted()
	_ = h.host.SetProjectionHeld(true)
	h.scrollTo(0)
	if !slices.Equal(h.mounted(), before) || h.host.Snapshot().State != StateGestureScrolling {
		t.Fatal("held: projection unchanged, still gesture-scrolling")
	}
	_ = h.host.SetProjectionHeld(false)
	h.sch.flush()
	m := h.mounted()
	if m[0] != 0 || h.host.Snapshot().State != StateSettled {
		t.Fatal(m)
	}
	h.invariant()
}

// C54-style S54 through the host: a gesture to the top with H = 20000.
func TestC82_S54_GestureToTop(t *testing.T) {
	h := managedHarness(t, 1000)
	h.js.size = func(int) float64 { return 200 }
	h.dom.height = 20000
	h.create()
	h.open()
	h.scrollTo(0)
	s := h.host.Snapshot()
	if len(s.Viewport) != 32 || s.Viewport[0] != 33 || s.Viewport[31] != 64 {
		t.Fatal(s.Viewport)
	}
	c := h.children()
	if c[0] != "top(6600px)" || c[len(c)-2] != "middle(186800px)" || c[len(c)-1] != "999" || len(s.Mounted) != 33 {
		t.Fatal(c)
	}
}

// C65, C89 S46: demand is suspended during a gesture and resumes after.
func TestC89_S46_SuspendedDuringGesture(t *testing.T) {
	h := managedHarness(t, 50)
	for _, m := range h.js.chat {
		m.mes = "<pre>" + m.mes + "</pre>"
	}
	grants := 0
	a := h.js.fn(func(c call) (Return, *JSValue) { grants++; return h.js.disposer(func() {}), nil })
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		_ = h.host.Claim(c.claims, h.dom.findTag(c.content, "pre"), a)
		return Return{}, nil
	}})
	h.create()
	h.open()
	h.sch.flush()
	active := h.host.Snapshot().Runtime.Active
	if active == 0 || active > 8 {
		t.Fatal(active)
	}
	h.dom.SetScrollTop(0, 0)
	h.host.OnScroll()
	h.sch.frame() // the view at the top is not mounted: this frame commits (C89 as changed), demand suspended
	s := h.host.Snapshot()
	if !s.Runtime.Suspended || s.Runtime.Scheduled || s.Runtime.Active != 0 || s.State != StateGestureScrolling || s.Mounted[0] != 0 {
		t.Fatalf("%+v %v", s.Runtime, s.Mounted)
	}
	h.sch.frame() // covered now: nothing committed, nothing granted
	if s := h.host.Snapshot(); !s.Runtime.Suspended || s.Runtime.Active != 0 {
		t.Fatalf("%+v", s.Runtime)
	}
	g := grants
	h.sch.fireTimers()
	h.sch.frame() // the geometry commit that ends the gesture
	if h.host.Snapshot().State != StateSettled || h.host.Snapshot().Runtime.Suspended {
		t.Fatal("gesture must end")
	}
	for h.host.Snapshot().Runtime.Scheduled {
		before := grants
		h.sch.frame()
		if grants-before > 1 {
			t.Fatal("more than one grant per frame")
		}
		h.invariant()
	}
	if grants == g {
		t.Fatal("grants must resume")
	}
}

// runtimeHarness is S46's fixture: every message's <pre> is a runtime
// source; grants counts activations.
func runtimeHarness(t *testing.T, n int, setup ...func(*harness)) (*harness, *int) {
	h := managedHarness(t, n)
	for _, f := range setup {
		f(h)
	}
	for _, m := range h.js.chat {
		m.mes = "<pre>" + m.mes + "</pre>"
	}
	grants := new(int)
	a := h.js.fn(func(c call) (Return, *JSValue) { *grants++; return h.js.disposer(func() {}), nil })
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		_ = h.host.Claim(c.claims, h.dom.findTag(c.content, "pre"), a)
		return Return{}, nil
	}})
	h.create()
	h.open()
	return h, grants
}

// C65 as changed: a gesture notification suspends demand at once, so the
// admission frame pending from before the scroll is cancelled.
func TestC65_GestureNotificationSuspendsAtOnce(t *testing.T) {
	h, grants := runtimeHarness(t, 50)
	if !h.host.Snapshot().Runtime.Scheduled {
		t.Fatal("open leaves an admission frame pending")
	}
	g := *grants
	h.dom.SetScrollTop(0, h.dom.scroll-300)
	h.host.OnScroll()
	if s := h.host.Snapshot(); !s.Runtime.Suspended || s.Runtime.Scheduled {
		t.Fatalf("suspended, nothing pending: %+v", s.Runtime)
	}
	h.sch.frame()
	if *grants != g {
		t.Fatal("nothing is granted while the gesture lasts")
	}
}

// C88/C64 as changed: script that scrolls from an animation frame moves
// the view before the host's frame, and its notification comes after. The
// admission frame takes the move as that notification: it grants nothing,
// the gesture begins with its settle timer, and grants resume once the
// gesture ends.
func TestC88_UnnotifiedMoveAtAdmissionFrame(t *testing.T) {
	h, grants := runtimeHarness(t, 50)
	g := *grants
	h.dom.SetScrollTop(0, h.dom.scroll-300)
	h.sch.frame()
	s := h.host.Snapshot()
	if *grants != g || s.State != StateGestureScrolling || !s.Runtime.Suspended || len(h.sch.timers) != 1 {
		t.Fatalf("grants %d→%d, %s, %+v, timers %d", g, *grants, s.State, s.Runtime, len(h.sch.timers))
	}
	h.host.OnScroll() // the move's own notification: the same gesture
	if len(h.sch.timers) != 1 || h.host.Snapshot().State != StateGestureScrolling {
		t.Fatal("one settle timer, still a gesture")
	}
	h.host.OnScrollEnd()
	h.sch.flush()
	if s := h.host.Snapshot(); *grants == g || s.State != StateSettled || s.Runtime.Suspended || s.FollowingTail {
		t.Fatalf("grants resume after the gesture, which left the tail: %d %s %+v", *grants, s.State, s.Runtime)
	}
}

// C88/C89 as changed: a geometry frame (here a size notification's) that
// finds the view moved without a notification runs as a gesture frame:
// demand suspended, nothing granted, the user's position kept.
func TestC88_UnnotifiedMoveAtGeometryFrame(t *testing.T) {
	h, grants := runtimeHarness(t, 50)
	h.sch.flush()
	h.scrollTo(h.dom.scroll - 200) // off the tail, settled
	h.sch.flush()
	g := *grants
	h.dom.n(h.host.MessageElement(44)).size += 50
	h.host.OnResize([]Node{h.host.MessageElement(44)}) // a geometry frame is pending
	s0 := h.dom.scroll - 400
	h.dom.SetScrollTop(0, s0)
	h.sch.frame()
	s := h.host.Snapshot()
	if *grants != g || s.State != StateGestureScrolling || !s.Runtime.Suspended || h.dom.scroll > s0 {
		t.Fatalf("grants %d→%d, %s, %+v, scroll %v (moved to %v)", g, *grants, s.State, s.Runtime, h.dom.scroll, s0)
	}
	h.sch.fireTimers() // the settle timer ends it
	h.sch.flush()
	if s := h.host.Snapshot(); s.State != StateSettled || s.FollowingTail || h.dom.scroll > s0 {
		t.Fatalf("the user's position is kept, following stays off: %s %v %v", s.State, s.FollowingTail, h.dom.scroll)
	}
}

// estimated makes every message measure EstimatedSize: measuring a jump's
// roots then schedules no geometry frame, so an admission frame can be the
// only one pending.
func estimated(h *harness) { h.js.size = func(int) float64 { return EstimatedSize } }

// C65 as changed: a jump (or scrollToEnd) in the middle of a gesture sends
// demand unsuspended while the gesture lasts; the user's next notification
// suspends it again, so the pending admission frame grants nothing.
func TestC65_NotificationAfterAJumpMidGestureSuspends(t *testing.T) {
	for _, mid := range []string{"jump", "scrollToEnd"} {
		h, grants := runtimeHarness(t, 200, estimated)
		h.sch.flush()
		h.dom.SetScrollTop(0, h.dom.scroll-3000)
		h.host.OnScroll() // a gesture begins
		h.sch.frame()
		if mid == "jump" {
			if _, err := h.host.JumpToMessage(Num(100)); err != nil {
				t.Fatal(err)
			}
		} else if err := h.host.ScrollToEnd(); err != nil {
			t.Fatal(err)
		}
		g := *grants
		h.dom.SetScrollTop(0, h.dom.scroll-500) // the user goes on scrolling
		h.host.OnScroll()
		suspended := h.host.Snapshot().Runtime.Suspended
		h.sch.frame()
		if !suspended || *grants != g {
			t.Fatalf("%s: suspended %v, grants %d→%d during the gesture", mid, suspended, g, *grants)
		}
	}
}

// C88 as changed: an admission frame that takes an unnotified move as
// layout's while following (the tail shrank, the browser clamped, the tail
// grew back) schedules the geometry commit that follows it to the end; the
// notification that arrives after is within 1.5 px and ignored, and the
// tail's size notification was already answered by the frame's read.
func TestC88_FollowingMoveAtAdmissionFrameCommits(t *testing.T) {
	h, _ := runtimeHarness(t, 50, estimated)
	s0 := h.dom.scroll
	h.dom.n(h.host.MessageElement(49)).size += 200
	h.dom.scroll = s0 - 300 // the clamp from when it was shorter
	h.sch.frame()           // the admission frame
	h.host.OnScroll()
	h.sch.flush()
	h.sch.fireTimers()
	h.sch.flush()
	s := h.host.Snapshot()
	if !s.FollowingTail || h.dom.scroll != h.dom.scrollHeight()-h.dom.height {
		t.Fatalf("following %v, scroll %v of %v", s.FollowingTail, h.dom.scroll, h.dom.scrollHeight()-h.dom.height)
	}
}

// C88 as changed, C93: a render() (a message added) between a user's scroll
// and its notification took the live position for its own: it anchored at
// the pinned jump target, wrote that position back, and the notification,
// matching it, was ignored — the scroll was lost. The render now takes the
// move as the gesture it is: the user's position is kept, demand stays
// suspended, and the gesture ends as any other.
func TestC88_RenderBeforeTheNotificationKeepsTheScroll(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.sch.flush()
	h.jump(500) // the target is pinned (C86 as changed)
	s0 := h.dom.scroll - 700
	h.dom.SetScrollTop(0, s0)
	h.js.push("a new message")
	if err := h.render(); err != nil {
		t.Fatal(err)
	}
	s := h.host.Snapshot()
	if h.dom.scroll != s0 || s.State != StateGestureScrolling || !s.Runtime.Suspended {
		t.Fatalf("after render: scroll %v (the user's %v), %s, suspended %v", h.dom.scroll, s0, s.State, s.Runtime.Suspended)
	}
	h.host.OnScroll() // the notification, late
	h.sch.flush()
	h.sch.fireTimers()
	h.sch.flush()
	if s := h.host.Snapshot(); h.dom.scroll != s0 || s.State != StateSettled || s.FollowingTail {
		t.Fatalf("after the gesture: scroll %v (the user's %v), %s, following %v", h.dom.scroll, s0, s.State, s.FollowingTail)
	}
}

// C69, C107 S47: many runtimes; jumps keep active ≤ 8; reset empties admission.
func TestC69_S47_Budget(t *testing.T) {
	h := managedHarness(t, 500)
	for _, m := range h.js.chat {
		m.mes = "<pre>" + m.mes + "</pre>"
	}
	var sigs []Signal
	a := h.js.fn(func(c call) (Return, *JSValue) { sigs = append(sigs, c.signal); return h.js.disposer(func() {}), nil })
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		_ = h.host.Claim(c.claims, h.dom.findTag(c.content, "pre"), a)
		return Return{}, nil
	}})
	h.create()
	h.open()
	for len(h.sch.frames) > 0 {
		h.sch.frame()
		h.invariant()
	}
	if n := h.host.Snapshot().Runtime.Active; n == 0 || n > 8 {
		t.Fatal(n)
	}
	first := append([]Signal(nil), sigs...)
	if _, err := h.host.JumpToMessage(Num(5)); err != nil {
		t.Fatal(err)
	}
	for len(h.sch.frames) > 0 {
		h.sch.frame()
		h.invariant()
	}
	aborted := 0
	for _, s := range first {
		if h.js.sigs[s].aborted {
			aborted++
		}
	}
	if aborted == 0 {
		t.Fatal("some first-generation signals must abort")
	}
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	r := h.host.Snapshot().Runtime
	if r.Active != 0 || len(r.Candidates) != 0 {
		t.Fatalf("%+v", r)
	}
}

// C67, C45 S48 (managed): foreign removal before the first frame → not live at
// the frame; removal inside didMount → ownership diverged at step 12.
func TestC67_S48_ManagedNotLive(t *testing.T) {
	h := managedHarness(t, 1)
	h.js.chat[0].mes = "<pre>x</pre>"
	h.participant("runtime-owner", hooks{prepare: h.claimPre("runtime-owner")})
	h.create()
	h.open()
	h.dom.detach(h.dom.n(h.dom.findTag(h.host.MessageElement(0), "pre")))
	h.sch.flush()
	wantErr(t, h.host.Fault(), apierr.PlainError, "ChatSurface runtime source is not live: runtime-owner")
	if len(h.js.faults) != 1 {
		t.Fatal("onFault once")
	}
	h = managedHarness(t, 1)
	h.js.chat[0].mes = "<pre>x</pre>"
	h.participant("runtime-owner", hooks{prepare: h.claimPre("runtime-owner")})
	h.participant("other", hooks{mount: func(c call) (Return, *JSValue) {
		h.dom.detach(h.dom.n(h.dom.findTag(c.content, "pre")))
		return Return{}, nil
	}})
	h.create()
	wantErr(t, h.host.Open(), apierr.PlainError, "ChatSurface message 0 runtime source ownership diverged")
}

// C45 at a content update, over every mounted root in mounted order (one
// read): a foreign .mes_text before the content names the first such root;
// a claimed source moved out of its content names its root; a .mes_text
// inside the content changes nothing.
func TestC45_ContentUpdateChecksEveryRoot(t *testing.T) {
	probe := func(diverge func(h *harness)) error {
		h := managedHarness(t, 3)
		h.js.chat[1].mes = "<pre>x</pre>"
		h.js.chat[2].mes = "<pre>y</pre>"
		h.participant("runtime-owner", hooks{prepare: h.claimPre("runtime-owner")})
		h.create()
		h.open()
		h.sch.flush()
		diverge(h)
		own := h.dom.ops[DomOwnership]
		_, err := h.host.UpdateContent(Num(0), false)
		if h.dom.ops[DomOwnership] != own+1 {
			t.Fatalf("%d C45 reads for one content update", h.dom.ops[DomOwnership]-own)
		}
		return err
	}
	text := func(h *harness) *fnode { x := h.dom.mk("div"); h.dom.setAttr(x, "class", "mes_text"); return x }
	root := func(h *harness, m int) Node { return h.host.MessageElement(m) }
	wantErr(t, probe(func(h *harness) {
		h.dom.InsertBefore(root(h, 2), text(h).id, h.dom.n(root(h, 2)).kids[0].id)
		h.dom.InsertBefore(root(h, 1), text(h).id, h.dom.n(root(h, 1)).kids[0].id)
	}), apierr.PlainError, "ChatSurface message 1 content ownership diverged")
	wantErr(t, probe(func(h *harness) {
		pre := h.dom.n(h.dom.findTag(root(h, 2), "pre"))
		h.dom.appendChild(h.dom.n(root(h, 2)), pre)
	}), apierr.PlainError, "ChatSurface message 2 runtime source ownership diverged")
	if err := probe(func(h *harness) {
		h.dom.appendChild(h.dom.n(h.dom.QueryFirst(root(h, 1), SelMesText)), text(h))
	}); err != nil {
		t.Fatal(err)
	}
}

// C63 S44, S45: the box ordering picks the nearest candidates.
func TestC63_S45_BoxOrdering(t *testing.T) {
	h := managedHarness(t, 1)
	h.js.chat[0].mes = "<div><pre>a</pre></div><div><pre>b</pre></div>"
	var got []string
	acts := map[string]Ref{}
	for _, n := range []string{"a", "b"} {
		n := n
		acts[n] = h.js.fn(func(c call) (Return, *JSValue) { got = append(got, n); return h.js.disposer(func() {}), nil })
	}
	var wrappers []Node
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		wrappers = nil
		for _, k := range h.dom.n(h.dom.n(c.content).kids[0].id).kids {
			pre := k.kids[0]
			wrappers = append(wrappers, k.id)
			_ = h.host.Claim(c.claims, pre.id, acts[h.dom.textOf(pre.id)])
		}
		return Return{}, nil
	}})
	h.create(func(o *HostOptions) { o.RuntimeLimit = Num(1) })
	h.open()
	h.dom.rects[wrappers[0]] = Rect{100, 300} // centre 200, viewport centre 500
	h.dom.rects[wrappers[1]] = Rect{410, 610} // centre 510
	_ = h.host.Render(RenderOptions{})
	h.sch.flush()
	if len(got) != 1 || got[0] != "b" {
		t.Fatal(got)
	}
}

// C79 S66 (managed): foreign removal faults.
func TestC79_S66_ManagedInconsistent(t *testing.T) {
	h := managedHarness(t, 3)
	h.create()
	h.open()
	h.dom.Remove(h.host.MessageElement(1))
	h.host.OnMutation()
	wantErr(t, h.host.Fault(), apierr.PlainError, "ChatSurface committed DOM projection is inconsistent")
	// found at the start of an operation instead: thrown from it
	h = managedHarness(t, 3)
	h.create()
	h.open()
	h.dom.SetAttr(h.host.MessageElement(1), "mesid", "7")
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface committed DOM projection is inconsistent")
}

// C79: a root's mesid must spell its mesid exactly (String(mesid)). The
// children read decodes it to a number without a string (Child.Mesid): a
// spelling that parses to the same number is still foreign.
func TestC79_MesidSpelling(t *testing.T) {
	for _, v := range []string{"01", " 1", "1 ", "+1", "1.0", "1e0", "0x1", "\u0661", "", "-1", "4294967297", "11"} {
		h := managedHarness(t, 3)
		h.create()
		h.open()
		h.dom.SetAttr(h.host.MessageElement(1), "mesid", v)
		wantErr(t, h.render(), apierr.PlainError, "ChatSurface committed DOM projection is inconsistent")
	}
	h := managedHarness(t, 12)
	h.create()
	h.open()
	h.dom.SetAttr(h.host.MessageElement(11), "mesid", "11") // the value it has: not a change
	if err := h.render(); err != nil {
		t.Fatal(err)
	}
}

// C105, C106 S67: after a fault every mutating call throws; DOM unchanged.
func TestC106_S67_FaultedBoundedView(t *testing.T) {
	h := managedHarness(t, 100)
	p := h.participant("p", hooks{mount: nop})
	h.create()
	h.open()
	h.page.Registry.Fault(p, h.js.throw("x"))
	kids := h.children()
	f := h.host.Fault()
	for _, err := range []error{h.render(),
		func() error { _, e := h.host.UpdateContent(Num(0), false); return e }(),
		func() error { _, e := h.host.JumpToMessage(Num(0)); return e }(),
		h.host.RefreshLayout(), h.host.ScrollToEnd()} {
		if e := wantErr(t, err, apierr.PlainError, "ChatSurface epoch is faulted"); e.Cause != f {
			t.Fatal("cause")
		}
	}
	wantLog(t, h.children(), kids...)
	if h.host.Snapshot().State != StateFaulted || len(h.js.faults) != 1 || len(h.sch.frames) != 0 {
		t.Fatal("faulted, onFault once, frames cancelled")
	}
}

// C107 S69: reset after a non-participant fault clears everything.
func TestC107_S69_ResetBounded(t *testing.T) {
	h := managedHarness(t, 100)
	h.dom.root.style["overflow-anchor"] = "auto"
	h.create()
	h.open()
	h.dom.Remove(h.host.MessageElement(99))
	h.host.OnMutation()
	if h.host.Fault() == nil {
		t.Fatal("expected a fault")
	}
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	if len(h.dom.Children(h.dom.root.id)) != 0 || h.host.Fault() != nil || h.host.Snapshot().State != StateInactive {
		t.Fatal(h.children())
	}
	if _, ok := h.dom.Attr(h.dom.root.id, "data-tt-chat-surface"); ok || h.dom.root.style["overflow-anchor"] != "auto" {
		t.Fatal("bounded attributes must go and overflow-anchor be restored")
	}
	h.mustRender()
	if h.host.Snapshot().State != StateSettled {
		t.Fatal("render opens a fresh epoch")
	}
}

// C92: open twice → cannot open from state settled, no fault.
func TestC92_OpenTwice(t *testing.T) {
	h := managedHarness(t, 2)
	h.create()
	h.open()
	wantErr(t, h.host.Open(), apierr.PlainError, "Bounded ChatSurface cannot open from state settled")
	if h.host.Fault() != nil {
		t.Fatal("no fault")
	}
}

// C24 S12: an empty open leaves registration open.
func TestC24_S12_EmptyOpenKeepsRegistryOpen(t *testing.T) {
	h := managedHarness(t, 0)
	h.create()
	h.open()
	if h.host.Snapshot().State != StateSettled {
		t.Fatal("empty chat ends settled")
	}
	h.participant("late", hooks{mount: nop})
	h.js.push("m0")
	h.mustRender()
	wantLog(t, h.log, "late.mount:0")
	if !h.page.Registry.Frozen() {
		t.Fatal("a non-empty projection freezes")
	}
}

// C86 S62: a size change above the viewport keeps the first visible message's offset.
func TestC86_S62_AnchorOnResize(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.jump(495)
	h.scrollTo(h.host.b.layout.Start(495)) // the user's: the jump target is let go
	top := h.dom.Rect(h.host.MessageElement(495)).Top
	s0 := h.dom.scroll
	h.dom.n(h.host.MessageElement(494)).size += 50
	h.host.OnResize([]Node{h.host.MessageElement(494)})
	h.sch.frame()
	if h.dom.scroll != s0+50 || h.dom.Rect(h.host.MessageElement(495)).Top != top {
		t.Fatalf("scroll %v → %v", s0, h.dom.scroll)
	}
	// following: the tail grows, scrollTop = total − H
	if err := h.host.ScrollToEnd(); err != nil {
		t.Fatal(err)
	}
	h.dom.n(h.host.MessageElement(999)).size += 300
	h.host.OnResize([]Node{h.host.MessageElement(999)})
	h.sch.frame()
	if h.dom.scroll != h.host.b.layout.MaxScroll() || h.dom.scroll != h.dom.scrollHeight()-1000 {
		t.Fatal(h.dom.scroll)
	}
}

// C97 S63: refreshLayout during a gesture runs exactly once after it ends.
func TestC97_S63_RefreshDuringGesture(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.scrollTo(50000)
	h.dom.SetScrollTop(0, 50010)
	h.host.OnScroll()
	_ = h.host.RefreshLayout()
	_ = h.host.RefreshLayout()
	h.sch.frame()
	if !h.host.b.refresh || h.host.b.refreshRuns != 0 {
		t.Fatal("the refresh must wait for the gesture")
	}
	a, _ := h.host.b.layout.Visible(h.dom.scroll)
	root := h.host.MessageElement(a)
	off := h.dom.Rect(root).Top
	h.sch.fireTimers()
	h.sch.flush()
	if h.host.b.refreshRuns != 1 || h.host.Snapshot().State != StateSettled {
		t.Fatal("exactly one refresh must run", h.host.b.refreshRuns)
	}
	if r := h.host.MessageElement(a); h.dom.Rect(r).Top != off {
		t.Fatalf("anchor moved: %v → %v", off, h.dom.Rect(r).Top)
	}
}

// S93-lite / C145: gestures from bottom to top keep the limits.
func TestC145_GestureSweep(t *testing.T) {
	h := managedHarness(t, 3000)
	h.create()
	h.open()
	for s := h.dom.scroll; s > 0; s -= 7919 {
		h.scrollTo(s)
		h.invariant()
	}
	h.scrollTo(0)
	if h.mounted()[0] != 0 {
		t.Fatal(h.mounted())
	}
}

// C89 as changed: during a gesture a root wholly above the view that grows
// moves S by the growth at once (SillyTavern appends a message's image
// ~200 ms after it mounts); roots the view starts in or shows do not, a
// root that shrank waits for the gesture's end, and the gesture's end puts
// the content where the user saw it.
func TestC89_CompensatedAboveDuringGesture(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.jump(495)
	h.dom.SetScrollTop(0, h.host.b.layout.Start(495)+10)
	h.host.OnScroll() // a gesture begins
	if h.host.Snapshot().State != StateGestureScrolling {
		t.Fatal("a gesture must begin")
	}
	el := func(i int) Node { return h.host.MessageElement(i) }
	top := h.dom.Rect(el(495)).Top
	s0 := h.dom.scroll
	h.dom.n(el(494)).size += 360
	h.dom.n(el(493)).size += 40
	h.host.OnResize([]Node{el(494), el(493)})
	if h.dom.scroll != s0+400 || h.dom.Rect(el(495)).Top != top {
		t.Fatalf("above the view: scroll %v → %v, top %v → %v", s0, h.dom.scroll, top, h.dom.Rect(el(495)).Top)
	}
	h.dom.n(el(494)).size -= 60 // shrinks: left to the gesture's end
	h.host.OnResize([]Node{el(494)})
	if h.dom.scroll != s0+400 {
		t.Fatalf("shrunk: scroll %v", h.dom.scroll)
	}
	h.dom.n(el(495)).size += 100 // the view starts in it: content below moves
	h.dom.n(el(497)).size += 100
	h.host.OnResize([]Node{el(495), el(497)})
	if h.dom.scroll != s0+400 {
		t.Fatalf("a root the view starts in or shows must not move S: %v", h.dom.scroll)
	}
	// A frame during the gesture: the view now reaches past the mounted
	// window, so it commits (C89 as changed), and that commit, measuring
	// the shrunk root, puts the content back where the user saw it.
	h.sch.frame()
	if h.host.Snapshot().State != StateGestureScrolling || h.dom.Rect(el(495)).Top != top {
		t.Fatalf("the gesture lasts: %s, top %v → %v", h.host.Snapshot().State, top, h.dom.Rect(el(495)).Top)
	}
	h.sch.fireTimers()
	h.sch.flush()
	if h.host.Snapshot().State != StateSettled || h.dom.scroll != s0+340 || h.dom.Rect(el(495)).Top != top {
		t.Fatalf("the gesture's end keeps the view: scroll %v → %v, top %v → %v", s0, h.dom.scroll, top, h.dom.Rect(el(495)).Top)
	}
	for _, i := range []int{493, 494, 495, 497} {
		if got, want := h.host.b.layout.Size(i), h.dom.n(el(i)).size; got != want {
			t.Fatalf("%d: layout %v, measured %v", i, got, want)
		}
	}
	// Settled: the growth is compensated in the notification too, not a
	// frame later by the geometry commit (which then moves nothing).
	s1 := h.dom.scroll
	h.dom.n(el(494)).size += 200
	h.host.OnResize([]Node{el(494)})
	if h.dom.scroll != s1+200 || h.dom.Rect(el(495)).Top != top {
		t.Fatalf("settled: scroll %v → %v", s1, h.dom.scroll)
	}
	h.sch.flush()
	if h.dom.scroll != s1+200 || h.dom.Rect(el(495)).Top != top || h.host.Snapshot().State != StateSettled {
		t.Fatalf("settled, after the frame: scroll %v", h.dom.scroll)
	}
}

// C88 as changed, C85: a root's rect far from the viewport is a fraction of a
// pixel off (Chromium's single precision): a scrollbar drag from the tail to
// the top of a long chat is a gesture, not content resizing under a
// following view, and is not undone.
func TestC88_FarScrollFromTheTailIsAGesture(t *testing.T) {
	h := openedHarness(t, 10000)
	h.dom.farNoise = 0.25
	end := h.dom.scroll
	h.dom.SetScrollTop(0, 1000)
	h.host.OnScroll()
	if s := h.host.Snapshot(); s.State != StateGestureScrolling {
		t.Fatalf("a far drag up is a gesture: %s", s.State)
	}
	h.sch.fireTimers()
	h.sch.flush()
	if h.dom.scroll > 2000 || h.host.Snapshot().FollowingTail || h.dom.scroll == end {
		t.Fatalf("the view stays where the user put it: %v (end %v)", h.dom.scroll, end)
	}
}

// C80, C86, C87: the surface root's own height changing (a window resized, a
// composer below the chat growing) re-lays out at the next frame: a
// following view stays at the end, a taller one mounts what it now shows.
func TestC80_RootResizeRelaysOut(t *testing.T) {
	h := openedHarness(t, 1000)
	h.dom.height = 600 // shorter: the end is further down
	h.dom.SetScrollTop(0, h.dom.scroll)
	h.host.OnResize([]Node{h.dom.root.id})
	h.sch.flush()
	if h.dom.scroll != h.dom.scrollHeight()-600 || !h.host.Snapshot().FollowingTail {
		t.Fatalf("following: scroll %v, end %v", h.dom.scroll, h.dom.scrollHeight()-600)
	}
	h.jump(500)
	before := h.host.Snapshot().Viewport
	h.dom.height = 3000 // taller: more messages in view
	h.host.OnResize([]Node{h.dom.root.id})
	h.sch.flush()
	after := h.host.Snapshot().Viewport
	if len(after) <= len(before) || after[len(after)-1] <= before[len(before)-1] {
		t.Fatalf("a taller view shows more: %v → %v", before, after)
	}
	h.invariant()
}

// C86 as changed: a jump target stays where the jump put it until the user
// scrolls, however long its neighbours take to grow (pictures that load
// late): a root before it that grows, on screen or above it, moves S by the
// growth in the notification's frame.
func TestC86_JumpTargetStaysUntilTheUserScrolls(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.jump(500)
	el := func(i int) Node { return h.host.MessageElement(i) }
	top := h.dom.Rect(el(500)).Top
	for round, i := range []int{499, 498, 499} { // on screen above the target, then again later
		h.sch.flush() // the content long settled
		s := h.dom.scroll
		h.dom.n(el(i)).size += 300
		h.host.OnResize([]Node{el(i)})
		if h.dom.Rect(el(500)).Top != top || h.dom.scroll != s+300 {
			t.Fatalf("round %d: the target moved %v → %v", round, top, h.dom.Rect(el(500)).Top)
		}
		h.sch.flush()
		if h.dom.Rect(el(500)).Top != top {
			t.Fatalf("round %d, after the frame: the target moved %v → %v", round, top, h.dom.Rect(el(500)).Top)
		}
	}
	h.scrollTo(h.dom.scroll - 50) // the user's scroll lets it go
	if h.host.b.pin.ok {
		t.Fatal("a gesture releases the jump target")
	}
}

// C89 as changed: a touchpad or a dragged scrollbar moves further than the
// mounted window between notifications, without the gesture ending; each
// frame whose view would show a spacer commits, with demand suspended, so
// the view is never left blank while the gesture lasts.
func TestC89_GestureFramesKeepTheViewFilled(t *testing.T) {
	h := openedHarness(t, 10000)
	for i := 0; i < 25; i++ {
		h.dom.SetScrollTop(0, h.dom.scroll-3000)
		h.host.OnScroll()
		// Estimates (200 px) meet measured sizes (100 px): a frame or two
		// more until the measured window covers the view.
		for k := 0; k < 3; k++ {
			h.sch.frame()
		}
		s := h.host.Snapshot()
		if s.State != StateGestureScrolling || !s.Runtime.Suspended {
			t.Fatalf("step %d: %s, suspended %v", i, s.State, s.Runtime.Suspended)
		}
		if !h.host.b.covers(h.dom.scroll) {
			t.Fatalf("step %d: the view at %v shows a spacer; mounted %v", i, h.dom.scroll, s.Mounted)
		}
		h.invariant()
	}
	h.sch.fireTimers()
	h.sch.flush()
	if s := h.host.Snapshot(); s.State != StateSettled || s.FollowingTail || s.Runtime.Suspended {
		t.Fatalf("the gesture ends: %+v", s)
	}
}

// C88 as changed, C96: while the projection is held (an editor open on the
// last message) a size change under the following view waits for the end
// of the hold; a scroll up meanwhile is the user's gesture, not layout, and
// releasing the hold keeps where the user went.
func TestC88_HeldResizeDoesNotSwallowScrolls(t *testing.T) {
	h := openedHarness(t, 1000)
	_ = h.host.SetProjectionHeld(true)
	h.dom.n(h.host.MessageElement(999)).size += 120 // the editor's textarea grows
	h.host.OnResize([]Node{h.host.MessageElement(999)})
	h.sch.flush()
	h.dom.SetScrollTop(0, h.dom.scroll-1500)
	h.host.OnScroll()
	if s := h.host.Snapshot(); s.State != StateGestureScrolling {
		t.Fatalf("a scroll up while held is a gesture: %s", s.State)
	}
	h.sch.fireTimers()
	h.sch.flush()
	at := h.dom.scroll
	_ = h.host.SetProjectionHeld(false)
	h.sch.flush()
	if s := h.host.Snapshot(); s.FollowingTail || math.Abs(h.dom.scroll-at) > 200 || h.dom.scroll >= h.dom.scrollHeight()-h.dom.height-100 {
		t.Fatalf("released: following %v, scroll %v (was %v, end %v)", s.FollowingTail, h.dom.scroll, at, h.dom.scrollHeight()-h.dom.height)
	}
}

// C85, C28: a root notified resized, then its message deleted (or one above
// it) before the geometry frame: the structural render rebuilt the layout
// for the shorter chat while the root was still mounted at its old mesid,
// and its size was written there, past the layout's end (an index-out-of-
// range panic, found deleting SillyTavern's last message just after its
// code block was highlighted). The size goes where the message is now.
func TestC85_ResizedRootThenDeleted(t *testing.T) {
	h := openedHarness(t, 300)
	el := h.host.MessageElement
	// The tail grows and is deleted before the geometry frame.
	h.dom.n(el(299)).size += 40
	h.host.OnResize([]Node{el(299)})
	h.js.chat = h.js.chat[:299]
	h.mustRender()
	h.sch.flush()
	if f := h.host.Fault(); f != nil {
		t.Fatal(f)
	}
	if got := h.mounted(); got[len(got)-1] != 298 || h.host.b.layout.Len() != 299 {
		t.Fatal(got, h.host.b.layout.Len())
	}
	// A mounted message grows and the one before it is deleted before the
	// geometry frame (a shifted message is remounted, C28): no fault, and
	// the layout holds what the mounted roots measure.
	h.dom.n(el(297)).size += 60
	h.host.OnResize([]Node{el(297)})
	h.js.chat = append(h.js.chat[:296:296], h.js.chat[297:]...)
	h.mustRender()
	h.sch.flush()
	if f := h.host.Fault(); f != nil || h.host.b.layout.Len() != 298 {
		t.Fatal(f, h.host.b.layout.Len())
	}
	for _, m := range h.mounted() {
		if got, want := h.host.b.layout.Size(m), h.dom.n(el(m)).size; got != want {
			t.Fatalf("mesid %d: layout %v, root %v", m, got, want)
		}
	}
}
