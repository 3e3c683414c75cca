package chatsurface

import "math"

// gestureSettle is the settle timer's delay (C88).
const gestureSettle = 150

// sizeSlack is how far a root's measured size may be from the one held
// before it counts as changed (C85). Chromium answers the rect of a root far
// from the viewport (the tail, 2,000,000 px below after a scrollbar drag to
// the top) in single precision, a fraction of a pixel off: read as content
// resizing, that drag was taken for the browser's clamp and undone (C88 as
// changed), and every commit re-measured noise.
const sizeSlack = 0.5

func resized(a, b float64) bool { return math.Abs(a-b) > sizeSlack }

// boundedEnv is what the bounded window needs of its host, as admissionEnv
// is for Admission: chat[] as of the last structural pass, the mounted
// roots, the commit, the host's scheduler and state, the admission demand
// and the fault. The DOM batch and the root are the window's own (doc,
// root). *Host implements it (boundedhost.go).
type boundedEnv interface {
	messageIDs() []MessageID          // chat[] at the last structural pass
	indexOf(id MessageID) (int, bool) // its index in ids
	mountedRoots() []*residency       // ascending mesid
	residencyAt(mesid int) *residency // the mounted root of mesid, or nil
	structural() error                // the structural pass
	commit(proj []int, replace map[int]bool, w *Window) error
	placeRoots(children []Child, rs []*residency, before, after []Node)
	requestFrame() (id int, ok bool)
	cancelFrame(id int)
	setTimeout(ms float64) (id int, ok bool)
	clearTimeout(id int)
	surfaceState() State
	setSurfaceState(s State)
	setDemand(demand []int, suspended bool) error // C91
	fail(err error) error                         // fault the epoch with err
}

// bounded is the windowing state of managed mode (C72–C98).
type bounded struct {
	env  boundedEnv
	doc  *Doc
	root Node

	layout      *Layout               // the layout last written (indices = the host's ids)
	sizes       map[MessageID]float64 // measured sizes by mount key
	written     bool                  // a layout was written this epoch
	lastS       float64               // last written scroll position, read back
	seenS       float64               // last position written or notified (movedUnseen)
	suspended   bool                  // the demand last sent was suspended (C65)
	following   bool
	held, owed  bool
	refresh     bool // a measurement refresh is due (C97)
	refreshRuns int  // measurement refreshes run this epoch (tests check C97's "exactly one")
	gesture     bool // a gesture lasts (settle timer running)
	// shrunk: while following, a mounted root's content was replaced by
	// content that may be shorter (made pending, C124, or updated) since
	// the last geometry frame. Page code that reads layout before the new
	// content lands (a runtime's disposer measuring its frame) makes the
	// browser clamp the offset; by the notification the content may have
	// grown back, so the clamp looks like a move up (gestureNotice).
	shrunk bool
	// shrunkLater: the replacement came while a geometry frame was already
	// requested, perhaps by a callback of the frame that runs it, whose
	// clamp would be notified only in the frame after: the clause outlives
	// that frame by one (frameStarts).
	shrunkLater bool
	marked      bool
	anchorStyle string

	geomScheduled bool
	geomNeeded    bool // a geometry commit was asked for, not only the frame (contentReplaced)
	geomFrame     int
	timerSet      bool
	timer         int

	dirty map[Node]bool // roots whose size change was notified
	// boxes are C85's reads of the mounted roots (boxRoots), queued with a
	// commit's verification; measured says they are still unread.
	heights     [2]float64 // the spacers' heights as written
	boxes       []sizeRead
	boxRoots    []*residency
	measured    bool
	win         Window // committed window
	hasViewport bool   // a normal commit set V (C143 viewport)
	committed   bool   // win holds a committed layout
	top, middle Node   // spacer elements, 0 when absent
	demand      []int
	// pin is the jump target as the anchor, with the offset the jump gave
	// it, until its content settles or a gesture begins (C86 as changed:
	// results of async processors landing around the target do not move it).
	pin   anchor
	first firstRead
}

// firstRead is a normal commit's first read (C90 steps 1–2: the live view
// and the notified roots' boxes) queued ahead, with the batch that runs
// right before the commit: a geometry frame's C112a check, or the scroll
// write before a commit. No JavaScript runs between the two, so the commit
// reads what it would have read itself, one crossing fewer.
type firstRead struct {
	ok    bool
	at    uint32 // Doc.syncs when queued: answered by batch at+1
	view  Read
	dirty []*residency
	boxes []sizeRead
}

// queueFirst queues a normal commit's first read with the pending batch.
func (b *bounded) queueFirst() {
	b.dropFirst()
	b.first = firstRead{ok: true, at: b.doc.syncs, view: b.doc.QView(b.root)}
	b.first.dirty, b.first.boxes = b.queueDirty()
}

// takeFirst is the read queued ahead, if the batch that answered it is the
// last one applied; otherwise the commit reads afresh.
func (b *bounded) takeFirst() (firstRead, bool) {
	f := b.first
	if f.ok && b.doc.syncs == f.at+1 {
		b.first = firstRead{}
		return f, true
	}
	b.dropFirst()
	return firstRead{}, false
}

// dropFirst forgets an unused first read; its notified roots stay notified.
func (b *bounded) dropFirst() {
	for _, r := range b.first.dirty {
		b.dirty[r.root] = true
	}
	b.first = firstRead{}
}

func newBounded(env boundedEnv, doc *Doc, root Node) bounded {
	b := bounded{env: env, doc: doc, root: root}
	b.reset()
	return b
}

// reset starts an epoch: everything but the host's parts.
func (b *bounded) reset() {
	dropLayout(b.layout)
	*b = bounded{env: b.env, doc: b.doc, root: b.root,
		sizes: map[MessageID]float64{}, dirty: map[Node]bool{}, layout: NewLayout(nil, Metrics{})}
}

// stop cancels frames and the settle timer (C106, C112).
func (b *bounded) stop() {
	if b.geomScheduled {
		b.geomScheduled = false
		b.env.cancelFrame(b.geomFrame)
	}
	b.geomNeeded, b.shrunk, b.shrunkLater = false, false, false
	if b.timerSet {
		b.timerSet = false
		b.env.clearTimeout(b.timer)
	}
	b.gesture = false
}

// mark is C72 at open.
func (b *bounded) mark() {
	b.marked = true
	b.anchorStyle = b.doc.Style(b.root, NameOverflowAnchor)
	b.doc.SetAttr(b.root, NameSurface, "bounded")
	b.doc.SetAttr(b.root, NameBootstrap, "true")
	b.doc.SetStyle(b.root, NameOverflowAnchor, "none")
}

// unmark is C107 step 4 for the bounded parts.
func (b *bounded) unmark() {
	for _, s := range [...]*Node{&b.top, &b.middle} {
		if *s != 0 {
			b.doc.Remove(*s, 0)
			b.doc.Release(*s)
			*s = 0
		}
	}
	if b.marked {
		b.doc.RemoveAttr(b.root, NameSurface)
		b.doc.RemoveAttr(b.root, NameBootstrap)
		b.doc.SetStyle(b.root, NameOverflowAnchor, b.anchorStyle)
		b.marked = false
	}
}

// restructure rebuilds the layout after a structural pass; sizes of keys
// that left chat[] are dropped (C85). O(count) numeric work only (C146).
func (b *bounded) restructure() {
	sizes, tree := newLayoutArrays(len(b.env.messageIDs()))
	for i := range sizes {
		sizes[i] = EstimatedSize
	}
	// O(measured) lookups, not O(count): few messages have been measured.
	for id, s := range b.sizes {
		if i, ok := b.env.indexOf(id); ok {
			sizes[i] = finite(s)
		} else {
			delete(b.sizes, id)
		}
	}
	old := b.layout
	b.layout = layoutOf(sizes, tree, old.Metrics()) // one pass and no copy over 10,000 sizes
	dropLayout(old)
}

// setMetrics takes Ps, Pe, G and H from a view read (C80, C90 step 2).
func (b *bounded) setMetrics(v View) {
	b.layout.SetMetrics(Metrics{PadTop: v.PadTop, PadBottom: v.PadBottom, Gap: v.Gap, Height: v.H})
}

// readMetrics reads them now.
func (b *bounded) readMetrics() View {
	v := b.doc.View(b.root)
	b.setMetrics(v)
	return v
}

// sizeRead is one queued measurement of a root (C85): its border box, and
// its computed margins when box is set. Margins are read when a root mounts,
// when its size change is notified and after refreshLayout(); in between
// the ones read last are used (docs/chatsurface.md): a computed style read
// is the dearest read of a frame.
type sizeRead struct {
	r   Read
	box bool
}

func (b *bounded) qSize(r *residency, fresh bool) sizeRead {
	if fresh || !r.hasMargins {
		return sizeRead{b.doc.QBox(r.root), true}
	}
	return sizeRead{b.doc.QRect(r.root), false}
}

func (b *bounded) sizeOf(r *residency, x sizeRead) float64 {
	rc := b.doc.RectOf(x.r)
	if x.box {
		r.margins, r.hasMargins = finite(b.doc.F(x.r, 2))+finite(b.doc.F(x.r, 3)), true
	}
	return finite(rc.Bottom - rc.Top + r.margins)
}

// queueMeasure queues C85's measurement of every mounted root; the reads
// ride with the batch that verifies a commit (verifyCommit).
func (b *bounded) queueMeasure() {
	b.boxes, b.boxRoots = b.boxes[:0], b.boxRoots[:0]
	for _, r := range b.env.mountedRoots() {
		b.boxes = append(b.boxes, b.qSize(r, false))
		b.boxRoots = append(b.boxRoots, r)
	}
	b.measured = true
}

// measureMounted is C85 after a commit: cache every mounted root's size and
// schedule a geometry commit when one differs from the size used.
func (b *bounded) measureMounted() {
	if !b.measured || len(b.boxRoots) != len(b.env.mountedRoots()) {
		b.queueMeasure()
		b.doc.Sync()
	}
	b.measured = false
	changed := false
	for i, r := range b.boxRoots {
		s := b.sizeOf(r, b.boxes[i])
		if l := b.layout.Size(r.mesid); resized(s, l) {
			changed = true
			b.layout.SetSize(r.mesid, s)
		} else {
			s = l
		}
		// Most roots of a frame were mounted and measured before: a lookup
		// spares the map's write.
		if old, ok := b.sizes[r.msg]; !ok || old != s {
			b.sizes[r.msg] = s
		}
	}
	if changed {
		b.scheduleGeometry()
	}
}

// contentReplaced is told that a mounted root's content was replaced by
// content that may be shorter: shrunk holds until the next geometry frame,
// asked for here. That frame commits nothing on this account: a size that
// changed is notified by the resize observer after the frame's layout, and
// commits at the frame after, as any resize does (C85).
func (b *bounded) contentReplaced() {
	if !b.following || b.env.surfaceState() != StateSettled {
		return
	}
	b.shrunk = true
	if b.geomScheduled {
		b.shrunkLater = true
		return
	}
	b.requestGeometryFrame()
}

// queueDirty queues the boxes of roots whose size change was notified;
// applyDirty takes them into the layout inside a commit (C85).
func (b *bounded) queueDirty() ([]*residency, []sizeRead) {
	if len(b.dirty) == 0 {
		return nil, nil
	}
	var rs []*residency
	var reads []sizeRead
	for _, r := range b.env.mountedRoots() {
		if b.dirty[r.root] {
			rs = append(rs, r)
			reads = append(reads, b.qSize(r, true))
		}
	}
	clear(b.dirty)
	return rs, reads
}

// applyDirty takes the notified roots' sizes, read before a structural pass
// that may have rebuilt the layout since: a root is still mounted at its old
// mesid until the commit, so its message is looked up where it is now (a
// message deleted above it moved it; one deleted itself has no place, and
// its size is dropped as C85 drops it).
func (b *bounded) applyDirty(rs []*residency, reads []sizeRead) {
	for i, r := range rs {
		if b.env.residencyAt(r.mesid) != r {
			continue // remounted by the structural pass
		}
		at, ok := b.env.indexOf(r.msg)
		if !ok {
			continue
		}
		s := b.sizeOf(r, reads[i])
		b.layout.SetSize(at, s)
		b.sizes[r.msg] = s
	}
}

func (b *bounded) scheduleGeometry() {
	b.geomNeeded = true
	b.requestGeometryFrame()
}

// frameStarts begins a geometry frame (Host.Frame) and reports whether it
// commits: whether scheduleGeometry asked for that, not only for the frame.
// A clamp's scroll notification is dispatched before the frame's callbacks,
// so any was seen by now (gestureNotice) and the clamp clause ends here,
// unless the replacement came after this frame was requested: the clause
// then ends at the next frame, asked for now.
func (b *bounded) frameStarts() bool {
	b.geomScheduled = false
	b.shrunk, b.shrunkLater = b.shrunkLater, false
	if b.shrunk {
		b.requestGeometryFrame()
	}
	return b.geomNeeded
}

// requestGeometryFrame asks for the next geometry frame; it commits only if
// scheduleGeometry asked for that too (frameStarts).
func (b *bounded) requestGeometryFrame() {
	if !b.geomScheduled {
		b.geomFrame, b.geomScheduled = b.env.requestFrame()
	}
}

// writeScroll assigns S and remembers the value read back (C88).
func (b *bounded) writeScroll(s float64) {
	b.doc.SetScroll(b.root, s)
	b.lastS = b.doc.Scroll(b.root)
	b.seenS = b.lastS
	b.written = true
}

// writeScrollFirst is writeScroll before a normal commit: the commit's
// first read rides with the read-back.
func (b *bounded) writeScrollFirst(s float64) {
	b.doc.SetScroll(b.root, s)
	r := b.doc.QScroll(b.root)
	b.queueFirst()
	b.doc.Sync()
	b.lastS = b.doc.F(r, 0)
	b.seenS = b.lastS
	b.written = true
}

// anchor is C86's captured anchor.
type anchor struct {
	ok     bool
	key    MessageID
	offset float64
}

// captureAnchor reads the live S and takes the anchor at it.
func (b *bounded) captureAnchor() (anchor, float64) {
	s := b.doc.Scroll(b.root)
	return b.anchorAt(s), s
}

// anchorAt is C86's anchor at the live S in the last written layout; while
// a jump target is pinned it is the anchor.
func (b *bounded) anchorAt(s float64) anchor {
	if !b.written || b.layout.Len() == 0 || b.layout.Len() != len(b.env.messageIDs()) {
		return anchor{}
	}
	if b.pin.ok {
		if _, ok := b.env.indexOf(b.pin.key); ok {
			return b.pin
		}
		b.pin = anchor{}
	}
	a, _ := b.layout.Visible(s)
	return anchor{ok: true, key: b.env.messageIDs()[a], offset: s - b.layout.Start(a)}
}

// target is where the view should be: the end when following, else the
// anchor's restored position, else the clamped live S (C86, C87).
func (b *bounded) target(an anchor, s float64) float64 {
	if b.following {
		return b.layout.MaxScroll()
	}
	return b.restore(an, s)
}

// aim is target, or restore during a gesture.
func (b *bounded) aim(an anchor, s float64, gesture bool) float64 {
	if gesture {
		return b.restore(an, s)
	}
	return b.target(an, s)
}

// restore is the anchor's restored position, else the clamped live S (C86).
func (b *bounded) restore(an anchor, s float64) float64 {
	if an.ok {
		if i, ok := b.env.indexOf(an.key); ok {
			return b.layout.ClampScroll(b.layout.Start(i) + an.offset)
		}
	}
	return b.layout.ClampScroll(s)
}

// checkChildren is C76 on a read of the root's children: only .mes roots,
// spacers and .style-pins.
func (b *bounded) checkChildren(children []Child) error {
	for _, c := range children {
		if (c.Node != 0 && (c.Node == b.top || c.Node == b.middle)) || c.Flags&(NodeMes|NodeStylePins) != 0 {
			continue
		}
		return newError(CodeOwnership, "Bounded ChatSurface contains an unknown direct child: "+c.Tag)
	}
	return nil
}

// writeLayout writes spacers and orders the children (C74, C78, C84).
// children is the root's children as read before this batch's writes.
func (b *bounded) writeLayout(w Window, rs []*residency, children []Child) error {
	if err := b.checkChildren(children); err != nil {
		return err
	}
	b.spacer(&b.top, SpacerTop, w.HasTop, w.Top)
	b.spacer(&b.middle, SpacerMiddle, w.HasMiddle, w.Middle)
	var before, after []Node
	if b.top != 0 {
		before = append(before, b.top)
	}
	vs, tail := rs, []*residency(nil)
	if n := len(rs); n > 0 && (w.Empty() || rs[n-1].mesid > w.Last) {
		vs, tail = rs[:n-1], rs[n-1:]
	}
	order := append([]*residency(nil), vs...)
	if b.middle != 0 {
		after = append(after, b.middle)
	}
	// The tail root follows the middle spacer: place V, then append it.
	b.env.placeRoots(children, order, before, append(after, rootsOf(tail)...))
	b.win, b.committed = w, true
	return nil
}

func rootsOf(rs []*residency) []Node {
	out := make([]Node, len(rs))
	for i, r := range rs {
		out[i] = r.root
	}
	return out
}

func (b *bounded) spacer(n *Node, kind uint16, want bool, height float64) {
	if !want {
		if *n != 0 {
			b.doc.Remove(*n, 0)
			b.doc.Release(*n)
			*n = 0
		}
		return
	}
	if *n == 0 {
		*n = b.doc.Spacer(kind)
	} else if height == b.heights[kind] {
		return // the spacer already has this height
	}
	b.heights[kind] = height
	b.doc.Height(*n, height)
}

// sendDemand is C91 + C90 step 7.
func (b *bounded) sendDemand(suspended bool) error {
	if b.committed && len(b.env.messageIDs()) > 0 {
		b.demand = b.layout.Demand(b.win, b.lastS)
	} else {
		b.demand = nil
	}
	if err := b.env.setDemand(b.demand, suspended); err != nil {
		return b.env.fail(err)
	}
	b.suspended = suspended
	return nil
}

// resendSuspended re-sends the last demand as suspended (C89, C96).
func (b *bounded) resendSuspended() {
	_ = b.env.setDemand(b.demand, true)
	b.suspended = true
}

// commitKind says why a normal commit runs (C90).
type commitKind uint8

const (
	commitPlain      commitKind = iota // open, jump step 3, scrollToEnd, refresh
	commitStructural                   // render(): structural pass first
	commitGeometry                     // a geometry frame: may commit nothing
	commitGesture                      // a frame during a gesture (C89 as changed): S moved only to keep the anchor
)

// normalCommit is C90.
func (b *bounded) normalCommit(kind commitKind, replace map[int]bool, suspended bool) error {
	// Steps 1–2 in one read: the live S (for the anchor, before anything is
	// updated), the metrics and the notified roots' boxes.
	f, ok := b.takeFirst()
	if !ok {
		f.view = b.doc.QView(b.root)
		f.dirty, f.boxes = b.queueDirty()
		b.doc.Sync()
	}
	v := b.doc.ViewOf(f.view)
	if kind < commitGeometry {
		// C88 as changed: a render() between a user's scroll and its
		// notification meets the move first. Taken as the gesture it is,
		// the jump pin is let go and the anchor is where the user is, not
		// back at the pinned target (the commit then wrote that position
		// and the notification, matching it, was ignored: the scroll was
		// lost); demand stays suspended (C93).
		if _, gesture := b.movedUnseen(func() View { return v }); gesture {
			suspended = true
		}
	}
	an := b.anchorAt(v.S)
	if kind == commitStructural {
		if err := b.env.structural(); err != nil {
			return err
		}
	}
	b.applyDirty(f.dirty, f.boxes)
	b.setMetrics(v)
	n := len(b.env.messageIDs())
	w := Window{First: 0, Last: -1}
	gesture := kind == commitGesture // following is decided when the gesture ends (C87)
	if n > 0 {
		a, z := b.layout.Visible(b.aim(an, v.S, gesture))
		w = b.layout.Plan(Normal(a, z, n))
	}
	proj := w.Mounted(n)
	// V is this commit's from its layout write on: hooks it runs see it
	// in snapshot() (C143), in the first normal commit as in later ones.
	b.hasViewport = true
	if !(kind >= commitGeometry && b.sameLayout(w, proj)) {
		if err := b.env.commit(proj, replace, &w); err != nil {
			return err
		}
	}
	b.measureMounted()
	// During a gesture S is the user's: written only when the anchor moved
	// (an assignment stops the browser's smooth scroll where it is).
	if s := b.aim(an, v.S, gesture); !gesture || math.Abs(s-v.S) > 1 {
		b.writeScroll(s)
	}
	return b.sendDemand(suspended)
}

func (b *bounded) sameLayout(w Window, proj []int) bool {
	mounted, ids := b.env.mountedRoots(), b.env.messageIDs()
	if !b.committed || len(proj) != len(mounted) || w.HasTop != b.win.HasTop || w.HasMiddle != b.win.HasMiddle ||
		(w.HasTop && w.Top != b.win.Top) || (w.HasMiddle && w.Middle != b.win.Middle) {
		return false
	}
	for i, m := range proj {
		if mounted[i].mesid != m || mounted[i].msg != ids[m] {
			return false
		}
	}
	return true
}

// forcedCommit is C83's forced mode (or tail-only when tailOnly): V set by
// mode, roots measured, S left to the caller.
func (b *bounded) forcedCommit(center int, tailOnly bool) error {
	b.readMetrics()
	n := len(b.env.messageIDs())
	w := Window{First: 0, Last: -1}
	if n > 0 {
		if tailOnly {
			w = b.layout.Plan(0, -1)
		} else {
			w = b.layout.Plan(Centered(center, n))
		}
	}
	if err := b.env.commit(w.Mounted(n), nil, &w); err != nil {
		return err
	}
	b.measureMounted()
	return nil
}

// open is C92 after the C112a checks.
func (b *bounded) open() error {
	if b.env.surfaceState() != StateInactive {
		return newError(CodeState, "Bounded ChatSurface cannot open from state "+string(b.env.surfaceState()))
	}
	if n := b.doc.Query(b.root, SelShowMore); n != 0 {
		return b.env.fail(newError(CodeOwnership, "Bounded ChatSurface cannot adopt the static Show More control"))
	}
	b.mark()
	b.env.setSurfaceState(StateBootstrapping)
	if err := b.env.structural(); err != nil {
		return err
	}
	if err := b.forcedCommit(0, true); err != nil {
		return err
	}
	b.following = true
	b.writeScrollFirst(b.layout.MaxScroll())
	for i := 0; i < 2; i++ {
		if err := b.normalCommit(commitPlain, nil, false); err != nil {
			return err
		}
	}
	b.doc.RemoveAttr(b.root, NameBootstrap)
	b.env.setSurfaceState(StateSettled)
	return nil
}

// geometryFrame runs a scheduled geometry commit (C89, C90, C96, C97).
func (b *bounded) geometryFrame() error {
	b.geomNeeded = false
	if !b.scrollStateLive() {
		return nil
	}
	if _, gesture := b.movedUnseen(b.peekView); b.gesture || gesture {
		// C89 as changed: a touchpad, a fling or a dragged scrollbar moves
		// further than the mounted window between notifications; a frame
		// whose view would show a spacer where messages go commits, with
		// demand still suspended. Otherwise it commits nothing.
		if b.held || b.covers(b.doc.Scroll(b.root)) {
			b.resendSuspended()
			return nil
		}
		return b.normalCommit(commitGesture, nil, true)
	}
	if b.held {
		b.resendSuspended()
		b.owed = true
		return nil
	}
	var err error
	if b.refresh {
		err = b.measurementRefresh()
	} else {
		err = b.normalCommit(commitGeometry, nil, false)
	}
	if err != nil {
		return err
	}
	if b.env.surfaceState() == StateGestureScrolling {
		b.env.setSurfaceState(StateSettled)
	}
	return nil
}

// scrollStateLive says the surface is settled or in a gesture: the states
// in which geometry frames commit and scroll notifications count (C88, C89).
func (b *bounded) scrollStateLive() bool {
	st := b.env.surfaceState()
	return st == StateSettled || st == StateGestureScrolling
}

// geometryCommitsNormally says a geometry frame run now would begin with a
// normal commit (geometryFrame), so its first read can ride with the
// frame's C112a check.
func (b *bounded) geometryCommitsNormally() bool {
	return b.scrollStateLive() && !b.gesture && !b.held && !b.refresh
}

// measurementRefresh is C97.
func (b *bounded) measurementRefresh() error {
	b.refresh = false
	b.refreshRuns++
	an, s := b.captureAnchor()
	clear(b.sizes)
	clear(b.dirty)
	for _, r := range b.env.mountedRoots() {
		r.hasMargins = false // a width, font or theme change: margins too
	}
	b.doc.ForgetStyles()
	b.restructure()
	center := len(b.env.messageIDs()) - 1
	if an.ok {
		if i, ok := b.env.indexOf(an.key); ok {
			center = i
		}
	}
	if len(b.env.messageIDs()) > 0 {
		if err := b.forcedCommit(center, false); err != nil {
			return err
		}
	}
	b.writeScrollFirst(b.target(an, s))
	return b.normalCommit(commitPlain, nil, false)
}

// gestureNotice handles a scroll notification (C88, C89).
// read, when set, is the live read the notification's listener made.
func (b *bounded) gestureNotice(read []float64) {
	if b.scrollStateLive() && b.noticeMove(b.liveScroll(read)) {
		b.scheduleGeometry()
	}
}

// noticeMove takes a live scroll position the host did not write (C88):
// false when it is within 1.5 px of the last written one; otherwise the
// move begins (or continues) a gesture, or, while following, is layout's.
func (b *bounded) noticeMove(v View) bool {
	// The read that gave v may have faulted the epoch (a root whose
	// scrollTop throws): its zeros are no position.
	if !b.scrollStateLive() {
		return false
	}
	s := v.S
	b.seenS = s
	if math.Abs(s-b.lastS) <= 1.5 {
		return false
	}
	// While following, an offset at the live end is the browser clamping
	// after the content shrank, not a gesture (C88 as changed): geometry
	// follows it, following stays on. Nor is a move down: a user leaves the
	// tail by scrolling up, and a view that moved further down while
	// following was moved by layout (content that shrank, then grew again
	// before the notification, leaves the offset short of the new end).
	// Nor is a move up while the content is resizing under the view: the
	// browser clamped when it shrank and it may have grown again since, so
	// the move says nothing about the user until the sizes are measured —
	// unless the projection is held (C96): nothing is measured until the
	// hold ends (an editor open on the last message, growing with its
	// text), and every scroll of the user's would be lost until then.
	if b.following && b.env.surfaceState() == StateSettled && (atLiveEnd(v, 1.5) || s > b.lastS || !b.held && (b.shrunk || b.resizing())) {
		b.lastS = s
		return true
	}
	b.pin = anchor{}
	b.env.setSurfaceState(StateGestureScrolling)
	if !b.suspended {
		// C65/C89 as changed: demand is suspended from the notification
		// on, not from the gesture's first frame, so an admission frame
		// still pending from before the scroll grants nothing for a view
		// that has already moved (docs/chatsurface.md). Not only at a
		// gesture's start: a jump or scrollToEnd in the middle of one sends
		// it unsuspended.
		b.resendSuspended()
	}
	b.gesture = true
	if b.timerSet {
		b.timerSet = false
		b.env.clearTimeout(b.timer)
	}
	b.timer, b.timerSet = b.env.setTimeout(gestureSettle)
	return true
}

// movedUnseen is C88 as changed (docs/chatsurface.md): at a frame, a
// scroll position that moved since the host last wrote it or was notified
// of it is taken as the notification it will be. Script that scrolls from
// an animation frame (jQuery's animate, a smooth-scroll loop) moves the
// view before the host's frames in the same batch, and its notification
// only arrives after them: a geometry frame would otherwise commit at the
// new position as if it were the host's own and then grant runtimes for a
// view the script is already leaving. moved reports a move taken (a
// gesture, or layout's while following); view is the live read the frame
// made.
func (b *bounded) movedUnseen(view func() View) (moved, gesture bool) {
	if !b.marked || b.gesture || b.held || !b.scrollStateLive() {
		return false, false
	}
	v := view()
	if math.Abs(v.S-b.seenS) <= 1.5 || !b.noticeMove(v) {
		return false, false
	}
	return true, b.gesture
}

// peekView is the live view: the first read queued for this frame's commit
// when a batch answered it (left for the commit), else a read now.
func (b *bounded) peekView() View {
	if b.first.ok && b.doc.syncs == b.first.at+1 {
		return b.doc.ViewOf(b.first.view)
	}
	return b.doc.ScrollView(b.root)
}

// covers reports whether the mounted roots show everything the view at s
// shows, in the layout last written.
func (b *bounded) covers(s float64) bool {
	if b.layout.Len() == 0 || b.layout.Len() != len(b.env.messageIDs()) {
		return true
	}
	a, z := b.layout.Visible(s)
	for i := a; i <= z; i++ {
		if b.env.residencyAt(i) == nil {
			return false
		}
	}
	return true
}

// resizing reports whether the content changed size since the host last
// measured it: a size notification waits for its geometry commit, or a
// mounted root's live border box (one batched read) differs from the size
// the layout holds, because the notification has not been delivered yet.
// Such a root is then notified here, as OnResize would: the adapter drops a
// later notification whose box is the one this read saw.
func (b *bounded) resizing() bool {
	if len(b.dirty) > 0 {
		return true
	}
	rs := b.env.mountedRoots()
	reads := make([]sizeRead, len(rs))
	for i, r := range rs {
		reads[i] = b.qSize(r, false)
	}
	b.doc.Sync()
	for i, r := range rs {
		if resized(b.sizeOf(r, reads[i]), b.layout.Size(r.mesid)) {
			b.dirty[r.root] = true
		}
	}
	return len(b.dirty) > 0
}

// compensate keeps the content on screen still (C86, C89 as changed): a
// notified root wholly above the view at the live S that grew takes its
// new size in the layout last written at once, and S moves by the growth
// in the notification's frame, before paint, as the browser's own scroll
// anchoring would (off, C72). During a gesture nothing else would move it
// until the gesture ends; when settled, the geometry commit would, a frame
// later, after the jump was painted. The layout still describes the DOM, so
// that commit anchors where the user looks; the root stays notified, and
// the commit measures it (C85). A root that shrank waits for the commit:
// at the end of the content the browser has already clamped S by an amount
// this read cannot tell. rs, ascending, and sizes are the notified roots
// and their sizes; a root's end includes the growth taken above it.
func (b *bounded) compensate(rs []*residency, sizes []float64, s float64) {
	if !b.scrollStateLive() {
		return
	}
	// While a jump target is pinned (C86 as changed) it is what stays still:
	// every root before it counts, on screen or not.
	pinned := -1
	if b.pin.ok {
		if i, ok := b.env.indexOf(b.pin.key); ok {
			pinned = i
		}
	}
	d := 0.0
	for i, r := range rs {
		above := b.layout.End(r.mesid) <= s+d
		if pinned >= 0 {
			above = r.mesid < pinned
		}
		if sizes[i] <= b.layout.Size(r.mesid)+sizeSlack || !above {
			continue
		}
		d += sizes[i] - b.layout.Size(r.mesid)
		b.layout.SetSize(r.mesid, sizes[i])
	}
	if d != 0 {
		b.writeScroll(s + d)
	}
}

// atLiveEnd reports S + H ≥ scrollHeight − slack on a live read.
func atLiveEnd(v View, slack float64) bool { return v.S+v.H >= v.ScrollHeight-slack }

// endGesture is the end of a gesture (C87, C88, C89).
func (b *bounded) endGesture(read []float64) {
	if !b.gesture {
		return
	}
	if b.timerSet {
		b.timerSet = false
		b.env.clearTimeout(b.timer)
	}
	b.gesture = false
	// Decided from live measurements (C87 as changed): the layout last
	// written may predate content that shrank or grew.
	b.following = b.layout.Len() > 0 && atLiveEnd(b.liveScroll(read), followSlack)
	b.scheduleGeometry()
}

// liveScroll is the root's scroll view: the listener's read when it made
// one, else read now.
func (b *bounded) liveScroll(read []float64) View {
	if len(read) == 3 {
		return View{S: read[0], H: read[1], ScrollHeight: read[2]}
	}
	return b.doc.ScrollView(b.root)
}
