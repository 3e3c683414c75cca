package chatsurface

import (
	"slices"
	"strconv"
	"testing"

	"tavern-core/apierr"
)

func (d *fakeDOM) findTag(n Node, tag string) Node {
	var walk func(x *fnode) Node
	walk = func(x *fnode) Node {
		for _, k := range x.kids {
			if k.tag == tag {
				return k.id
			}
			if f := walk(k); f != 0 {
				return f
			}
		}
		return 0
	}
	return walk(d.n(n))
}

func staticHarness(t *testing.T, msgs ...string) *harness {
	h := newHarness(t, false)
	h.js.push(msgs...)
	return h
}

func (h *harness) render() error { return h.host.Render(RenderOptions{}) }

func (h *harness) mustRender() {
	h.t.Helper()
	if err := h.render(); err != nil {
		h.t.Fatal(err)
	}
}

// disposerLog returns a hook that logs "<tag>:<reason>" from its disposer.
func (h *harness) disposerLog(tag string) hookFn {
	return func(c call) (Return, *JSValue) {
		sig := c.signal
		return h.js.disposer(func() {
			s := h.js.sigs[sig]
			if !s.aborted {
				h.t.Errorf("%s: signal not aborted before the disposer", tag)
			}
			h.log = append(h.log, tag+":"+s.reason)
		}), nil
	}
}

// claimPre returns a prepareContent hook that claims the content's <pre> with
// an activate that logs and returns a disposer logging its revoke reason.
func (h *harness) claimPre(pid string) hookFn {
	act := h.js.fn(func(c call) (Return, *JSValue) {
		h.log = append(h.log, pid+".activate:"+strconv.Itoa(c.mesid))
		sig := c.signal
		return h.js.disposer(func() { h.log = append(h.log, pid+":runtime:"+h.js.sigs[sig].reason) }), nil
	})
	return func(c call) (Return, *JSValue) {
		if pre := h.dom.findTag(c.content, "pre"); pre != 0 {
			if err := h.host.Claim(c.claims, pre, act); err != nil {
				h.t.Fatal(err)
			}
		}
		return Return{}, nil
	}
}

// C44 S23: participant-major hook order.
func TestC44_S23_HookOrder(t *testing.T) {
	h := staticHarness(t, "m0", "m1")
	h.participant("A", hooks{nop, nop, nop})
	h.participant("B", hooks{nop, nop, nop})
	h.create()
	h.mustRender()
	wantLog(t, h.log, "A.prepare:0", "A.prepare:1", "B.prepare:0", "B.prepare:1",
		"A.mount:0", "A.mount:1", "B.mount:0", "B.mount:1",
		"A.content:0", "A.content:1", "B.content:0", "B.content:1")
}

// C47, C48 S24: runtimes, then content disposers (reverse participant order),
// then mount disposers; every signal aborted first.
func TestC47_S24_UnmountOrder(t *testing.T) {
	h := staticHarness(t, "<pre>x</pre>")
	h.participant("A", hooks{prepare: h.claimPre("A"), mount: h.disposerLog("A:mount"), content: h.disposerLog("A:content")})
	h.participant("B", hooks{mount: h.disposerLog("B:mount"), content: h.disposerLog("B:content")})
	h.create()
	h.mustRender()
	wantLog(t, h.log, "A.prepare:0", "A.mount:0", "B.mount:0", "A.content:0", "B.content:0", "A.activate:0")
	h.log = nil
	h.js.chat = h.js.chat[:0]
	h.mustRender()
	wantLog(t, h.log, "A:runtime:content-released", "B:content:projection-unmount", "A:content:projection-unmount",
		"B:mount:projection-unmount", "A:mount:projection-unmount")
	if len(h.dom.Children(h.dom.root.id)) != 0 {
		t.Fatal("root not removed")
	}
}

// C22 S13: a fault before the freeze is thrown by the first non-empty projection.
func TestC22_S13_FaultBeforeFreeze(t *testing.T) {
	h := staticHarness(t, "m0", "m1")
	a := h.participant("a", hooks{mount: nop})
	h.create()
	boom := h.js.throw("boom")
	h.page.Registry.Fault(a, boom)
	err := h.render()
	e := wantErr(t, err, apierr.PlainError, "ChatSurface participant a is faulted")
	if e.Cause.(*JSValue).Ref != boom.ErrorRef || h.js.vals[boom.ErrorRef] != "Error(boom)" {
		t.Fatal("cause must be the error value of 'boom'")
	}
	if h.host.Fault() != error(e) || len(h.mounted()) != 0 || h.js.mat != 0 {
		t.Fatal("must fault with the same object and mount nothing")
	}
}

// C23, C108 S14: a fault after the freeze faults now; resets rethrow it forever.
func TestC23_S14_FaultAfterFreeze(t *testing.T) {
	h := staticHarness(t, "m0")
	a := h.participant("a", hooks{mount: nop})
	b := h.participant("b", hooks{mount: nop})
	h.create()
	h.mustRender()
	e := h.js.throw(errTest("E"))
	h.page.Registry.Fault(a, e)
	f, ok := h.host.Fault().(*Error)
	if !ok || f.Message != "ChatSurface participant a is faulted" || f.Cause.(*JSValue).Ref != e.Ref {
		t.Fatalf("fault %v", h.host.Fault())
	}
	h.page.Registry.Fault(b, h.js.throw("x"))
	if h.host.Fault() != error(f) || len(h.js.faults) != 1 {
		t.Fatal("first fault wins, onFault once")
	}
	for i := 0; i < 2; i++ {
		if err := h.host.ResetEpoch(); err != error(f) {
			t.Fatalf("reset %d: %v", i, err)
		}
		if len(h.mounted()) != 1 || h.host.Fault() == nil {
			t.Fatal("DOM must stay and the fault must remain")
		}
	}
}

// C23 with C22: the participant fault is permanent for the page, so a host
// created after the faulted one was disposed meets it at its first
// non-empty projection, which faults that epoch and mounts nothing.
func TestC23_FaultMeetsTheNextHost(t *testing.T) {
	h := staticHarness(t, "m0")
	a := h.participant("a", hooks{mount: nop})
	h.create()
	h.mustRender()
	h.page.Registry.Fault(a, h.js.throw(errTest("E")))
	f := h.host.Fault()
	if err := h.host.Dispose(); err != f {
		t.Fatalf("dispose: %v", err)
	}
	mat := h.js.mat
	h.create()
	if err := h.render(); err != f || h.host.Fault() != f || h.js.mat != mat {
		t.Fatalf("the next host: %v, fault %v, %d materialized", err, h.host.Fault(), h.js.mat-mat)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

// C38, C34 S15.
func TestC38_S15_PrepareContentReturn(t *testing.T) {
	for _, c := range []struct {
		kind  Kind
		class apierr.Class
		msg   string
	}{
		{KindOther, apierr.TypeError, "ChatSurface participant p.prepareContent must not return a value"},
		{KindThenable, apierr.TypeError, "ChatSurface participant p.prepareContent must be synchronous"},
	} {
		h := staticHarness(t, "m0")
		h.participant("p", hooks{prepare: func(call) (Return, *JSValue) { return Return{Kind: c.kind}, nil }, mount: h.disposerLog("mount")})
		h.create()
		err := h.render()
		wantErr(t, err, c.class, c.msg)
		if h.host.Fault() != err || len(h.dom.Children(h.dom.root.id)) != 0 {
			t.Fatal("must fault and mount nothing")
		}
		wantLog(t, h.log, "p.prepare:0")
		// No hook saw the new root's leases, so their signals were never
		// made (Lease.Signal); any that were closed with the reason.
		for _, s := range h.js.sigs {
			if !s.aborted || s.reason != "mount-preparation-failed" {
				t.Fatal("the new root's leases must close with mount-preparation-failed")
			}
		}
	}
}

// C36 S16: a claim after the hook returned throws but does not fault.
func TestC36_S16_LateClaim(t *testing.T) {
	h := staticHarness(t, "<pre>x</pre>")
	var kept ClaimsID
	var content Node
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) { kept, content = c.claims, c.content; return Return{}, nil }})
	h.create()
	h.mustRender()
	pre := h.dom.findTag(content, "pre")
	wantErr(t, h.host.Claim(kept, pre, h.js.fn(nop)), apierr.PlainError, "ChatSurface participant p claimed a runtime after prepareContent returned")
	if h.host.Fault() != nil {
		t.Fatal("a late claim must not fault")
	}
}

// C37 S17, S18: claim argument checks and duplicates.
func TestC37_S17_S18_ClaimChecks(t *testing.T) {
	type tc struct {
		name  string
		claim func(h *harness, c call) error
		class apierr.Class
		msg   string
	}
	act := func(h *harness) Ref { return h.js.fn(nop) }
	cases := []tc{
		{"content itself", func(h *harness, c call) error { return h.host.Claim(c.claims, c.content, act(h)) }, apierr.PlainError, "ChatSurface participant p must claim a descendant of message content"},
		{"text node", func(h *harness, c call) error {
			return h.host.Claim(c.claims, h.dom.n(h.dom.findTag(c.content, "pre")).kids[0].id, act(h))
		}, apierr.PlainError, "ChatSurface participant p must claim a descendant of message content"},
		{"outside", func(h *harness, c call) error { return h.host.Claim(c.claims, h.dom.doc.id, act(h)) }, apierr.PlainError, "ChatSurface participant p must claim a descendant of message content"},
		{"not a node", func(h *harness, c call) error { return h.host.Claim(c.claims, 0, act(h)) }, apierr.PlainError, "ChatSurface participant p must claim a descendant of message content"},
		{"activate", func(h *harness, c call) error { return h.host.Claim(c.claims, h.dom.findTag(c.content, "pre"), 0) }, apierr.TypeError, "ChatSurface participant p runtime activate must be a function"},
		{"twice", func(h *harness, c call) error {
			pre := h.dom.findTag(c.content, "pre")
			if err := h.host.Claim(c.claims, pre, act(h)); err != nil {
				return err
			}
			return h.host.Claim(c.claims, pre, act(h))
		}, apierr.PlainError, "ChatSurface runtime source was claimed by both p and p"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := staticHarness(t, "<pre>x</pre>")
			h.participant("p", hooks{prepare: func(cl call) (Return, *JSValue) {
				if err := c.claim(h, cl); err != nil {
					return Return{}, h.js.throw(err)
				}
				return Return{}, nil
			}})
			h.create()
			err := h.render()
			v, ok := err.(*JSValue)
			if !ok {
				t.Fatalf("got %v", err)
			}
			wantErr(t, h.js.vals[v.Ref].(error), c.class, c.msg)
			if h.host.Fault() == nil || len(h.mounted()) != 0 {
				t.Fatal("must fault, nothing mounted")
			}
		})
	}
	// first then second
	h := staticHarness(t, "<pre>x</pre>")
	var got error
	for _, id := range []string{"first", "second"} {
		h.participant(id, hooks{prepare: func(c call) (Return, *JSValue) {
			act := h.js.fn(func(call) (Return, *JSValue) { return h.js.disposer(func() {}), nil })
			if err := h.host.Claim(c.claims, h.dom.findTag(c.content, "pre"), act); err != nil {
				got = err
			}
			return Return{}, nil
		}})
	}
	h.create()
	h.mustRender()
	wantErr(t, got, apierr.PlainError, "ChatSurface runtime source was claimed by both first and second")
}

// C40 S19: detached content ownership and claimed sources.
func TestC40_S19_DetachedIntegrity(t *testing.T) {
	h := staticHarness(t, "m0")
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		h.dom.appendChild(h.dom.doc, h.dom.n(c.content))
		return Return{}, nil
	}})
	h.create()
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface participant changed detached content ownership")
	if len(h.dom.Children(h.dom.root.id)) != 0 {
		t.Fatal("no .mes may be committed")
	}
	h = staticHarness(t, "<pre>x</pre>")
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		pre := h.dom.findTag(c.content, "pre")
		_ = h.host.Claim(c.claims, pre, h.js.fn(nop))
		h.dom.detach(h.dom.n(pre))
		return Return{}, nil
	}})
	h.create()
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface runtime source changed during preparation: p")
}

// C43 S20: didMount return values.
func TestC43_S20_ConnectedReturns(t *testing.T) {
	for _, c := range []struct {
		kind  Kind
		class apierr.Class
		msg   string
	}{
		{KindOther, apierr.TypeError, "ChatSurface participant n.didMount must return a cleanup function, disposable object, or nothing"},
		{KindThenable, apierr.TypeError, "ChatSurface participant n.didMount must return synchronously"},
	} {
		h := staticHarness(t, "m0")
		h.participant("n", hooks{mount: func(call) (Return, *JSValue) { return Return{Kind: c.kind}, nil }})
		h.create()
		err := h.render()
		wantErr(t, err, c.class, c.msg)
		if h.host.Fault() != err || len(h.mounted()) != 1 {
			t.Fatal("phase 9 failure: faults, DOM stays committed")
		}
	}
}

// C46, C108 S22: an async disposer fails the reset; the others still run.
func TestC46_S22_AsyncDisposerFailsReset(t *testing.T) {
	h := staticHarness(t, "m0")
	h.participant("n", hooks{mount: func(call) (Return, *JSValue) {
		return h.js.disposerRet(func() (Return, *JSValue) { return Return{Kind: KindThenable}, nil }), nil
	}})
	h.participant("o", hooks{mount: h.disposerLog("o")})
	h.create()
	h.mustRender()
	err := h.host.ResetEpoch()
	wantErr(t, err, apierr.TypeError, "ChatSurface cleanup must be synchronous")
	wantLog(t, h.log, "n.mount:0", "o.mount:0", "o:epoch-reset")
	if h.host.Fault() != err || len(h.dom.Children(h.dom.root.id)) != 1 {
		t.Fatal("faulted, DOM untouched")
	}
	if h.host.ResetEpoch() != err {
		t.Fatal("second reset rethrows the same failure")
	}
}

// C43, C107 S25: a throwing didMount propagates by identity; reset recovers.
func TestC43_S25_ThrowingDidMount(t *testing.T) {
	h := staticHarness(t, "m0")
	e := h.js.throw(errTest("E"))
	h.participant("n", hooks{mount: func(call) (Return, *JSValue) { return Return{}, e }})
	h.create()
	if err := h.render(); err != e {
		t.Fatalf("got %v", err)
	}
	if f := h.host.Fault().(*JSValue); f.Ref != e.Ref {
		t.Fatal("fault must be E itself")
	}
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface epoch is faulted")
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	if len(h.dom.Children(h.dom.root.id)) != 0 || h.host.Fault() != nil || h.host.Snapshot().State != StateInactive {
		t.Fatal("reset must clear")
	}
}

// C109 S27: a disposer that re-enters render faults with the reentry error.
func TestC109_S27_Reentry(t *testing.T) {
	h := staticHarness(t, "zero", "one")
	h.participant("p", hooks{mount: func(c call) (Return, *JSValue) {
		if c.mesid != 0 {
			return Return{}, nil
		}
		return h.js.disposerRet(func() (Return, *JSValue) {
			if err := h.render(); err != nil {
				return Return{}, h.js.throw(err)
			}
			return Return{}, nil
		}), nil
	}})
	h.create()
	h.mustRender()
	h.js.chat = h.js.chat[1:]
	err := h.render()
	v, ok := err.(*JSValue)
	if !ok {
		t.Fatalf("got %v", err)
	}
	inner := wantErr(t, h.js.vals[v.Ref].(error), apierr.PlainError, "ChatSurface mutation render reentered during render")
	if h.host.Fault() != error(inner) {
		t.Fatal("the reentry error is the fault")
	}
}

// C39 S28: registration.fault inside a hook stops the operation.
func TestC39_S28_FaultInsideHook(t *testing.T) {
	h := staticHarness(t, "m0")
	var p int
	x := h.js.throw("x")
	p = h.participant("p", hooks{mount: func(call) (Return, *JSValue) { h.page.Registry.Fault(p, x); return Return{}, nil }})
	h.create()
	e := wantErr(t, h.render(), apierr.PlainError, "ChatSurface epoch is faulted")
	wantErr(t, e.Cause, apierr.PlainError, "ChatSurface participant p is faulted")
}

// C25, C4 S30.
func TestC25_S30_StructuralPass(t *testing.T) {
	h := staticHarness(t, "m")
	h.js.chat = append(h.js.chat, h.js.chat[0])
	h.create()
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface messages must not contain the same object more than once")
	if h.host.Fault() == nil {
		t.Fatal("must fault")
	}
	h = staticHarness(t, "m")
	h.js.chat = append(h.js.chat, nil)
	h.create()
	wantErr(t, h.render(), apierr.TypeError, "ChatSurface message at index 1 must be an object")
}

// C28 S31: a mesid shift is a cold remount.
func TestC28_S31_ShiftRemounts(t *testing.T) {
	h := staticHarness(t, "zero", "one")
	h.participant("p", hooks{mount: h.disposerLog("mount")})
	h.create()
	h.mustRender()
	old := h.host.MessageElement(1)
	h.log = nil
	h.js.chat = h.js.chat[1:]
	h.mustRender()
	root := h.host.MessageElement(0)
	if root == old || h.dom.textOf(root) != "one" || !slices.Equal(h.mounted(), ints(0)) {
		t.Fatal("must be a new root with text one")
	}
	wantLog(t, h.log, "mount:projection-unmount", "mount:projection-unmount", "p.mount:0")
	if v, _ := h.dom.Attr(root, "mesid"); v != "0" || !h.dom.matches(h.dom.n(root), SelMes) {
		t.Fatal("mesid attribute")
	}
}

// C29 S33: nothing changed → no materialise, no hooks, identical children.
func TestC29_S33_FastPath(t *testing.T) {
	h := staticHarness(t, "a", "b")
	h.participant("p", hooks{nop, nop, nop})
	h.create()
	h.mustRender()
	before := h.dom.Children(h.dom.root.id)
	h.log, h.dom.log, h.js.mat = nil, nil, 0
	h.mustRender()
	if h.js.mat != 0 || len(h.log) != 0 || len(h.dom.log) != 0 {
		t.Fatalf("fast path did work: %v %v", h.log, h.dom.log)
	}
	if !slices.Equal(nodesInts(before), nodesInts(h.dom.Children(h.dom.root.id))) {
		t.Fatal("children changed")
	}
}

// C29, C31: the fast path's last_mes sync. Foreign code moved the class;
// the next commit, a fast one, puts it back on the tail only, and writes
// nothing on a root whose values are already right.
func TestC29_C31_FastPathSyncsLastMes(t *testing.T) {
	h := staticHarness(t, "a", "b", "c")
	h.participant("p", hooks{nop, nop, nop})
	h.create()
	h.mustRender()
	r0, r2 := h.host.MessageElement(0), h.host.MessageElement(2)
	h.dom.SetClass(r2, "last_mes", false)
	h.dom.SetClass(r0, "last_mes", true)
	h.log, h.dom.log, h.js.mat = nil, nil, 0
	mut := h.dom.mut
	h.mustRender()
	if h.js.mat != 0 || len(h.log) != 0 || len(h.dom.log) != 0 {
		t.Fatalf("fast path did work: %v %v", h.log, h.dom.log)
	}
	if !h.dom.matches(h.dom.n(r2), SelMes) || !slices.Contains(h.dom.n(r2).classes, "last_mes") ||
		slices.Contains(h.dom.n(r0).classes, "last_mes") || slices.Contains(h.dom.n(h.host.MessageElement(1)).classes, "last_mes") {
		t.Fatal("last_mes must be on the tail only")
	}
	if h.dom.mut != mut+2 {
		t.Fatalf("two class writes expected, %d made", h.dom.mut-mut)
	}
	mut = h.dom.mut
	h.mustRender()
	if h.dom.mut != mut {
		t.Fatal("a commit over roots already right must write nothing")
	}
}

func nodesInts(ns []Node) []int {
	out := make([]int, len(ns))
	for i, n := range ns {
		out[i] = int(n)
	}
	return out
}

// C100 S35, C28 S32: static ranges; retained roots keep identity.
func TestC100_S35_StaticFirst(t *testing.T) {
	h := staticHarness(t, "0", "1", "2", "3", "4")
	h.participant("p", hooks{mount: h.disposerLog("mount")})
	h.create()
	if err := h.host.Render(RenderOptions{First: Num(2)}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.mounted(), ints(2, 3, 4)) || len(h.host.Snapshot().Ranges) != 1 {
		t.Fatal(h.mounted())
	}
	r2 := h.host.MessageElement(2)
	if err := h.host.Render(RenderOptions{First: Num(0)}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.mounted(), ints(0, 1, 2, 3, 4)) || h.host.MessageElement(2) != r2 {
		t.Fatal("2–4 must be retained")
	}
	var order []string
	for _, c := range h.dom.Children(h.dom.root.id) {
		v, _ := h.dom.Attr(c, "mesid")
		order = append(order, v)
	}
	wantLog(t, order, "0", "1", "2", "3", "4")
	wantErr(t, h.host.Render(RenderOptions{First: Num(6)}), apierr.RangeError, "ChatSurface static range start 6 is outside [0, 5]")
	wantErr(t, h.host.Render(RenderOptions{First: Num(1.5)}), apierr.RangeError, "ChatSurface static range start 1.5 is outside [0, 5]")
	if h.host.Fault() != nil {
		t.Fatal("C100: argument errors do not fault")
	}
	// replace: cold remount of 3 only
	h.log = nil
	r3 := h.host.MessageElement(3)
	if err := h.host.Render(RenderOptions{Replace: []int{3}}); err != nil {
		t.Fatal(err)
	}
	if h.host.MessageElement(3) == r3 || h.host.MessageElement(2) != r2 {
		t.Fatal("replace must remount only 3")
	}
	wantLog(t, h.log, "mount:projection-unmount", "p.mount:3")
	if h.host.Snapshot().State != StateStatic {
		t.Fatal(h.host.Snapshot().State)
	}
}

// C51, C66 S34, S37: updateContent keeps root and mount lease, releases the
// runtime (content-released) and decorators (content-update), re-runs hooks.
func TestC51_S37_UpdateContent(t *testing.T) {
	h := staticHarness(t, "m0", "<pre>x</pre>")
	var mountSig Signal
	h.participant("A", hooks{prepare: h.claimPre("A"), mount: func(c call) (Return, *JSValue) {
		if c.mesid == 1 {
			mountSig = c.signal
		}
		return Return{}, nil
	}, content: h.disposerLog("A:content")})
	h.create()
	h.mustRender()
	root, content := h.host.MessageElement(1), h.dom.QueryFirst(h.host.MessageElement(1), SelMesText)
	h.log = nil
	h.js.chat[1].mes = "<pre>edited</pre>"
	ok, err := h.host.UpdateContent(Num(1), false)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	wantLog(t, h.log, "A.prepare:1", "A:runtime:content-released", "A:content:content-update", "A.content:1", "A.activate:1")
	if h.host.MessageElement(1) != root || h.dom.QueryFirst(root, SelMesText) != content || h.js.sigs[mountSig].aborted {
		t.Fatal("root, .mes_text and mount lease must survive")
	}
	if h.dom.textOf(content) != "edited" {
		t.Fatal(h.dom.InnerHTML(content))
	}
	// S34: after a reset the same objects get all-new roots.
	if err := h.host.ResetEpoch(); err != nil {
		t.Fatal(err)
	}
	h.mustRender()
	if h.host.MessageElement(1) == root {
		t.Fatal("keys must not survive a reset")
	}
}

// C55, C57 S38: transient content runs no preparation; a later normal update does.
func TestC55_S38_Transient(t *testing.T) {
	h := staticHarness(t, "<pre>x</pre>")
	h.participant("A", hooks{prepare: h.claimPre("A"), content: h.disposerLog("A:content")})
	h.create()
	h.mustRender()
	h.log = nil
	h.js.chat[0].mes = "streaming"
	if _, err := h.host.UpdateContent(Num(0), true); err != nil {
		t.Fatal(err)
	}
	wantLog(t, h.log, "A:runtime:content-released", "A:content:content-update")
	if h.dom.textOf(h.host.MessageElement(0)) != "streaming" {
		t.Fatal("text")
	}
	h.log = nil
	h.js.chat[0].mes = "<pre>done</pre>"
	if _, err := h.host.UpdateContent(Num(0), false); err != nil {
		t.Fatal(err)
	}
	wantLog(t, h.log, "A.prepare:0", "A.content:0", "A.activate:0")
}

// C53, C52 S39.
func TestC53_S39_UpdateChecks(t *testing.T) {
	h := staticHarness(t, "m0", "m1", "m2")
	h.participant("p", hooks{content: nop})
	h.create()
	h.mustRender()
	h.log = nil
	if ok, err := h.host.UpdateContent(Num(7), false); ok || err != nil || len(h.log) != 0 {
		t.Fatal("unmounted: false, no hook")
	}
	wantErr(t, func() error { _, err := h.host.UpdateContent(Num(0.5), false); return err }(), apierr.TypeError, "ChatSurface updateContent requires an integer mesid")
	if h.host.Fault() != nil {
		t.Fatal("non-integer must not fault")
	}
	h.js.chat = append([]*fmsg{{id: 99, mes: "x"}}, h.js.chat...)
	_, err := h.host.UpdateContent(Num(1), false)
	wantErr(t, err, apierr.PlainError, "ChatSurface message 1 changed structure before content reconciliation")
	if h.host.Fault() != err {
		t.Fatal("must fault")
	}
}

// C54 S40: a failing prepareContent keeps the old content live.
func TestC54_S40_PrepareFailureKeepsContent(t *testing.T) {
	h := staticHarness(t, "m0")
	fail := false
	var sigs []Signal
	h.participant("p", hooks{prepare: func(c call) (Return, *JSValue) {
		if fail {
			return Return{}, h.js.throw(errTest("no"))
		}
		return Return{}, nil
	}, content: func(c call) (Return, *JSValue) { sigs = append(sigs, c.signal); return Return{}, nil }})
	h.create()
	h.mustRender()
	fail = true
	h.js.chat[0].mes = "new"
	if _, err := h.host.UpdateContent(Num(0), false); err == nil || h.host.Fault() == nil {
		t.Fatal("must fail and fault")
	}
	if h.dom.textOf(h.host.MessageElement(0)) != "m0" || h.js.sigs[sigs[0]].aborted {
		t.Fatal("old content must stay live")
	}
	for _, s := range h.js.sigs {
		if s.aborted && s.reason != "content-preparation-failed" {
			t.Fatal(s.reason)
		}
	}
}

// C67 S41: eager activation result classification.
func TestC67_S41_ActivationResults(t *testing.T) {
	for _, c := range []struct {
		ret   func(h *harness) (Return, *JSValue)
		class apierr.Class
		msg   string
	}{
		{func(*harness) (Return, *JSValue) { return Return{}, nil }, apierr.PlainError, "ChatSurface runtime p must return a disposable"},
		{func(h *harness) (Return, *JSValue) { return Return{}, h.js.throw("nope") }, apierr.PlainError, "ChatSurface runtime activation failed: p"},
		{func(*harness) (Return, *JSValue) { return Return{Kind: KindThenable}, nil }, apierr.TypeError, "ChatSurface runtime p must return synchronously"},
		{func(*harness) (Return, *JSValue) { return Return{Kind: KindOther}, nil }, apierr.TypeError, "ChatSurface runtime p must return a cleanup function, disposable object, or nothing"},
	} {
		h := staticHarness(t, "<pre>x</pre>")
		var sig Signal
		act := h.js.fn(func(cl call) (Return, *JSValue) { sig = cl.signal; return c.ret(h) })
		h.participant("p", hooks{prepare: func(cl call) (Return, *JSValue) {
			_ = h.host.Claim(cl.claims, h.dom.findTag(cl.content, "pre"), act)
			return Return{}, nil
		}})
		h.create()
		err := h.render()
		e := wantErr(t, err, c.class, c.msg)
		if c.msg == "ChatSurface runtime activation failed: p" && h.js.vals[e.Cause.(*JSValue).Ref] != "nope" {
			t.Fatal("cause must be the thrown value")
		}
		if h.host.Fault() != err || h.js.sigs[sig].reason != "activation-failed" {
			t.Fatal("faults; runtime lease closed with activation-failed")
		}
	}
}

// C67, C33 S48 (static): a source removed by another participant's didMount
// fails the eager grant with "not live".
func TestC67_S48_StaticNotLive(t *testing.T) {
	h := staticHarness(t, "<pre>x</pre>")
	h.participant("runtime-owner", hooks{prepare: h.claimPre("runtime-owner")})
	h.participant("other", hooks{mount: func(c call) (Return, *JSValue) {
		h.dom.detach(h.dom.n(h.dom.findTag(c.content, "pre")))
		return Return{}, nil
	}})
	h.create()
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface runtime source is not live: runtime-owner")
	for _, l := range h.log {
		if l == "runtime-owner.activate:0" {
			t.Fatal("activate must not be called")
		}
	}
}

// C101 S66 (static): a root removed by foreign code is absorbed.
func TestC101_S66_StaticAbsorb(t *testing.T) {
	h := staticHarness(t, "a", "b")
	h.participant("p", hooks{mount: h.disposerLog("mount")})
	h.create()
	h.mustRender()
	h.log = nil
	h.dom.Remove(h.host.MessageElement(1))
	h.host.OnMutation()
	wantLog(t, h.log, "mount:legacy-external-removal")
	if !slices.Equal(h.mounted(), ints(0)) || h.host.Fault() != nil {
		t.Fatal(h.mounted())
	}
	// moved rather than removed → inconsistent
	h.dom.appendChild(h.dom.doc, h.dom.n(h.host.MessageElement(0)))
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface committed DOM projection is inconsistent")
}

// C112, C141 S70.
func TestC112_S70_Dispose(t *testing.T) {
	h := staticHarness(t, "a")
	h.participant("p", hooks{mount: h.disposerLog("mount")})
	h.create()
	h.mustRender()
	if err := h.host.Dispose(); err != nil {
		t.Fatal(err)
	}
	wantLog(t, h.log, "p.mount:0", "mount:epoch-reset")
	wantErr(t, h.render(), apierr.PlainError, "ChatSurface host is disposed")
	if h.host.Dispose() != nil {
		t.Fatal("second dispose does nothing")
	}
	s := h.host.Snapshot()
	if s.State != StateDisposed || s.MessageCount != 0 || len(s.Mounted) != 0 || s.Fault != nil {
		t.Fatalf("%+v", s)
	}
	if _, err := h.page.CreateHost(validOptions(), Env{DOM: h.dom, JS: h.js, Sched: h.sch, Root: h.dom.root.id}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.page.CreateHost(validOptions(), Env{DOM: h.dom, JS: h.js, Sched: h.sch, Root: h.dom.root.id}); err == nil {
		t.Fatal("a second live host must fail")
	}
}

// C105, C112a: a faulted host throws epoch-faulted before argument checks.
func TestC105_FaultedChecksFirst(t *testing.T) {
	h := staticHarness(t, "a")
	p := h.participant("p", hooks{mount: nop})
	h.create()
	h.mustRender()
	h.page.Registry.Fault(p, h.js.throw("x"))
	f := h.host.Fault()
	for _, err := range []error{
		h.render(), h.host.Open(),
		func() error { _, e := h.host.UpdateContent(Num(0.5), false); return e }(),
		func() error { _, e := h.host.JumpToMessage(Num(0)); return e }(),
		h.host.ScrollToEnd(), h.host.SetProjectionHeld(true), h.host.RefreshLayout(),
	} {
		e := wantErr(t, err, apierr.PlainError, "ChatSurface epoch is faulted")
		if e.Cause != f {
			t.Fatal("cause must be the fault")
		}
	}
	if len(h.js.faults) != 1 {
		t.Fatal("onFault once")
	}
}
