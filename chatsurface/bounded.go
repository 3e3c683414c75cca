package chatsurface

import "math"

// gestureSettle is the settle timer's delay (C88).
const gestureSettle = 150

// bounded is the windowing state of managed mode (C72–C98).
type bounded struct {
	layout      *Layout               // the layout last written (indices = h.ids)
	sizes       map[MessageID]float64 // measured sizes by mount key
	written     bool                  // a layout was written this epoch
	lastS       float64               // last written scroll position, read back
	following   bool
	held, owed  bool
	refresh     bool // a measurement refresh is due (C97)
	refreshRuns int  // measurement refreshes run this epoch (tests check C97's "exactly one")
	gesture     bool // a gesture lasts (settle timer running)
	marked      bool
	anchorStyle string

	geomScheduled bool
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
	pin anchor
}

func (b *bounded) reset() {
	*b = bounded{sizes: map[MessageID]float64{}, dirty: map[Node]bool{}, layout: NewLayout(nil, Metrics{})}
}

// stop cancels frames and the settle timer (C106, C112).
func (b *bounded) stop(h *Host) {
	if b.geomScheduled {
		b.geomScheduled = false
		h.cancelFrame(b.geomFrame)
	}
	if b.timerSet {
		b.timerSet = false
		h.clearTimeout(b.timer)
	}
	b.gesture = false
}

// mark is C72 at open.
func (b *bounded) mark(h *Host) {
	b.marked = true
	b.anchorStyle = h.doc.Style(h.root, NameOverflowAnchor)
	h.doc.SetAttr(h.root, NameSurface, "bounded")
	h.doc.SetAttr(h.root, NameBootstrap, "true")
	h.doc.SetStyle(h.root, NameOverflowAnchor, "none")
}

// unmark is C107 step 4 for the bounded parts.
func (b *bounded) unmark(h *Host) {
	for _, s := range [...]*Node{&b.top, &b.middle} {
		if *s != 0 {
			h.doc.Remove(*s, 0)
			h.doc.Release(*s)
			*s = 0
		}
	}
	if b.marked {
		h.doc.RemoveAttr(h.root, NameSurface)
		h.doc.RemoveAttr(h.root, NameBootstrap)
		h.doc.SetStyle(h.root, NameOverflowAnchor, b.anchorStyle)
		b.marked = false
	}
}

// restructure rebuilds the layout after a structural pass; sizes of keys
// that left chat[] are dropped (C85). O(count) numeric work only (C146).
func (b *bounded) restructure(h *Host) {
	sizes := make([]float64, len(h.ids))
	for i := range sizes {
		sizes[i] = EstimatedSize
	}
	// O(measured) lookups, not O(count): few messages have been measured.
	for id, s := range b.sizes {
		if i, ok := h.index.get(id); ok {
			sizes[i] = s
		} else {
			delete(b.sizes, id)
		}
	}
	b.layout = NewLayout(sizes, b.layout.Metrics())
}

// setMetrics takes Ps, Pe, G and H from a view read (C80, C90 step 2).
func (b *bounded) setMetrics(v View) {
	b.layout.SetMetrics(Metrics{PadTop: v.PadTop, PadBottom: v.PadBottom, Gap: v.Gap, Height: v.H})
}

// readMetrics reads them now.
func (b *bounded) readMetrics(h *Host) View {
	v := h.doc.View(h.root)
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

func (b *bounded) qSize(h *Host, r *residency, fresh bool) sizeRead {
	if fresh || !r.hasMargins {
		return sizeRead{h.doc.QBox(r.root), true}
	}
	return sizeRead{h.doc.QRect(r.root), false}
}

func (b *bounded) sizeOf(h *Host, r *residency, x sizeRead) float64 {
	rc := h.doc.RectOf(x.r)
	if x.box {
		r.margins, r.hasMargins = finite(h.doc.F(x.r, 2))+finite(h.doc.F(x.r, 3)), true
	}
	return finite(rc.Bottom - rc.Top + r.margins)
}

// queueMeasure queues C85's measurement of every mounted root; the reads
// ride with the batch that verifies a commit (verifyCommit).
func (b *bounded) queueMeasure(h *Host) {
	b.boxes, b.boxRoots = b.boxes[:0], b.boxRoots[:0]
	for _, r := range h.mounted {
		b.boxes = append(b.boxes, b.qSize(h, r, false))
		b.boxRoots = append(b.boxRoots, r)
	}
	b.measured = true
}

// measureMounted is C85 after a commit: cache every mounted root's size and
// schedule a geometry commit when one differs from the size used.
func (b *bounded) measureMounted(h *Host) {
	if !b.measured || len(b.boxRoots) != len(h.mounted) {
		b.queueMeasure(h)
		h.doc.Sync()
	}
	b.measured = false
	changed := false
	for i, r := range b.boxRoots {
		s := b.sizeOf(h, r, b.boxes[i])
		if s != b.layout.Size(r.mesid) {
			changed = true
			b.layout.SetSize(r.mesid, s)
		}
		b.sizes[r.msg] = s
	}
	if changed {
		b.scheduleGeometry(h)
	}
}

// queueDirty queues the boxes of roots whose size change was notified;
// applyDirty takes them into the layout inside a commit (C85).
func (b *bounded) queueDirty(h *Host) ([]*residency, []sizeRead) {
	if len(b.dirty) == 0 {
		return nil, nil
	}
	var rs []*residency
	var reads []sizeRead
	for _, r := range h.mounted {
		if b.dirty[r.root] {
			rs = append(rs, r)
			reads = append(reads, b.qSize(h, r, true))
		}
	}
	clear(b.dirty)
	return rs, reads
}

func (b *bounded) applyDirty(h *Host, rs []*residency, reads []sizeRead) {
	for i, r := range rs {
		if h.residencyAt(r.mesid) != r {
			continue // remounted by the structural pass
		}
		s := b.sizeOf(h, r, reads[i])
		b.layout.SetSize(r.mesid, s)
		b.sizes[r.msg] = s
	}
}

func (b *bounded) scheduleGeometry(h *Host) {
	if !b.geomScheduled {
		b.geomFrame, b.geomScheduled = h.requestFrame()
	}
}

// writeScroll assigns S and remembers the value read back (C88).
func (b *bounded) writeScroll(h *Host, s float64) {
	h.doc.SetScroll(h.root, s)
	b.lastS = h.doc.Scroll(h.root)
	b.written = true
}

// anchor is C86's captured anchor.
type anchor struct {
	ok     bool
	key    MessageID
	offset float64
}

// captureAnchor reads the live S and takes the anchor at it.
func (b *bounded) captureAnchor(h *Host) (anchor, float64) {
	s := h.doc.Scroll(h.root)
	return b.anchorAt(h, s), s
}

// anchorAt is C86's anchor at the live S in the last written layout; while
// a jump target is pinned it is the anchor.
func (b *bounded) anchorAt(h *Host, s float64) anchor {
	if !b.written || b.layout.Len() == 0 || b.layout.Len() != len(h.ids) {
		return anchor{}
	}
	if b.pin.ok {
		if _, ok := h.index.get(b.pin.key); ok {
			return b.pin
		}
		b.pin = anchor{}
	}
	a, _ := b.layout.Visible(s)
	return anchor{ok: true, key: h.ids[a], offset: s - b.layout.Start(a)}
}

// target is where the view should be: the end when following, else the
// anchor's restored position, else the clamped live S (C86, C87).
func (b *bounded) target(h *Host, an anchor, s float64) float64 {
	if b.following {
		return b.layout.MaxScroll()
	}
	if an.ok {
		if i, ok := h.index.get(an.key); ok {
			return b.layout.ClampScroll(b.layout.Start(i) + an.offset)
		}
	}
	return b.layout.ClampScroll(s)
}

// releasePin lets the jump target go once its content settled: no mounted
// message waits for a processor result and the last measurement changed
// nothing.
func (b *bounded) releasePin(h *Host) {
	if !b.pin.ok || b.geomScheduled {
		return
	}
	for _, r := range h.mounted {
		if r.pending {
			return
		}
	}
	b.pin = anchor{}
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
func (b *bounded) writeLayout(h *Host, w Window, rs []*residency, children []Child) error {
	if err := b.checkChildren(children); err != nil {
		return err
	}
	b.spacer(h, &b.top, SpacerTop, w.HasTop, w.Top)
	b.spacer(h, &b.middle, SpacerMiddle, w.HasMiddle, w.Middle)
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
	h.placeRoots(children, order, before, append(after, rootsOf(tail)...))
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

func (b *bounded) spacer(h *Host, n *Node, kind uint16, want bool, height float64) {
	if !want {
		if *n != 0 {
			h.doc.Remove(*n, 0)
			h.doc.Release(*n)
			*n = 0
		}
		return
	}
	if *n == 0 {
		*n = h.doc.Spacer(kind)
	} else if height == b.heights[kind] {
		return // the spacer already has this height
	}
	b.heights[kind] = height
	h.doc.Height(*n, height)
}

// sendDemand is C91 + C90 step 7.
func (b *bounded) sendDemand(h *Host, suspended bool) error {
	if b.committed && len(h.ids) > 0 {
		b.demand = b.layout.Demand(b.win, b.lastS)
	} else {
		b.demand = nil
	}
	if err := h.adm.setDemandInts(b.demand, suspended); err != nil {
		return h.fail(err)
	}
	return nil
}

// resendSuspended re-sends the last demand as suspended (C89, C96).
func (b *bounded) resendSuspended(h *Host) {
	_ = h.adm.setDemandInts(b.demand, true)
}

// commitKind says why a normal commit runs (C90).
type commitKind uint8

const (
	commitPlain      commitKind = iota // open, jump step 3, scrollToEnd, refresh
	commitStructural                   // render(): structural pass first
	commitGeometry                     // a geometry frame: may commit nothing
)

// normalCommit is C90.
func (b *bounded) normalCommit(h *Host, kind commitKind, replace map[int]bool, suspended bool) error {
	// Steps 1–2 in one read: the live S (for the anchor, before anything is
	// updated), the metrics and the notified roots' boxes.
	vr := h.doc.QView(h.root)
	dirty, boxes := b.queueDirty(h)
	h.doc.Sync()
	v := h.doc.ViewOf(vr)
	an := b.anchorAt(h, v.S)
	if kind == commitStructural {
		if err := h.structural(); err != nil {
			return err
		}
	}
	b.applyDirty(h, dirty, boxes)
	b.setMetrics(v)
	n := len(h.ids)
	w := Window{First: 0, Last: -1}
	if n > 0 {
		a, z := b.layout.Visible(b.target(h, an, v.S))
		w = b.layout.Plan(Normal(a, z, n))
	}
	proj := w.Mounted(n)
	if !(kind == commitGeometry && b.sameLayout(h, w, proj)) {
		if err := h.commit(proj, replace, &w); err != nil {
			return err
		}
	}
	b.hasViewport = true
	b.measureMounted(h)
	b.writeScroll(h, b.target(h, an, v.S))
	b.releasePin(h)
	return b.sendDemand(h, suspended)
}

func (b *bounded) sameLayout(h *Host, w Window, proj []int) bool {
	if !b.committed || len(proj) != len(h.mounted) || w.HasTop != b.win.HasTop || w.HasMiddle != b.win.HasMiddle ||
		(w.HasTop && w.Top != b.win.Top) || (w.HasMiddle && w.Middle != b.win.Middle) {
		return false
	}
	for i, m := range proj {
		if h.mounted[i].mesid != m || h.mounted[i].msg != h.ids[m] {
			return false
		}
	}
	return true
}

// forcedCommit is C83's forced mode (or tail-only when tailOnly): V set by
// mode, roots measured, S left to the caller.
func (b *bounded) forcedCommit(h *Host, center int, tailOnly bool) error {
	b.readMetrics(h)
	n := len(h.ids)
	w := Window{First: 0, Last: -1}
	if n > 0 {
		if tailOnly {
			w = b.layout.Plan(0, -1)
		} else {
			w = b.layout.Plan(Centered(center, n))
		}
	}
	if err := h.commit(w.Mounted(n), nil, &w); err != nil {
		return err
	}
	b.measureMounted(h)
	return nil
}

// open is C92 after the C112a checks.
func (b *bounded) open(h *Host) error {
	if h.state != StateInactive {
		return newError(CodeState, "Bounded ChatSurface cannot open from state "+string(h.state))
	}
	if n := h.doc.Query(h.root, SelShowMore); n != 0 {
		return h.fail(newError(CodeOwnership, "Bounded ChatSurface cannot adopt the static Show More control"))
	}
	b.mark(h)
	h.state = StateBootstrapping
	if err := h.structural(); err != nil {
		return err
	}
	if err := b.forcedCommit(h, 0, true); err != nil {
		return err
	}
	b.following = true
	b.writeScroll(h, b.layout.MaxScroll())
	for i := 0; i < 2; i++ {
		if err := b.normalCommit(h, commitPlain, nil, false); err != nil {
			return err
		}
	}
	h.doc.RemoveAttr(h.root, NameBootstrap)
	h.state = StateSettled
	return nil
}

// geometryFrame runs a scheduled geometry commit (C89, C90, C96, C97).
func (b *bounded) geometryFrame(h *Host) error {
	b.geomScheduled = false
	if h.state != StateSettled && h.state != StateGestureScrolling {
		return nil
	}
	if b.gesture {
		b.resendSuspended(h)
		return nil
	}
	if b.held {
		b.resendSuspended(h)
		b.owed = true
		return nil
	}
	var err error
	if b.refresh {
		err = b.measurementRefresh(h)
	} else {
		err = b.normalCommit(h, commitGeometry, nil, false)
	}
	if err != nil {
		return err
	}
	if h.state == StateGestureScrolling {
		h.state = StateSettled
	}
	return nil
}

// measurementRefresh is C97.
func (b *bounded) measurementRefresh(h *Host) error {
	b.refresh = false
	b.refreshRuns++
	an, s := b.captureAnchor(h)
	clear(b.sizes)
	clear(b.dirty)
	for _, r := range h.mounted {
		r.hasMargins = false // a width, font or theme change: margins too
	}
	h.doc.ForgetStyles()
	b.restructure(h)
	center := len(h.ids) - 1
	if an.ok {
		if i, ok := h.index.get(an.key); ok {
			center = i
		}
	}
	if len(h.ids) > 0 {
		if err := b.forcedCommit(h, center, false); err != nil {
			return err
		}
	}
	b.writeScroll(h, b.target(h, an, s))
	return b.normalCommit(h, commitPlain, nil, false)
}

// gestureNotice handles a scroll notification (C88, C89).
func (b *bounded) gestureNotice(h *Host) {
	if h.state != StateSettled && h.state != StateGestureScrolling {
		return
	}
	v := h.doc.ScrollView(h.root)
	s := v.S
	if math.Abs(s-b.lastS) <= 1.5 {
		return
	}
	// While following, an offset at the live end is the browser clamping
	// after the content shrank, not a gesture (C88 as changed): geometry
	// follows it, following stays on.
	if b.following && h.state == StateSettled && atLiveEnd(v, 1.5) {
		b.lastS = s
		b.scheduleGeometry(h)
		return
	}
	b.pin = anchor{}
	h.state = StateGestureScrolling
	b.gesture = true
	if b.timerSet {
		b.timerSet = false
		h.clearTimeout(b.timer)
	}
	b.timer, b.timerSet = h.setTimeout(gestureSettle)
	b.scheduleGeometry(h)
}

// atLiveEnd reports S + H ≥ scrollHeight − slack on a live read.
func atLiveEnd(v View, slack float64) bool { return v.S+v.H >= v.ScrollHeight-slack }

// endGesture is the end of a gesture (C87, C88, C89).
func (b *bounded) endGesture(h *Host) {
	if !b.gesture {
		return
	}
	if b.timerSet {
		b.timerSet = false
		h.clearTimeout(b.timer)
	}
	b.gesture = false
	// Decided from live measurements (C87 as changed): the layout last
	// written may predate content that shrank or grew.
	b.following = b.layout.Len() > 0 && atLiveEnd(h.doc.ScrollView(h.root), followSlack)
	b.scheduleGeometry(h)
}
