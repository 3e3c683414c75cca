package chatsurface

import (
	"strconv"

	"tavern-core/jsvalue"
)

// DefaultRuntimeLimit is Rmax when runtimeLimit is absent (C62).
const DefaultRuntimeLimit = 8

// Candidate is one successful claim of prepared content (C59): a claimed
// source plus its activate function. It is a runtime while active.
type Candidate struct {
	_           noCompare
	Participant *Participant
	Mesid       int // fixed: a mesid shift is always a cold remount (C28)
	Source      Node
	activate    Ref
	res         *residency // nil in admission-only tests
	lease       *Lease     // runtime lease while active
	active      bool
	gone        bool // unregistered
}

// Active reports whether the candidate is a granted runtime.
func (c *Candidate) Active() bool { return c.active }

// admissionEnv performs grants and revokes and supplies the ordering; the
// host implements it with C67 and the box ordering of C63.
type admissionEnv interface {
	grant(c *Candidate) error
	revoke(c *Candidate, reason string) error
	// order sorts an oversubscribed demand-ordered list (C63).
	order(list []*Candidate) ([]*Candidate, error)
	requestFrame() (id int, ok bool)
	cancelFrame(id int)
}

// Admission is the runtime admission component (C58–C71).
type Admission struct {
	env       admissionEnv
	managed   bool
	max       int
	cands     []*Candidate // registration order
	demand    []int
	suspended bool
	desired   []*Candidate
	isDesired map[*Candidate]bool
	frame     int
	scheduled bool
	active    int
}

func newAdmission(env admissionEnv, managed bool, max int) *Admission {
	return &Admission{env: env, managed: managed, max: max, isDesired: map[*Candidate]bool{}}
}

// ValidateRuntimeLimit is C62's check of the runtimeLimit option.
func ValidateRuntimeLimit(v Value) (int, error) {
	if v.Kind == jsvalue.Undefined {
		return DefaultRuntimeLimit, nil
	}
	if !v.isInteger() || v.Num < 1 {
		return 0, newTypeError(CodeAdmission, "RuntimeAdmission maxActive must be a positive integer")
	}
	// Any budget admits at most every candidate; a larger integer than Go's
	// int can hold exactly (e.g. 1e300, Number.isInteger) reads as the
	// largest exact one, which snapshots report as given up to it.
	if v.Num > 1<<53-1 {
		return 1<<53 - 1, nil
	}
	return int(v.Num), nil
}

// Configure changes mode and budget; only while no candidate is registered.
func (a *Admission) Configure(managed bool, max int) error {
	if len(a.cands) > 0 {
		return newError(CodeAdmission, "RuntimeAdmission policy can only change while the surface is empty")
	}
	if max < 1 {
		return newTypeError(CodeAdmission, "RuntimeAdmission maxActive must be a positive integer")
	}
	a.managed, a.max = managed, max
	return nil
}

// Register adds a candidate. Eager mode grants it now (C60); managed mode
// re-evaluates unless demand is suspended (C61, C63).
func (a *Admission) Register(c *Candidate) error {
	a.cands = append(a.cands, c)
	if !a.managed {
		return a.grant(c)
	}
	if a.suspended {
		return nil
	}
	return a.evaluateOutside()
}

// Unregister revokes an active candidate with content-released, whatever the
// mode, budget or suspension (C66), and forgets it.
func (a *Admission) Unregister(c *Candidate) error {
	if c.gone {
		return nil
	}
	c.gone = true
	for i, x := range a.cands {
		if x == c {
			a.cands = append(a.cands[:i:i], a.cands[i+1:]...)
			break
		}
	}
	var err error
	if c.active {
		err = a.revoke(c, ReasonContentReleased)
	}
	if a.managed && !a.suspended {
		if e := a.evaluateOutside(); err == nil {
			err = e
		}
	}
	return err
}

// SetDemand sets the ordered demanded mesids (C63, C65, C71).
func (a *Admission) SetDemand(ids []float64, suspended bool) error {
	if !a.managed {
		return newError(CodeAdmission, "RuntimeAdmission demand is only valid in managed mode")
	}
	d := make([]int, len(ids))
	seen := make(map[int]bool, len(ids))
	for i, f := range ids {
		if !isInteger(f) {
			return newTypeError(CodeAdmission, "ChatSurface runtime demand requires integer messageIds")
		}
		d[i] = int(f)
	}
	for _, m := range d {
		if seen[m] {
			return newError(CodeAdmission, "ChatSurface runtime demand contains duplicate messageIds")
		}
		seen[m] = true
	}
	a.demand = d
	return a.setSuspended(suspended)
}

func (a *Admission) setDemandInts(d []int, suspended bool) error {
	a.demand = append(a.demand[:0:0], d...)
	return a.setSuspended(suspended)
}

func (a *Admission) setSuspended(suspended bool) error {
	a.suspended = suspended
	if suspended {
		a.cancel()
		return nil
	}
	return a.evaluateOutside()
}

func (a *Admission) cancel() {
	if a.scheduled {
		a.scheduled = false
		a.env.cancelFrame(a.frame)
	}
}

// evaluate recomputes the desired set (C63).
func (a *Admission) evaluate() error {
	byMes := map[int][]*Candidate{}
	for _, c := range a.cands {
		byMes[c.Mesid] = append(byMes[c.Mesid], c)
	}
	var list []*Candidate
	for _, m := range a.demand {
		list = append(list, byMes[m]...)
	}
	if len(list) > a.max {
		sorted, err := a.env.order(list)
		if err != nil {
			return err
		}
		list = sorted[:a.max]
	}
	a.desired = list
	clear(a.isDesired)
	for _, c := range list {
		a.isDesired[c] = true
	}
	return nil
}

func (a *Admission) nextRevoke() *Candidate {
	for _, c := range a.cands {
		if c.active && !a.isDesired[c] {
			return c
		}
	}
	return nil
}

func (a *Admission) nextGrant() *Candidate {
	for _, c := range a.desired {
		if !c.active && !c.gone {
			return c
		}
	}
	return nil
}

func (a *Admission) due() bool { return a.nextRevoke() != nil || a.nextGrant() != nil }

// evaluateOutside evaluates and schedules a frame if work is due (C64).
func (a *Admission) evaluateOutside() error {
	if err := a.evaluate(); err != nil {
		return err
	}
	a.schedule()
	return nil
}

func (a *Admission) schedule() {
	if !a.scheduled && a.due() {
		a.frame, a.scheduled = a.env.requestFrame()
	}
}

// Frame runs one admission frame: at most one revoke, then one grant (C64).
func (a *Admission) Frame() error {
	a.scheduled = false
	if !a.managed || a.suspended {
		return nil
	}
	if err := a.evaluate(); err != nil {
		return err
	}
	if c := a.nextRevoke(); c != nil {
		if err := a.revoke(c, ReasonDemandRevoked); err != nil {
			return err
		}
	}
	if c := a.nextGrant(); c != nil && a.active < a.max {
		if err := a.grant(c); err != nil {
			return err
		}
	}
	a.schedule()
	return nil
}

func (a *Admission) grant(c *Candidate) error {
	if err := a.env.grant(c); err != nil {
		return err
	}
	c.active = true
	a.active++
	return nil
}

func (a *Admission) revoke(c *Candidate, reason string) error {
	c.active = false // consistent before the disposer runs
	a.active--
	return a.env.revoke(c, reason)
}

// RevokeAll revokes every active runtime with reason (dispose, C112).
func (a *Admission) RevokeAll(reason string) error {
	var first error
	for _, c := range a.cands {
		if c.active {
			if err := a.revoke(c, reason); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// reset drops demand, frames and candidates (C107 step 5).
func (a *Admission) reset() {
	a.cancel()
	a.cands, a.demand, a.desired, a.suspended = nil, nil, nil, false
	clear(a.isDesired)
}

// RuntimeSnapshot is snapshot().runtime (C143).
type RuntimeSnapshot struct {
	Mode       string // "managed" or "eager"
	MaxActive  int
	Active     int
	Pending    int
	Scheduled  bool
	Suspended  bool
	Candidates []CandidateInfo
}

// CandidateInfo is one entry of RuntimeSnapshot.Candidates.
type CandidateInfo struct {
	_             noCompare
	ParticipantID string
	Mesid         int
	State         string // "active" or "pending"
}

// Snapshot describes the component (C143).
func (a *Admission) Snapshot() RuntimeSnapshot {
	s := RuntimeSnapshot{Mode: "eager", MaxActive: a.max, Active: a.active, Scheduled: a.scheduled}
	if a.managed {
		s.Mode, s.Suspended = "managed", a.suspended
	}
	s.Pending = len(a.cands) - a.active
	for _, c := range a.cands {
		st := "pending"
		if c.active {
			st = "active"
		}
		s.Candidates = append(s.Candidates, CandidateInfo{ParticipantID: c.Participant.ID, Mesid: c.Mesid, State: st})
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }
