package chatsurface

import "strconv"

// State is the bounded state of C98, plus "static" for static mode (C143).
type State string

const (
	StateInactive         State = "inactive"
	StateBootstrapping    State = "bootstrapping"
	StateSettled          State = "settled"
	StateGestureScrolling State = "gesture-scrolling"
	StateJumping          State = "jumping"
	StateFaulted          State = "faulted"
	StateDisposed         State = "disposed"
	StateStatic           State = "static"
)

// Operation labels (C110).
const (
	LabelOpen           = "open"
	LabelRender         = "render"
	LabelUpdateContent  = "updateContent"
	LabelJump           = "jumpToMessage"
	LabelScrollToEnd    = "scrollToEnd"
	LabelResetEpoch     = "resetEpoch"
	LabelDispose        = "dispose"
	LabelGeometryFrame  = "geometry-frame"
	LabelAdmission      = "runtime-admission"
	LabelContentCommit  = "content-commit"
	LabelExternalRemove = "external-removal"
)

// residency is the host's record for one mounted root (§0).
type residency struct {
	msg      MessageID
	mesid    int
	root     Node
	content  Node
	mount    *Lease
	lease    *Lease   // current content lease
	parent   Node     // content's parent while a commit prepares it (C40)
	html     string   // content's innerHTML as materialized, when processing
	claims   []*claim // sources claimed for the current content
	cands    []*Candidate
	prepared bool
	pending  bool // content waits for a processor result (C124)
	// raw and norm are the last C51 step 2 round trip through content:
	// formatMessage's HTML and what it normalised to (Host.normalizeIn).
	raw, norm string
	normed    bool
	// margins is the root's computed margin-top + margin-bottom as last read
	// (C85; bounded.qSize says when it is read again).
	margins    float64
	hasMargins bool
}

// Host is the host controller of C140–C143. Every exported mutating method
// follows C112a; hooks it calls may re-enter it, so state is made consistent
// before each call out.
type Host struct {
	page    *Page
	reg     *Registry
	doc     *Doc
	js      *syncJS
	sched   Scheduler
	root    Node
	managed bool

	disposed  bool
	epoch     int
	fault     error
	label     string // running mutation, "" when none
	state     State
	committed bool // static: the epoch's first projection committed

	ids       []MessageID // chat[] at the last structural pass
	idRoom    []MessageID // storage for the next pass (never h.ids')
	index     messageIndex
	mounted   []*residency // ascending mesid
	transient map[MessageID]bool

	adm       *Admission
	claimSeq  int32
	openClaim map[ClaimsID]*claimSet

	b bounded

	proc processorState

	// schedErr is a value a scheduler function or a DOM command threw
	// during the running operation: the epoch faulted with it, and the
	// operation returns it (take) so that it propagates to the caller (C6).
	schedErr error
}

func newHost(p *Page, env Env, rmax int) *Host {
	h := &Host{page: p, reg: p.Registry, root: env.Root,
		managed: p.managed, state: StateInactive, transient: map[MessageID]bool{},
		openClaim: map[ClaimsID]*claimSet{},
		proc:      processorState{cache: map[MessageID]*request{}, tokens: map[Token]*layer{}}}
	h.doc = newDoc(env.DOM, func(thrown *JSValue) { h.schedFailed(thrown) })
	h.js = newSyncJS(h.doc, env.JS)
	h.sched = syncSched{doc: h.doc, s: env.Sched}
	h.adm = newAdmission(hostAdmission{h}, p.managed, rmax)
	h.b = newBounded(h, h.doc, h.root)
	h.reg.notify = func(e *Error) {
		if h.page.host == h {
			h.setFault(e) // C23
		}
	}
	h.doc.Listen(h.root, true)
	h.doc.Sync()
	return h
}

// The host's scheduler calls: a throw faults the epoch (and is returned by
// the running operation); a faulted or disposed host schedules nothing.
func (h *Host) requestFrame() (int, bool) {
	if h.fault != nil || h.disposed {
		return 0, false
	}
	id, thrown := h.sched.RequestFrame()
	return id, !h.schedFailed(thrown)
}

func (h *Host) setTimeout(ms float64) (int, bool) {
	if h.fault != nil || h.disposed {
		return 0, false
	}
	id, thrown := h.sched.SetTimeout(ms)
	return id, !h.schedFailed(thrown)
}

func (h *Host) cancelFrame(id int)  { h.cancelFailed(h.sched.CancelFrame(id)) }
func (h *Host) clearTimeout(id int) { h.cancelFailed(h.sched.ClearTimeout(id)) }

// cancelFailed is schedFailed, except under resetEpoch() and dispose(): a
// chat switch must not hang on the host's cancel functions, so the reset
// goes on, faults nothing (the epoch it would fault is ending) and throws
// the value once it is done (C6; as C112 rethrows a failed reset). The
// frame or timer left scheduled does nothing when it fires: it belongs to
// no epoch's schedule.
func (h *Host) cancelFailed(thrown *JSValue) {
	if thrown != nil && (h.label == LabelResetEpoch || h.label == LabelDispose) {
		if h.schedErr == nil {
			h.schedErr = thrown
		}
		return
	}
	h.schedFailed(thrown)
}

func (h *Host) schedFailed(thrown *JSValue) bool {
	if thrown == nil {
		return false
	}
	if h.schedErr == nil {
		h.schedErr = thrown
	}
	h.setFault(thrown)
	return true
}

// take is what an operation returns: a value a scheduler function threw
// under it propagates (C6), also when the operation then stopped at the
// fault that value caused; else the operation's own error.
func (h *Host) take(err error) error {
	s := h.schedErr
	h.schedErr = nil
	// The value that faulted the epoch is the one thrown (C103): an error
	// the operation met afterwards is that fault's consequence.
	if s != nil && h.fault == error(s) {
		return s
	}
	if e, ok := err.(*Error); s != nil && (err == nil || ok && e.Code == CodeFaulted) {
		return s
	}
	return err
}

// Managed reports the host's mode.
func (h *Host) Managed() bool { return h.managed }

// setFault records the first fault of the epoch (C103) and stops the bounded
// view (C106).
func (h *Host) setFault(err error) {
	if h.fault != nil || h.disposed || err == nil {
		return
	}
	h.fault = errorValue(err)
	h.state = StateFaulted
	h.adm.cancel()
	h.b.stop()
	if h.b.marked {
		h.doc.RemoveAttr(h.root, NameBootstrap)
	}
	h.js.OnFault(h.fault)
}

// Abandon ends whatever operation was running when the bridge caught a
// panic under it (a Go bug, or a host object the bridge could not read): the
// epoch faults with err and the host takes calls again, so resetEpoch() or
// dispose() recovers it and nothing stays wedged.
func (h *Host) Abandon(err error) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	h.label = ""
	h.proc.pumping = false
	h.setFault(err)
}

// fail faults with err and returns it, for `return h.fail(err)`.
func (h *Host) fail(err error) error {
	h.setFault(err)
	return err
}

// afterCall is C39: a hook or activate call that faulted the epoch stops the
// operation.
func (h *Host) afterCall() error {
	if h.fault != nil {
		return errFaulted(h.fault)
	}
	return nil
}

// begin runs C112a checks 1–4 and takes the label. faultChecked selects the
// operations of C105.
func (h *Host) begin(label string, faultChecked bool) error {
	if h.label == "" {
		h.schedErr = nil // left over from an event that had no caller
	}
	if h.disposed {
		return errDisposed()
	}
	if label != "" && h.label != "" {
		return h.fail(newError(CodeReentered, "ChatSurface mutation "+label+" reentered during "+h.label))
	}
	if faultChecked && h.fault != nil {
		return errFaulted(h.fault)
	}
	// An unlabelled call (refreshLayout, setProjectionHeld) made from page
	// code an operation runs finds that operation's DOM half done: C112a's
	// check is for the next operation, and the running one checks its own
	// commit (C33 step 12).
	inside := h.label != ""
	if label != "" {
		h.label = label
	}
	if faultChecked && !inside {
		if err := h.foreignDOM(); err != nil {
			if label != "" {
				h.label = ""
			}
			return err
		}
	}
	return nil
}

func (h *Host) end() { h.label = "" }

// foreignDOM is C112a step 4: C79 in managed mode, C101 in static mode.
func (h *Host) foreignDOM() error {
	if h.managed {
		if h.b.marked {
			return h.verifyProjection()
		}
		return nil
	}
	return h.absorbRemovals()
}

// verifyProjection is C79: the direct .mes children, in order, are exactly the
// committed roots with their mesid attributes.
func (h *Host) verifyProjection() error {
	r := h.doc.QChildrenIfChanged(h.root)
	h.doc.Sync()
	if children, changed := h.doc.ChangedChildrenOf(r); changed {
		return h.projectionOK(children)
	}
	return nil
}

// projectionOK is C79 on a read of the root's children.
func (h *Host) projectionOK(children []Child) error {
	k := 0
	for _, c := range children {
		if c.Flags&NodeMes == 0 {
			continue
		}
		if k >= len(h.mounted) || h.mounted[k].root != c.Node || !c.Has || c.Mesid != h.mounted[k].mesid {
			return h.fail(errInconsistent())
		}
		k++
	}
	if k != len(h.mounted) {
		return h.fail(errInconsistent())
	}
	return nil
}

// identityOK is the DOM part of C53 and C67: r's root is a direct child of
// the surface root with its mesid, and its first .mes_text is the content.
func (h *Host) identityOK(r *residency) bool { return h.identityHolds(h.queueIdentity(r)) }

// identity holds identityOK's queued reads of one residency.
type identity struct {
	r       *residency
	n, a, q Read
}

func (h *Host) queueIdentity(r *residency) identity {
	d := h.doc
	return identity{r, d.QNode(r.root), d.QAttr(r.root, NameMesid), d.QQuery(r.root, SelMesText)}
}

// identityHolds applies the batch holding id's reads, unless it was
// applied already, and checks them.
func (h *Host) identityHolds(id identity) bool {
	d := h.doc
	d.Sync()
	v, ok := d.AttrOf(id.a)
	return d.NodeOf(id.n) == h.root && ok && isDecimal(v, id.r.mesid) && d.NodeOf(id.q) == id.r.content
}

// isDecimal reports s == String(n) for n ≥ 0, without building the string.
func isDecimal(s string, n int) bool {
	var b [20]byte
	return s == string(strconv.AppendInt(b[:0], int64(n), 10))
}

func errInconsistent() *Error {
	return newError(CodeOwnership, "ChatSurface committed DOM projection is inconsistent")
}

// absorbRemovals is C101: static roots removed by foreign code close with
// legacy-external-removal, ascending.
func (h *Host) absorbRemovals() error {
	if len(h.mounted) == 0 {
		return nil
	}
	reads := make([]Read, len(h.mounted))
	for i, r := range h.mounted {
		reads[i] = h.doc.QNode(r.root)
	}
	h.doc.Sync()
	var gone []*residency
	keep := h.mounted[:0:0]
	for i, r := range h.mounted {
		switch p := h.doc.NodeOf(reads[i]); p {
		case h.root:
			keep = append(keep, r)
		case 0:
			gone = append(gone, r)
		default:
			return h.fail(errInconsistent())
		}
	}
	if len(gone) == 0 {
		return nil
	}
	h.mounted = keep
	var first error
	for _, r := range gone {
		if err := h.closeResidency(r, ReasonLegacyExternalRemoval); err != nil && first == nil {
			first = err
		}
		h.forget(r)
	}
	if first != nil {
		return h.fail(first)
	}
	return nil
}

// closeResidency closes the content lease, then the mount lease (C48).
func (h *Host) closeResidency(r *residency, reason string) error {
	err := r.lease.Close(reason)
	if e := r.mount.Close(reason); err == nil {
		err = e
	}
	return err
}

// forget releases the nodes of a residency that left the DOM for good.
func (h *Host) forget(r *residency) {
	if h.managed {
		h.doc.Observe(r.root, false)
	}
	h.doc.Release(r.content)
	h.doc.Release(r.root)
}

func (h *Host) residencyAt(mesid int) *residency {
	lo, hi := 0, len(h.mounted)
	for lo < hi {
		m := (lo + hi) / 2
		if h.mounted[m].mesid < mesid {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(h.mounted) && h.mounted[lo].mesid == mesid {
		return h.mounted[lo]
	}
	return nil
}

// ResetEpoch is resetEpoch() (C107, C108).
func (h *Host) ResetEpoch() error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if err := h.begin(LabelResetEpoch, false); err != nil {
		return err
	}
	defer h.end()
	return h.take(h.reset())
}

func (h *Host) reset() error {
	// Step 1: abort every request and clear the processor cache (C107, C126).
	h.abortAll()
	defer h.pump() // skipped requests settle their Promises
	var first error
	for i := len(h.mounted) - 1; i >= 0; i-- {
		if err := h.closeResidency(h.mounted[i], ReasonEpochReset); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return h.fail(first)
	}
	if h.reg.fault != nil {
		return h.fail(h.reg.fault)
	}
	for _, r := range h.mounted {
		h.doc.Remove(r.root, h.root)
		h.forget(r)
	}
	h.mounted = nil
	h.b.unmark()
	h.adm.reset()
	h.b.stop()
	h.b.reset()
	h.epoch++
	h.fault = nil
	h.state = StateInactive
	h.committed = false
	h.ids = h.ids[:0] // its room and the index's serve the next epoch's passes
	h.index.reset()
	clear(h.transient)
	return nil
}

// Dispose is dispose() (C112).
func (h *Host) Dispose() error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed {
		return nil
	}
	if err := h.begin(LabelDispose, false); err != nil {
		return err
	}
	err := h.reset()
	if e := h.adm.RevokeAll(ReasonAdmissionDisposed); err == nil {
		err = e
	}
	h.b.stop()
	for _, r := range h.mounted {
		h.doc.Observe(r.root, false)
	}
	h.doc.Listen(h.root, false)
	h.disposed = true
	h.dropAborted()
	// A disposed host makes no pass again: its structure's room goes to
	// the next host's.
	h.index.reset()
	if cap(h.ids) > 0 {
		spareStructure.Store(&structureRoom{h.ids, h.idRoom, h.index.pos})
	}
	h.ids, h.idRoom, h.index.pos = nil, nil, nil
	h.label = ""
	h.state = StateDisposed
	h.fault = nil
	if err == nil && h.schedErr != nil { // a cancel function that threw (cancelFailed)
		err = h.schedErr
	}
	h.schedErr = nil // else the reset's own failure is the one reported
	return err
}

// Fault is getFault(): the recorded fault (an *Error or a *JSValue), or nil.
func (h *Host) Fault() error {
	if h.disposed {
		return nil
	}
	return h.fault
}

// MessageElement is getMessageElement(mesid): the mounted root or 0.
func (h *Host) MessageElement(mesid int) Node {
	if h.disposed {
		return 0
	}
	if r := h.residencyAt(mesid); r != nil {
		return r.root
	}
	return 0
}

// Snapshot is snapshot() (C143).
type Snapshot struct {
	Mode                string
	State               State
	MessageCount        int
	Mounted             []int
	Ranges              []Range
	Viewport            []int
	FollowingTail       bool
	ProjectionHeld      bool
	Runtime             RuntimeSnapshot
	PendingPreparations []int // mounted mesids whose content is pending (C124)
	Fault               error
}

// Snapshot describes the host (C112, C143).
func (h *Host) Snapshot() Snapshot {
	s := Snapshot{Mode: "static", State: h.state, Fault: h.Fault(), Runtime: h.adm.Snapshot()}
	if h.managed {
		s.Mode = "managed"
	}
	if h.disposed {
		s.State = StateDisposed
		s.Runtime = RuntimeSnapshot{Mode: s.Runtime.Mode, MaxActive: s.Runtime.MaxActive}
		return s
	}
	if !h.managed && h.state == StateInactive && h.committed {
		s.State = StateStatic
	}
	s.MessageCount = len(h.ids)
	for _, r := range h.mounted {
		s.Mounted = append(s.Mounted, r.mesid)
		if r.pending {
			s.PendingPreparations = append(s.PendingPreparations, r.mesid)
		}
	}
	s.Ranges = rangesOf(s.Mounted)
	if h.managed {
		s.FollowingTail, s.ProjectionHeld = h.b.following, h.b.held
		if h.b.hasViewport && !h.b.win.Empty() {
			for i := h.b.win.First; i <= h.b.win.Last; i++ {
				s.Viewport = append(s.Viewport, i)
			}
		}
	}
	return s
}
