package chatsurface

import "testing"

// C108 S26: a throwing mount disposer fails every reset with the same error.
func TestC108_S26_DisposerThrows(t *testing.T) {
	h := staticHarness(t, "m0")
	e := h.js.throw(errTest("cleanup failed"))
	h.participant("p", hooks{mount: func(call) (Return, *JSValue) {
		return h.js.disposerRet(func() (Return, *JSValue) { return Return{}, e }), nil
	}})
	h.create()
	h.mustRender()
	for i := 0; i < 2; i++ {
		if err := h.host.ResetEpoch(); err != e {
			t.Fatalf("reset %d: %v", i, err)
		}
		if len(h.dom.Children(h.dom.root.id)) != 1 || h.host.Snapshot().State != StateFaulted {
			t.Fatal("the .mes stays and the epoch stays faulted")
		}
	}
}

// claimingHarness: managed, every message "<pre>…</pre>" claimed by "p".
func claimingHarness(t *testing.T, n int, opts ...func(*HostOptions)) (*harness, *[]string) {
	h := managedHarness(t, n)
	for _, m := range h.js.chat {
		m.mes = "<pre>" + m.mes + "</pre>"
	}
	h.participant("p", hooks{prepare: h.claimPre("p")})
	h.create(opts...)
	return h, &h.log
}

// C66 S49: with suspended demand, updateContent revokes synchronously.
func TestC66_S49_UpdateRevokesWhileSuspended(t *testing.T) {
	h, log := claimingHarness(t, 30)
	h.open()
	h.sch.flush()
	h.dom.SetScrollTop(0, h.dom.scroll-30)
	h.host.OnScroll() // gesture: demand suspended at the next frame (the view stays covered: no commit)
	h.sch.frame()
	if !h.host.Snapshot().Runtime.Suspended {
		t.Fatal("suspended")
	}
	*log = nil
	if _, err := h.host.UpdateContent(Num(25), false); err != nil {
		t.Fatal(err)
	}
	wantLog(t, *log, "p.prepare:25", "p:runtime:content-released")
	if h.host.Snapshot().Runtime.Scheduled {
		t.Fatal("no admission frame while suspended")
	}
}

// C62, C69 S50: runtimeLimit 2 with 10 visible candidates.
func TestC69_S50_RuntimeLimit(t *testing.T) {
	h, _ := claimingHarness(t, 10, func(o *HostOptions) { o.RuntimeLimit = Num(2) })
	h.open()
	for len(h.sch.frames) > 0 {
		h.sch.frame()
		if h.host.Snapshot().Runtime.Active > 2 {
			t.Fatal("more than 2 active")
		}
	}
	r := h.host.Snapshot().Runtime
	if r.Active != 2 || r.Pending != 8 || r.MaxActive != 2 || r.Mode != "managed" || len(r.Candidates) != 10 {
		t.Fatalf("%+v", r)
	}
	act := 0
	for _, c := range r.Candidates {
		if c.State == "active" {
			act++
		}
		if c.ParticipantID != "p" {
			t.Fatal(c)
		}
	}
	if act != 2 {
		t.Fatal("C143 candidate states")
	}
}

// C86, C26 S64: deleting message 0 keeps the anchor message on screen.
func TestC86_S64_DeleteAboveKeepsAnchor(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.scrollTo(50000)
	a, _ := h.host.b.layout.Visible(h.dom.scroll)
	root := h.host.MessageElement(a)
	top := h.dom.Rect(root).Top
	h.js.chat = h.js.chat[1:]
	h.mustRender()
	r := h.host.MessageElement(a - 1)
	if r == 0 || h.dom.Rect(r).Top != top {
		t.Fatalf("anchor moved: %v", top)
	}
	if h.host.Snapshot().FollowingTail {
		t.Fatal("not following")
	}
}

// C95: scrollToEnd follows the tail again.
func TestC95_ScrollToEnd(t *testing.T) {
	h := managedHarness(t, 1000)
	h.create()
	h.open()
	h.scrollTo(0)
	if h.host.Snapshot().FollowingTail {
		t.Fatal("a gesture to the top stops following")
	}
	if err := h.host.ScrollToEnd(); err != nil {
		t.Fatal(err)
	}
	m := h.mounted()
	if !h.host.Snapshot().FollowingTail || m[0] < 900 || h.dom.scroll != h.dom.scrollHeight()-1000 {
		t.Fatal(m)
	}
}

// C88: a programmatic scroll within 1.5 px is not a gesture.
func TestC88_ProgrammaticScrollIgnored(t *testing.T) {
	h := managedHarness(t, 100)
	h.create()
	h.open()
	h.host.OnScroll()
	if h.host.Snapshot().State != StateSettled || len(h.sch.timers) != 0 {
		t.Fatal("a notification at the written position is not a gesture")
	}
	h.dom.SetScrollTop(0, h.dom.scroll-100)
	h.host.OnScroll()
	h.host.OnScroll()
	if h.host.Snapshot().State != StateGestureScrolling || len(h.sch.timers) != 1 {
		t.Fatal("gesture with one restarted settle timer")
	}
	h.host.OnScrollEnd()
	if len(h.sch.timers) != 0 {
		t.Fatal("scrollend ends the gesture and clears the timer")
	}
	h.sch.flush()
	if h.host.Snapshot().State != StateSettled {
		t.Fatal("settled after the commit")
	}
}
