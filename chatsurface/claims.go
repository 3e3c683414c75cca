package chatsurface

// claim is one successful claims.claim(source, activate) (C37).
type claim struct {
	p        *Participant
	source   Node
	activate Ref
}

// claimSet is the state behind one claims object: valid only while its
// prepareContent call runs (C36). owners is shared by every participant's
// set for the same content, for the duplicate check.
type claimSet struct {
	p       *Participant
	content Node
	owners  map[Node]*Participant
	out     *[]*claim
}

// LateClaim is C36's error for participant's claims object used after its
// prepareContent call returned: on its host, or once that host is gone.
func (p *Page) LateClaim(participant int32) error {
	pid := ""
	if int(participant) < len(p.Registry.list) {
		pid = p.Registry.list[participant].ID
	}
	return newError(CodeContract, "ChatSurface participant "+pid+" claimed a runtime after prepareContent returned")
}

// Claim is claims.claim(source, activate) (C36, C37). source is 0 when the
// argument is not a Node; activate is 0 when it is not a function. Errors are
// thrown to the caller; none faults by itself.
func (h *Host) Claim(id ClaimsID, source Node, activate Ref) error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	cs := h.openClaim[id]
	if cs == nil {
		h.releaseClaimArgs(source, activate)
		return h.page.LateClaim(id.Participant)
	}
	pid := cs.p.ID
	isElem, inside := false, false
	if source != 0 && source != cs.content {
		n, c := h.doc.QNode(source), h.doc.QContains(cs.content, source)
		h.doc.Sync()
		isElem, inside = h.doc.FlagsOf(n)&NodeElement != 0, h.doc.Bool(c)
	}
	if !isElem || !inside {
		h.releaseClaimArgs(source, activate)
		return newError(CodeContract, "ChatSurface participant "+pid+" must claim a descendant of message content")
	}
	if activate == 0 {
		h.releaseClaimArgs(source, 0)
		return newTypeError(CodeContract, "ChatSurface participant "+pid+" runtime activate must be a function")
	}
	if first := cs.owners[source]; first != nil {
		h.releaseClaimArgs(source, activate) // the first claim keeps its own hold
		return newError(CodeContract, "ChatSurface runtime source was claimed by both "+first.ID+" and "+pid)
	}
	cs.owners[source] = cs.p
	*cs.out = append(*cs.out, &claim{p: cs.p, source: source, activate: activate})
	return nil
}

func (h *Host) releaseClaimArgs(source Node, activate Ref) {
	if activate != 0 {
		h.js.Release(activate)
	}
	h.doc.Release(source)
}

// releaseClaims drops claims that never became candidates.
func (h *Host) releaseClaims(cs []*claim) {
	for _, c := range cs {
		h.releaseClaimArgs(c.source, c.activate)
	}
}

// prepareContent calls one participant's hook on detached content (C35–C38).
func (h *Host) prepareContent(p *Participant, mesid int, content Node, owners map[Node]*Participant, out *[]*claim) error {
	h.claimSeq++
	id := ClaimsID{Seq: h.claimSeq, Participant: int32(p.index)}
	h.openClaim[id] = &claimSet{p: p, content: content, owners: owners, out: out}
	ret, thrown := h.js.PrepareContent(p.PrepareContent, mesid, content, id)
	delete(h.openClaim, id)
	if ret.Ref != 0 {
		h.js.Release(ret.Ref)
	}
	if thrown != nil {
		return thrown
	}
	if err := h.afterCall(); err != nil {
		return err
	}
	switch ret.Kind {
	case KindUndefined:
		return nil
	case KindThenable:
		return newTypeError(CodeContract, "ChatSurface participant "+p.ID+".prepareContent must be synchronous")
	}
	return newTypeError(CodeContract, "ChatSurface participant "+p.ID+".prepareContent must not return a value")
}

// detached is one prepared content for C40: its root (0 for an
// updateContent staging element) and the parent it had before
// prepareContent (0: none).
type detached struct {
	root, content, parent Node
	claims                []*claim
}

// checkDetached is C40 for prepared roots, in one read.
func (h *Host) checkDetached(rs []*residency) error {
	items := make([]detached, len(rs))
	for i, r := range rs {
		items[i] = detached{r.root, r.content, r.parent, r.claims}
	}
	return h.checkDetachedItems(items)
}

func (h *Host) checkDetachedItems(items []detached) error {
	d := h.doc
	type reads struct{ content, root, first Read }
	rs := make([]reads, len(items))
	var src []Read
	for i, it := range items {
		rs[i].content = d.QNode(it.content)
		if it.root != 0 {
			rs[i].root, rs[i].first = d.QNode(it.root), d.QQuery(it.root, SelMesText)
		}
		for _, c := range it.claims {
			src = append(src, d.QNode(c.source), d.QContains(it.content, c.source))
		}
	}
	d.Sync()
	k := 0
	for i, it := range items {
		f := d.FlagsOf(rs[i].content)
		if f&NodeMesText == 0 || f&NodeConnected != 0 || d.NodeOf(rs[i].content) != it.parent ||
			(it.root != 0 && (d.NodeOf(rs[i].first) != it.content || d.NodeOf(rs[i].root) != 0)) {
			return newError(CodeOwnership, "ChatSurface participant changed detached content ownership")
		}
		for _, c := range it.claims {
			if d.FlagsOf(src[k])&NodeConnected != 0 || !d.Bool(src[k+1]) {
				return newError(CodeOwnership, "ChatSurface runtime source changed during preparation: "+c.p.ID)
			}
			k += 2
		}
	}
	return nil
}

// connected calls didMount or didCommitContent and adds its disposer to the
// lease (C42, C43).
func (h *Host) connected(p *Participant, hook Ref, name string, r *residency, l *Lease) error {
	ret, thrown := h.js.Connected(hook, r.mesid, r.root, r.content, l.Signal())
	if thrown != nil {
		return thrown
	}
	if err := h.afterCall(); err != nil {
		if ret.Ref != 0 {
			h.js.Release(ret.Ref)
		}
		return err
	}
	switch ret.Kind {
	case KindUndefined:
		return nil
	case KindThenable:
		return newTypeError(CodeContract, "ChatSurface participant "+p.ID+"."+name+" must return synchronously")
	case KindFunction, KindDisposable:
		return l.addRef(ret.Ref)
	}
	return newTypeError(CodeContract, "ChatSurface participant "+p.ID+"."+name+
		" must return a cleanup function, disposable object, or nothing")
}

// ownership is C45's queued read over every mounted root.
type ownership struct {
	rs   []*residency
	read Read
}

// queueOwnership queues C45's read for every mounted root.
func (h *Host) queueOwnership() ownership {
	d := h.doc
	o := ownership{rs: h.mounted, read: d.QOwnership(len(h.mounted))}
	for _, r := range h.mounted {
		d.OwnRoot(r.root, r.content, len(r.claims))
		for _, c := range r.claims {
			d.OwnSource(c.source)
		}
	}
	return o
}

// ownershipOK is C45 on that read.
func (h *Host) ownershipOK(o ownership) error {
	held, source := h.doc.Ownership(o.read)
	if held >= len(o.rs) {
		return nil
	}
	r := o.rs[held]
	if source {
		return newError(CodeOwnership, "ChatSurface message "+itoa(r.mesid)+" runtime source ownership diverged")
	}
	return newError(CodeOwnership, "ChatSurface message "+itoa(r.mesid)+" content ownership diverged")
}

// verifyOwnership is C45 for every mounted root, read now.
func (h *Host) verifyOwnership() error {
	o := h.queueOwnership()
	h.doc.Sync()
	if err := h.afterCall(); err != nil { // page code the batch ran (a custom element's reaction) faulted the epoch (C39, C109)
		return err
	}
	return h.ownershipOK(o)
}

// registerCandidates turns claims into candidates (C59): each adds an
// unregister entry to its content lease, after the didCommitContent
// disposers, so closing the lease revokes runtimes first (C47).
func (h *Host) registerCandidate(r *residency, c *claim) error {
	cand := &Candidate{Participant: c.p, Mesid: r.mesid, Source: c.source, activate: c.activate, res: r}
	lease := r.lease
	if err := lease.addFunc(func() error {
		err := h.adm.Unregister(cand)
		h.releaseClaimArgs(cand.Source, cand.activate)
		return err
	}); err != nil {
		return err
	}
	r.cands = append(r.cands, cand)
	return h.adm.Register(cand)
}
