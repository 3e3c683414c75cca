package chatsurface

// structural is the structural pass over chat[] (C4, C25).
func (h *Host) structural() error {
	if h.ids == nil && h.idRoom == nil && h.index.pos == nil {
		if s := spareStructure.Swap(nil); s != nil {
			h.ids, h.idRoom, h.index.pos = s.ids[:0], s.room[:0], s.pos[:0]
		}
	}
	p := h.js.Messages(h.idRoom)
	if p.Thrown != nil {
		return h.fail(p.Thrown)
	}
	if p.Bad >= 0 {
		return h.fail(newTypeError(CodeInvalidArgument, "ChatSurface message at index "+itoa(p.Bad)+" must be an object"))
	}
	if p.Length > MaxMessages {
		return h.fail(newRangeError(CodeInvalidArgument, "ChatSurface chat has "+jsNumber(p.Length)+
			" messages; the maximum is "+itoa(MaxMessages)))
	}
	ids := p.IDs
	if h.index.build(ids) >= 0 {
		h.idRoom = ids[:0]
		return h.fail(newError(CodeProjection, "ChatSurface messages must not contain the same object more than once"))
	}
	// The last pass's ids are the next one's room: nothing keeps them (a
	// residency holds its id, the layout its sizes), and a pass of 10,000
	// messages then allocates nothing.
	h.ids, h.idRoom = ids, h.ids[:0]
	if h.managed {
		h.b.restructure()
	}
	return nil
}

// checkProjection is C27 on a projection the core computed itself: what
// ValidateProjection checks, with its errors, on integers that need no copy
// (a commit runs per frame).
func checkProjection(proj []int, count int) error {
	for _, p := range proj {
		if p < 0 || p >= count {
			return newRangeError(CodeProjection, "ChatSurface projection index "+itoa(p)+" is outside [0, "+itoa(count)+")")
		}
	}
	return checkOrder(proj)
}

// commit is the projection commit (C33). layout, in managed mode, writes the
// spacers and checks the root's children (C74–C78) as part of phase 8.
func (h *Host) commit(proj []int, replace map[int]bool, layout *Window) error {
	// Phase 1: abort requests whose object left its mesid (C126).
	h.abortMoved()
	err := h.commitPhases(proj, replace, layout)
	h.pump() // start the requests this commit queued (C120)
	return err
}

func (h *Host) commitPhases(proj []int, replace map[int]bool, layout *Window) error {
	if err := checkProjection(proj, len(h.ids)); err != nil {
		return h.fail(err)
	}
	if h.fastPath(proj, replace) {
		h.syncAttributes(h.mounted)
		if layout != nil {
			if err := h.b.writeLayout(*layout, h.mounted, h.doc.Children(h.root)); err != nil {
				return h.fail(err)
			}
		}
		return h.verifyCommit()
	}
	// A participant fault is permanent for the page (C23): a new host's
	// epoch meets it at its first non-empty projection, as C22's does.
	if len(proj) > 0 && (!h.reg.frozen || h.reg.fault != nil) {
		if err := h.reg.freeze(); err != nil {
			return h.fail(err)
		}
	}
	// Phase 4: retain or materialise, ascending.
	next := make([]*residency, 0, len(proj))
	var fresh []*residency
	for _, m := range proj {
		if r := h.residencyAt(m); r != nil && r.msg == h.ids[m] && !replace[m] {
			next = append(next, r)
			continue
		}
		r, err := h.materialize(m)
		if err != nil {
			return h.discard(fresh, ReasonMountPreparation, err)
		}
		next = append(next, r)
		fresh = append(fresh, r)
		for _, f := range fresh[:len(fresh)-1] {
			if f.root == r.root { // parentless until this commit places the first (C30)
				return h.discard(fresh, ReasonMountPreparation, errNotParentless())
			}
		}
	}
	// Phases 5–6: content preparation and prepareContent, participant-major.
	var prepared []*residency
	var owners map[*residency]map[Node]*Participant // only prepareContent claims (C37)
	if h.reg.preparers() > 0 {
		owners = map[*residency]map[Node]*Participant{}
	}
	for _, r := range fresh {
		if h.transient[r.msg] {
			continue // raw content, nothing else (C56)
		}
		pr, err := h.processContent(r.msg, r.mesid, r.html)
		if err != nil {
			return h.discard(fresh, ReasonMountPreparation, err)
		}
		pr.write(h.doc, r.content) // the root is still detached
		r.prepared, r.pending = pr.ready, !pr.ready
		if r.prepared {
			prepared = append(prepared, r)
			if owners != nil {
				owners[r] = map[Node]*Participant{}
			}
		}
	}
	for _, p := range h.reg.list {
		if p.PrepareContent == 0 {
			continue
		}
		for _, r := range prepared {
			if err := h.prepareContent(p, r.mesid, r.content, owners[r], &r.claims); err != nil {
				return h.discard(fresh, ReasonMountPreparation, err)
			}
		}
	}
	if h.reg.preparers() > 0 {
		if err := h.checkDetached(prepared); err != nil {
			return h.discard(fresh, ReasonMountPreparation, err)
		}
	}
	for _, r := range fresh {
		h.doc.Release(r.parent)
		r.parent, r.html = 0, ""
	}
	// Phase 7: close leaving roots, ascending: those of h.mounted not in
	// next (both ascend by mesid).
	var leaving []*residency
	j := 0
	for _, r := range h.mounted {
		for j < len(next) && next[j].mesid < r.mesid {
			j++
		}
		if j == len(next) || next[j] != r {
			leaving = append(leaving, r)
		}
	}
	var first error
	for _, r := range leaving {
		if err := h.closeResidency(r, ReasonProjectionUnmount); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return h.discard(fresh, ReasonProjectionCommit, first)
	}
	// Phase 8: the batched DOM commit, decided against one read of the
	// root's children (which is also C76's check).
	children := h.doc.Children(h.root)
	if layout != nil {
		if err := h.b.checkChildren(children); err != nil {
			return h.discard(fresh, ReasonProjectionCommit, err)
		}
	}
	for _, r := range leaving {
		h.doc.Remove(r.root, h.root)
		h.forget(r)
	}
	h.mounted = next
	h.syncAttributes(next)
	if layout != nil {
		if err := h.b.writeLayout(*layout, next, children); err != nil {
			return h.fail(err)
		}
	} else {
		h.placeRoots(children, next, nil, nil)
	}
	if h.managed {
		for _, r := range fresh {
			h.doc.Observe(r.root, true)
		}
	}
	// Phases 9–11.
	if err := h.mountHooks(fresh, prepared); err != nil {
		return h.fail(err)
	}
	return h.verifyCommit()
}

// mountHooks runs didMount, didCommitContent and candidate registration
// (C33 phases 9–11).
func (h *Host) mountHooks(fresh, prepared []*residency) error {
	for _, p := range h.reg.list {
		if p.DidMount == 0 {
			continue
		}
		for _, r := range fresh {
			if err := h.connected(p, p.DidMount, "didMount", r, r.mount); err != nil {
				return err
			}
		}
	}
	for _, p := range h.reg.list {
		if p.DidCommit == 0 {
			continue
		}
		for _, r := range prepared {
			if err := h.connected(p, p.DidCommit, "didCommitContent", r, r.lease); err != nil {
				return err
			}
		}
	}
	for _, p := range h.reg.list {
		for _, r := range prepared {
			for _, c := range r.claims {
				if c.p == p {
					if err := h.registerCandidate(r, c); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// verifyCommit is phase 12: C79 (managed) and C45, in one read. A bounded
// commit's measurement (C85, after the DOM batch and the hooks) is read with
// it and kept for measureMounted.
func (h *Host) verifyCommit() error {
	var ch Read
	bounded := h.managed && h.b.marked
	if bounded {
		ch = h.doc.QChildrenIfChanged(h.root)
	}
	own := h.queueOwnership()
	if h.managed {
		h.b.queueMeasure()
	}
	h.doc.Sync()
	// Every commit that succeeds ends here: page code that any of its
	// batches ran (a custom element's reaction to an insert or a removal)
	// may have faulted the epoch by calling the host (C109), and the
	// operation then stops, as after a hook (C39), instead of reporting
	// success over a faulted epoch.
	if err := h.afterCall(); err != nil {
		return err
	}
	if children, changed := h.doc.ChangedChildrenOf(ch); bounded && changed {
		if err := h.projectionOK(children); err != nil {
			return err
		}
	}
	if err := h.ownershipOK(own); err != nil {
		return h.fail(err)
	}
	return nil
}

// fastPath is C29: same mesids, same keys, no replacements.
func (h *Host) fastPath(proj []int, replace map[int]bool) bool {
	if len(replace) > 0 || len(proj) != len(h.mounted) {
		return false
	}
	for i, m := range proj {
		r := h.mounted[i]
		if r.mesid != m || r.msg != h.ids[m] {
			return false
		}
	}
	return true
}

// materialize makes a new root for mesid m with fresh leases (C30).
func (h *Host) materialize(m int) (*residency, error) {
	x, thrown := h.js.Materialize(h.ids[m], m, h.processing() && !h.transient[h.ids[m]])
	if thrown != nil {
		return nil, thrown
	}
	d := h.doc
	drop := func() { d.Release(x.Root); d.Release(x.Content); d.Release(x.ContentParent) }
	if err := h.afterCall(); err != nil { // materialize faulted the epoch (C39, C109)
		drop()
		return nil, err
	}
	if x.Root == 0 || !x.Mes {
		drop()
		return nil, newError(CodeContract, "ChatSurface materializer must return a .mes HTMLElement")
	}
	if !x.Parentless {
		drop()
		return nil, errNotParentless()
	}
	h.page.contentStarted = true // C114
	if x.Content == 0 {
		drop()
		return nil, newError(CodeContract, "ChatSurface message is missing .mes_text")
	}
	return &residency{msg: h.ids[m], mesid: m, root: x.Root, content: x.Content, parent: x.ContentParent,
		html: x.HTML, mount: newLease(h.js), lease: newLease(h.js)}, nil
}

// discard is C34's cleanup of new roots: leases closed in reverse order,
// failures swallowed so err is the one thrown.
func (h *Host) discard(fresh []*residency, reason string, err error) error {
	for i := len(fresh) - 1; i >= 0; i-- {
		r := fresh[i]
		_ = h.closeResidency(r, reason)
		h.releaseClaims(r.claims)
		r.claims = nil
		h.doc.Release(r.parent)
		h.doc.Release(r.content)
		h.doc.Release(r.root)
	}
	return h.fail(err)
}

// syncAttributes is C31 and C75 on every committed root, at every commit:
// mesid, #n, last_mes and the virtual index. A root whose values a commit
// already wrote gets them again, so a class or text foreign code changed is
// put back (C29: the fast path's last_mes sync); the adapter leaves a value
// that is already right untouched, so that costs reads, not writes.
func (h *Host) syncAttributes(rs []*residency) {
	t := len(h.ids) - 1
	for _, r := range rs {
		var f uint16
		if h.managed {
			f |= RootVirtual
		}
		if r.mesid == t {
			f |= RootLast
		}
		h.doc.RootAttrs(r.root, r.mesid, f)
	}
}

// placeRoots orders the host's nodes: before, the roots ascending, then
// after (spacers in managed mode, C78), given the root's children as read
// before this batch's writes. Only nodes out of place move, so retained
// roots keep their position and foreign children stay (C31).
func (h *Host) placeRoots(children []Child, rs []*residency, before, after []Node) {
	want := make([]Node, 0, len(rs)+len(before)+len(after))
	want = append(want, before...)
	for _, r := range rs {
		want = append(want, r.root)
	}
	want = append(want, after...)
	// The host's nodes as they are now, in DOM order. A bounded commit's
	// want holds at most 35 nodes (C73): a scan costs less than a map then.
	var mine map[Node]bool
	if len(want) > 64 {
		mine = make(map[Node]bool, len(want))
		for _, n := range want {
			mine[n] = true
		}
	}
	cur := make([]Node, 0, len(want))
	for _, c := range children {
		if (mine == nil && hasNode(want, c.Node)) || mine[c.Node] {
			cur = append(cur, c.Node)
		}
	}
	pos := func(n Node) int {
		for i, c := range cur {
			if c == n {
				return i
			}
		}
		return -1
	}
	next := Node(0)
	for i := len(want) - 1; i >= 0; i-- {
		n := want[i]
		p := pos(n)
		ok := p >= 0 && ((next == 0 && p == len(cur)-1) || (p+1 < len(cur) && cur[p+1] == next))
		if !ok {
			if p >= 0 {
				cur = append(cur[:p], cur[p+1:]...)
			}
			q := len(cur)
			if next != 0 {
				q = pos(next)
			}
			cur = append(cur, 0)
			copy(cur[q+1:], cur[q:])
			cur[q] = n
			h.doc.Insert(h.root, n, next)
		}
		next = n
	}
}

func hasNode(ns []Node, n Node) bool {
	for _, x := range ns {
		if x == n {
			return true
		}
	}
	return false
}

func errNotParentless() *Error {
	return newError(CodeContract, "ChatSurface materializer must return a parentless .mes element")
}
