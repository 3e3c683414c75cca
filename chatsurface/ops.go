package chatsurface

import "tavern-core/jsvalue"

// RenderOptions are render()'s options: Replace lists mesids to cold-remount;
// First is static mode's range start (Undefined when absent; Str must hold
// String(first) when it is present).
type RenderOptions struct {
	Replace []int
	First   Value
	// Err is what reading replace gave instead of a list: the value a
	// getter threw, or ErrReplaceTooLong. It is thrown once the call's
	// C112a checks passed, as an argument error: it does not fault.
	Err error
	// Label is the operation C109 names, when not render: updateContent,
	// whose options threw (Err), runs only the checks.
	Label string
}

// ErrReplaceTooLong refuses a replace list longer than any chat[] the host
// takes (MaxMessages): the facade copied none of it, so nothing is sized by
// the length a host claimed.
func ErrReplaceTooLong(n float64) *Error {
	return errTooLong("render replace lists ", n, " mesids", MaxMessages)
}

// errTooLong refuses a host-given list of n entries over max.
func errTooLong(what string, n float64, entries string, max int) *Error {
	return newRangeError(CodeInvalidArgument, "ChatSurface "+what+jsNumber(n)+entries+"; the maximum is "+itoa(max))
}

// Open is open() (C92; static: render(), C142).
func (h *Host) Open() error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if !h.managed {
		return h.renderStatic(LabelOpen, RenderOptions{})
	}
	if err := h.begin(LabelOpen, true); err != nil {
		return err
	}
	defer h.end()
	return h.take(h.b.open())
}

// Render is render() (C93, C100).
func (h *Host) Render(o RenderOptions) error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if o.Label == "" {
		o.Label = LabelRender
	}
	if !h.managed {
		return h.renderStatic(o.Label, o)
	}
	if err := h.begin(o.Label, true); err != nil {
		return err
	}
	defer h.end()
	if o.Err != nil {
		return o.Err
	}
	if h.state == StateInactive {
		return h.take(h.b.open())
	}
	var replace map[int]bool
	for _, m := range o.Replace {
		if replace == nil {
			replace = map[int]bool{}
		}
		replace[m] = true
	}
	gesture := h.state == StateGestureScrolling
	return h.take(h.b.normalCommit(commitStructural, replace, gesture))
}

// renderStatic is C100.
func (h *Host) renderStatic(label string, o RenderOptions) error {
	if err := h.begin(label, true); err != nil {
		return err
	}
	defer h.end()
	if o.Err != nil {
		return o.Err
	}
	count, thrown := h.js.Count()
	if thrown != nil {
		return h.fail(thrown)
	}
	first := 0
	if o.First.Kind == jsvalue.Undefined {
		if len(h.mounted) > 0 {
			first = min(h.mounted[0].mesid, count)
		}
	} else {
		if !o.First.isInteger() || o.First.Num < 0 || o.First.Num > float64(count) {
			return newRangeError(CodeInvalidArgument, "ChatSurface static range start "+o.First.Str+
				" is outside [0, "+itoa(count)+"]")
		}
		first = int(o.First.Num)
	}
	if err := h.structural(); err != nil {
		return err
	}
	first = min(first, len(h.ids))
	proj := make([]int, 0, len(h.ids)-first)
	for i := first; i < len(h.ids); i++ {
		proj = append(proj, i)
	}
	replace := map[int]bool{}
	for _, m := range o.Replace {
		replace[m] = true
	}
	if err := h.commit(proj, replace, nil); err != nil {
		return h.take(err)
	}
	h.committed = true
	return h.take(nil)
}

// UpdateContent is updateContent(mesid, {transient}) (C51–C57). It returns
// whether the message was mounted.
func (h *Host) UpdateContent(mesid Value, transient bool) (bool, error) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if err := h.begin(LabelUpdateContent, true); err != nil {
		return false, err
	}
	defer h.end()
	if !mesid.isInteger() {
		return false, newTypeError(CodeInvalidArgument, "ChatSurface updateContent requires an integer mesid")
	}
	m := int(mesid.Num)
	if mesid.Num < 0 || mesid.Num > 1<<40 {
		m = -1
	}
	r := h.residencyAt(m)
	if r == nil {
		if m >= 0 {
			id, thrown := h.js.MessageAt(m)
			if thrown != nil {
				return false, h.fail(thrown)
			}
			if id != 0 {
				h.setTransient(id, transient)
				h.pump() // an aborted request frees the queue (C120)
			}
		}
		return false, nil
	}
	id, thrown := h.js.MessageAt(m)
	if thrown != nil {
		return false, h.fail(thrown)
	}
	if id != r.msg {
		return false, h.fail(newError(CodeOwnership, "ChatSurface message "+itoa(m)+" changed structure before content reconciliation"))
	}
	if !h.identityOK(r) {
		return false, h.fail(newError(CodeOwnership, "ChatSurface message "+itoa(m)+" DOM identity changed during content reconciliation"))
	}
	h.setTransient(r.msg, transient)
	return true, h.take(h.replaceContent(r, transient))
}

func (h *Host) setTransient(id MessageID, on bool) {
	if on {
		h.transient[id] = true
		h.abortTransient(id) // C55, C126
	} else {
		delete(h.transient, id)
	}
}

// replaceContent is C51 steps 2–7 (C54 on failure).
func (h *Host) replaceContent(r *residency, transient bool) error {
	html, thrown := h.js.FormatMessage(r.msg, r.mesid)
	if thrown != nil {
		return h.fail(thrown)
	}
	if err := h.afterCall(); err != nil {
		return err
	}
	h.page.contentStarted = true // C114
	// Step 3: transient, no processors, cached or pending (C122).
	p := prepared{ready: true}
	if !transient {
		base := html
		if h.processing() {
			base = h.normalizeIn(r, html) // as the processor cache compares it
		}
		var err error
		if p, err = h.processContent(r.msg, r.mesid, base); err != nil {
			return h.fail(err)
		}
	}
	err := h.swapContent(r, h.stage(r, html, p, transient))
	h.pump() // start the request this update queued (C120)
	return err
}

// staged is the new content of a mounted message (C51). It is built in a
// staging element (a childless shallow clone of the live .mes_text) only
// when prepareContent hooks are to see it before it is committed; any other
// new content has no observer before step 6, so it is written straight into
// the live .mes_text then, after the old content lease closed — the same
// content, without a clone and a move of every node (docs/chatsurface.md).
type staged struct {
	prepared bool
	node     Node   // the staging element, or 0
	html     string // the content's HTML (written at step 6 when node is 0)
	busy     int8   // aria-busy at step 6 when node is 0: -1 removed, 1 "true", 0 kept
}

// stage is C51's step 2 for r: html is the host's formatted HTML and p the
// content preparation's decision (step 3).
func (h *Host) stage(r *residency, html string, p prepared, transient bool) staged {
	s := staged{prepared: p.ready && !transient, html: html, busy: -1}
	if !transient {
		s.html, s.busy = p.content(html)
	}
	if s.prepared && h.reg.preparers() > 0 {
		d := h.doc
		s.node = d.Clone(r.content)
		d.SetHTML(s.node, s.html)
		if s.busy < 0 {
			d.RemoveAttr(s.node, NameAriaBusy)
		}
	}
	return s
}

// commitTo is C51 step 6: the new content goes into the live .mes_text,
// whose identity never changes.
func (s staged) commitTo(d *Doc, content Node) {
	if s.node != 0 {
		d.Swap(s.node, content)
		d.Release(s.node)
		return
	}
	d.SetHTML(content, s.html)
	setBusy(d, content, s.busy)
}

// swapContent is C51 steps 4–7 for new content s: prepareContent when it is
// staged, the lease swap, the DOM swap, didCommitContent and candidates (C54
// on failure). Content that is neither prepared nor transient is pending
// (C124).
func (h *Host) swapContent(r *residency, s staged) error {
	d := h.doc
	lease := newLease(h.js)
	var claims []*claim
	fail := func(reason string, err error) error {
		_ = lease.Close(reason)
		h.releaseClaims(claims)
		if s.node != 0 {
			d.Release(s.node)
		}
		return h.fail(err)
	}
	if s.node != 0 {
		// Its own list: the one prepareContent fills lives on the heap, and
		// content without preparers (most updates) needs none.
		got := new([]*claim)
		owners := map[Node]*Participant{}
		for _, p := range h.reg.list {
			if p.PrepareContent == 0 {
				continue
			}
			if err := h.prepareContent(p, r.mesid, s.node, owners, got); err != nil {
				claims = *got
				return fail(ReasonContentPreparation, err)
			}
		}
		claims = *got
		// C40: only a prepareContent hook sees the staging element.
		if err := h.checkDetachedItems([]detached{{content: s.node, claims: claims}}); err != nil {
			return fail(ReasonContentPreparation, err)
		}
	}
	prepared := s.prepared
	old := r.lease
	if err := old.Close(ReasonContentUpdate); err != nil {
		return fail(ReasonContentCommit, err)
	}
	s.commitTo(d, r.content)
	r.lease, r.claims, r.cands, r.prepared = lease, claims, nil, prepared
	r.pending = !prepared && !h.transient[r.msg]
	if h.managed && h.b.marked && !h.transient[r.msg] {
		h.b.contentReplaced() // (streamed text only grows: not told)
	}
	if prepared {
		for _, p := range h.reg.list {
			if p.DidCommit != 0 {
				if err := h.connected(p, p.DidCommit, "didCommitContent", r, lease); err != nil {
					return h.fail(err)
				}
			}
		}
		for _, p := range h.reg.list {
			for _, c := range claims {
				if c.p == p {
					if err := h.registerCandidate(r, c); err != nil {
						return h.fail(err)
					}
				}
			}
		}
	}
	if err := h.verifyOwnership(); err != nil {
		return h.fail(err)
	}
	return nil
}

// JumpToMessage is jumpToMessage(t) (C94). It returns t's root.
func (h *Host) JumpToMessage(t Value) (Node, error) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if err := h.begin(LabelJump, true); err != nil {
		return 0, err
	}
	defer h.end()
	n, err := h.jump(t)
	if err = h.take(err); err != nil {
		return 0, err
	}
	return n, nil
}

func (h *Host) jump(t Value) (Node, error) {
	if !h.managed {
		return 0, newError(CodeState, "Bounded ChatSurface is not active")
	}
	count, thrown := h.js.Count()
	if thrown != nil {
		return 0, h.fail(thrown)
	}
	if !t.isInteger() || t.Num < 0 || t.Num >= float64(count) {
		return 0, newRangeError(CodeInvalidArgument, "Chat virtualizer target "+t.Str+" is outside the structure")
	}
	m := int(t.Num)
	if h.b.held && h.residencyAt(m) == nil {
		return 0, newError(CodeState, "Bounded ChatSurface cannot leave an active message editor")
	}
	b := &h.b
	if h.state == StateInactive {
		if err := b.open(); err != nil {
			return 0, err
		}
	}
	if m >= len(h.ids) { // chat[] grew without render(): the structure has no t
		return 0, newRangeError(CodeInvalidArgument, "Chat virtualizer target "+t.Str+" is outside the structure")
	}
	h.state = StateJumping
	b.following = false // step 5 decides; a following commit would leave t
	b.pin = anchor{}    // this jump's S anchors its commits (C94 step 3)
	if err := b.forcedCommit(m, false); err != nil {
		return 0, err
	}
	b.writeScrollFirst(b.layout.JumpScroll(m))
	if err := b.normalCommit(commitPlain, nil, false); err != nil {
		return 0, err
	}
	r := h.residencyAt(m)
	if r == nil {
		return 0, h.fail(newError(CodeState, "Bounded ChatSurface jump did not mount message "+itoa(m)))
	}
	rb, rv, rs := h.doc.QRect(r.root), h.doc.QRect(h.root), h.doc.QScroll(h.root)
	h.doc.Sync()
	if b.layout.Metrics().Height > 0 {
		box, view := h.doc.RectOf(rb), h.doc.RectOf(rv)
		if !(box.Top < view.Bottom && box.Bottom > view.Top) {
			return 0, h.fail(newError(CodeState, "Bounded ChatSurface jump target "+itoa(m)+" is outside the viewport"))
		}
	}
	s := h.doc.F(rs, 0)
	b.following = b.layout.Following(s)
	b.pin = anchor{}
	if !b.following {
		b.pin = anchor{ok: true, key: r.msg, offset: s - b.layout.Start(m)}
	}
	h.state = StateSettled
	return r.root, nil
}

// ScrollToEnd is scrollToEnd() (C95, C102).
func (h *Host) ScrollToEnd() error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if err := h.begin(LabelScrollToEnd, true); err != nil {
		return err
	}
	defer h.end()
	if !h.managed {
		h.doc.SetScroll(h.root, h.doc.View(h.root).ScrollHeight)
		return nil
	}
	b := &h.b
	if h.state == StateInactive {
		return nil
	}
	b.readMetrics()
	b.writeScrollFirst(b.layout.MaxScroll())
	b.following = true
	b.pin = anchor{}
	return h.take(b.normalCommit(commitPlain, nil, false))
}

// SetProjectionHeld is setProjectionHeld(held) (C96); held is the argument's
// truthiness.
func (h *Host) SetProjectionHeld(held bool) error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if err := h.begin("", true); err != nil {
		return err
	}
	if !h.managed {
		return nil
	}
	b := &h.b
	b.held = held
	if !held && b.owed {
		b.owed = false
		b.scheduleGeometry()
	}
	return h.take(nil)
}

// RefreshLayout is refreshLayout() (C97).
func (h *Host) RefreshLayout() error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if err := h.begin("", true); err != nil {
		return err
	}
	if !h.managed || h.state == StateInactive {
		return nil
	}
	h.b.refresh = true
	h.b.scheduleGeometry()
	return h.take(nil)
}

// Frame delivers an animation frame requested through Scheduler.RequestFrame.
// Geometry and admission frames run C112a checks 2–4 and do nothing on a
// faulted epoch; their errors reach JS only through onFault (C67, C79).
func (h *Host) Frame(id int) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed {
		return
	}
	switch {
	case h.b.geomScheduled && id == h.b.geomFrame:
		if !h.b.frameStarts() {
			return // asked for by contentReplaced alone
		}
		if h.managed && h.b.marked && h.fault == nil && h.label == "" && h.b.geometryCommitsNormally() {
			h.b.queueFirst() // answered with C112a's check below
		}
		defer h.b.dropFirst() // unused if the frame did not commit
		if h.begin(LabelGeometryFrame, true) != nil {
			return
		}
		defer h.end()
		if err := h.b.geometryFrame(); err != nil {
			h.setFault(err)
		}
	case h.adm.scheduled && id == h.adm.frame:
		if h.managed && h.fault == nil {
			if moved, _ := h.b.movedUnseen(func() View { return h.doc.ScrollView(h.b.root) }); moved {
				// The view moved: its geometry commit sends demand again,
				// and grants resume from there (none while a gesture lasts).
				h.adm.scheduled = false
				h.b.scheduleGeometry()
				return
			}
		}
		if h.begin(LabelAdmission, true) != nil {
			h.adm.scheduled = false
			return
		}
		defer h.end()
		if err := h.adm.Frame(); err != nil {
			h.setFault(err)
		}
	}
}

// Timer delivers a timeout requested through Scheduler.SetTimeout.
func (h *Host) Timer(id int) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed || !h.b.timerSet || id != h.b.timer {
		return
	}
	h.b.timerSet = false
	if h.fault == nil {
		h.b.endGesture(nil)
	}
}

// OnScroll is the root's scroll event (C88).
func (h *Host) OnScroll() { h.ScrollEvent(false, nil) }

// OnScrollEnd is the root's scrollend event (C88).
func (h *Host) OnScrollEnd() { h.ScrollEvent(true, nil) }

// ScrollEvent is a scroll (end false) or scrollend notification. read, when
// it has three values, is the root's scrollTop, clientHeight and
// scrollHeight as the listener read them first thing: the core's own first
// read, without a crossing for it. Otherwise the core reads them itself.
func (h *Host) ScrollEvent(end bool, read []float64) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed || h.fault != nil || !h.managed {
		return
	}
	if end {
		h.b.endGesture(read)
	} else {
		h.b.gestureNotice(read)
	}
}

// OnResize is the ResizeObserver callback for mounted roots (C85).
func (h *Host) OnResize(roots []Node) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed || h.fault != nil || !h.managed {
		return
	}
	b := &h.b
	var rs []*residency
	var boxes []sizeRead
	for _, n := range roots {
		if n == b.root && b.scrollStateLive() {
			// The surface root itself: its height is C80's H, read afresh by
			// the geometry commit (the view follows or keeps its anchor).
			b.scheduleGeometry()
		}
	}
	for _, r := range h.mounted { // ascending, as compensate needs
		for _, n := range roots {
			if r.root == n {
				rs = append(rs, r)
				boxes = append(boxes, b.qSize(r, false))
				break
			}
		}
	}
	if len(rs) == 0 {
		return
	}
	view := h.doc.QScroll(b.root)
	h.doc.Sync()
	sizes := make([]float64, len(rs))
	for i, r := range rs {
		sizes[i] = b.sizeOf(r, boxes[i])
		if resized(sizes[i], b.layout.Size(r.mesid)) {
			b.dirty[r.root] = true
			b.scheduleGeometry()
		}
	}
	b.compensate(rs, sizes, h.doc.F(view, 0))
}

// OnMutation is the surface root's MutationObserver callback (C79, C101).
// A difference found here faults through onFault.
func (h *Host) OnMutation() {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed || h.fault != nil {
		return
	}
	if h.managed {
		if h.b.marked && h.label == "" {
			_ = h.verifyProjection()
		}
		return
	}
	if h.begin(LabelExternalRemove, false) != nil {
		return
	}
	defer h.end()
	_ = h.absorbRemovals()
}
