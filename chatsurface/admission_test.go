package chatsurface

import (
	"testing"

	"tavern-core/apierr"
)

// admEnv is an admission environment with identity ordering (C63 tests).
type admEnv struct {
	t       *testing.T
	log     []string
	frames  int
	pending bool
	js      *fakeJS
	order2  func([]*Candidate) ([]*Candidate, error)
	sigs    map[*Candidate]Signal
}

func (e *admEnv) grant(c *Candidate) error {
	l := newLease(e.js)
	c.lease = l
	e.sigs[c] = l.Signal()
	e.log = append(e.log, "grant:"+c.Participant.ID)
	return nil
}
func (e *admEnv) revoke(c *Candidate, reason string) error {
	e.log = append(e.log, "revoke:"+c.Participant.ID+":"+reason)
	return c.lease.Close(reason)
}
func (e *admEnv) order(l []*Candidate) ([]*Candidate, error) {
	e.log = append(e.log, "order")
	if e.order2 != nil {
		return e.order2(l)
	}
	return l, nil
}
func (e *admEnv) requestFrame() (int, bool) { e.frames++; e.pending = true; return e.frames, true }
func (e *admEnv) cancelFrame(int)           { e.pending = false }

func newAdm(t *testing.T, managed bool, max int) (*Admission, *admEnv) {
	e := &admEnv{t: t, js: newFakeJS(t, newFakeDOM()), sigs: map[*Candidate]Signal{}}
	return newAdmission(e, managed, max), e
}

func cand(id string, mesid int) *Candidate {
	return &Candidate{Participant: &Participant{ID: id}, Mesid: mesid}
}

func (e *admEnv) frame(a *Admission) {
	e.pending = false
	if err := a.Frame(); err != nil {
		e.t.Fatal(err)
	}
}

func fs(xs ...float64) []float64 { return xs }

// C64, C68 S42.
func TestC64_S42_OneRevokeOneGrantPerFrame(t *testing.T) {
	a, e := newAdm(t, true, 1)
	c0, c1 := cand("c0", 0), cand("c1", 1)
	_ = a.Register(c0)
	_ = a.Register(c1)
	if err := a.SetDemand(fs(0, 1), false); err != nil {
		t.Fatal(err)
	}
	if c0.active || c1.active || !e.pending {
		t.Fatal("nothing may activate before a frame, and a frame must be pending")
	}
	e.log = nil
	e.frame(a)
	wantLog(t, e.log, "order", "grant:c0")
	_ = a.SetDemand(fs(1), false)
	if !c0.active {
		t.Fatal("demand alone must not revoke")
	}
	e.log = nil
	e.frame(a)
	wantLog(t, e.log, "revoke:c1:runtime-demand-revoked"[:0]+"revoke:c0:runtime-demand-revoked", "grant:c1")
	first := e.sigs[c0]
	_ = a.SetDemand(fs(0), false)
	for e.pending {
		e.frame(a)
	}
	second := e.sigs[c0]
	if first == second || !e.js.sigs[first].aborted || e.js.sigs[second].aborted {
		t.Fatal("a regrant must get a new, unaborted signal; the old one stays aborted")
	}
}

// C64 S43.
func TestC64_S43_FramesUntilSettled(t *testing.T) {
	a, e := newAdm(t, true, 2)
	ca, cb, cc := cand("a", 0), cand("b", 1), cand("c", 2)
	for _, c := range []*Candidate{ca, cb, cc} {
		_ = a.Register(c)
	}
	_ = a.SetDemand(fs(0, 1, 2), false)
	e.log = nil
	e.frame(a)
	e.frame(a)
	wantLog(t, e.log, "order", "grant:a", "order", "grant:b")
	if a.Snapshot().Scheduled {
		t.Fatal("scheduled after settling")
	}
	_ = a.SetDemand(fs(2), false)
	e.log = nil
	e.frame(a)
	wantLog(t, e.log, "revoke:a:runtime-demand-revoked", "grant:c")
	e.frame(a)
	s := a.Snapshot()
	if s.Active != 1 || s.Scheduled || !cc.active || cb.active {
		t.Fatalf("%+v", s)
	}
}

// C65, C66 S46, S49: suspended demand keeps runtimes, schedules nothing and
// orders nothing; unregistering still revokes synchronously.
func TestC65_C66_Suspended(t *testing.T) {
	a, e := newAdm(t, true, 1)
	c0, c1 := cand("c0", 0), cand("c1", 1)
	_ = a.Register(c0)
	_ = a.Register(c1)
	_ = a.SetDemand(fs(0, 1), false)
	e.frame(a)
	e.log = nil
	_ = a.SetDemand(fs(1), true)
	if e.pending || !c0.active || len(e.log) != 0 || !a.Snapshot().Suspended {
		t.Fatalf("suspended demand must do nothing: %v", e.log)
	}
	if err := a.Unregister(c0); err != nil {
		t.Fatal(err)
	}
	wantLog(t, e.log, "revoke:c0:content-released")
	if a.Snapshot().Active != 0 || len(a.Snapshot().Candidates) != 1 {
		t.Fatalf("%+v", a.Snapshot())
	}
}

// C71, C62 S51.
func TestC71_S51_DemandValidation(t *testing.T) {
	eager, _ := newAdm(t, false, 8)
	wantErr(t, eager.SetDemand(fs(0), false), apierr.PlainError, "RuntimeAdmission demand is only valid in managed mode")
	a, _ := newAdm(t, true, 8)
	wantErr(t, a.SetDemand(fs(0, 0), false), apierr.PlainError, "ChatSurface runtime demand contains duplicate messageIds")
	wantErr(t, a.SetDemand(fs(0.5), false), apierr.TypeError, "ChatSurface runtime demand requires integer messageIds")
	_ = a.Register(cand("x", 0))
	wantErr(t, a.Configure(true, 2), apierr.PlainError, "RuntimeAdmission policy can only change while the surface is empty")
	b, _ := newAdm(t, true, 8)
	if err := b.Configure(false, 3); err != nil || b.Snapshot().MaxActive != 3 || b.Snapshot().Mode != "eager" {
		t.Fatal(err)
	}
}

// C60: eager mode grants synchronously at registration, no budget.
func TestC60_EagerGrantsAtRegistration(t *testing.T) {
	a, e := newAdm(t, false, 1)
	for i := 0; i < 3; i++ {
		if err := a.Register(cand("p", i)); err != nil {
			t.Fatal(err)
		}
	}
	wantLog(t, e.log, "grant:p", "grant:p", "grant:p")
	if a.Snapshot().Active != 3 || e.pending {
		t.Fatal("eager mode has no budget and no frames")
	}
}

// C63: the ordering is consulted only when oversubscribed, and the first
// Rmax of its result are desired.
func TestC63_OrderOnlyWhenOversubscribed(t *testing.T) {
	a, e := newAdm(t, true, 2)
	cs := []*Candidate{cand("a", 0), cand("b", 0), cand("c", 1)}
	for _, c := range cs {
		_ = a.Register(c)
	}
	e.order2 = func(l []*Candidate) ([]*Candidate, error) {
		return []*Candidate{l[2], l[0], l[1]}, nil
	}
	e.log = nil
	_ = a.SetDemand(fs(1), false)
	wantLog(t, e.log) // 1 candidate ≤ Rmax: no ordering
	_ = a.SetDemand(fs(0, 1), false)
	wantLog(t, e.log, "order")
	for e.pending {
		e.frame(a)
	}
	if !cs[2].active || !cs[0].active || cs[1].active {
		t.Fatal("desired must follow the ordering")
	}
}
