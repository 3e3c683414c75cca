package chatsurface

// hostAdmission connects the admission component to the DOM and JS (C63, C67).
type hostAdmission struct{ h *Host }

func (e hostAdmission) requestFrame() (int, bool) { return e.h.requestFrame() }
func (e hostAdmission) cancelFrame(id int)        { e.h.cancelFrame(id) }

// live is C67's liveness check.
func (h *Host) live(c *Candidate) bool {
	r, d := c.res, h.doc
	if r == nil || r.lease.Closed() {
		return false
	}
	n, a, q := d.QNode(r.root), d.QAttr(r.root, NameMesid), d.QQuery(r.root, SelMesText)
	src, in := d.QNode(c.Source), d.QContains(r.content, c.Source)
	d.Sync()
	v, ok := d.AttrOf(a)
	return d.NodeOf(n) == h.root && ok && isDecimal(v, r.mesid) && d.NodeOf(q) == r.content &&
		d.FlagsOf(src)&NodeConnected != 0 && d.Bool(in)
}

// grant is C67.
func (e hostAdmission) grant(c *Candidate) error {
	h := e.h
	pid := c.Participant.ID
	notLive := func() error { return newError(CodeOwnership, "ChatSurface runtime source is not live: "+pid) }
	if !h.live(c) {
		return notLive()
	}
	r := c.res
	l := newLease(h.js)
	ret, thrown := h.js.Activate(c.activate, c.Source, r.mesid, r.root, r.content, l.Signal())
	var err error
	switch {
	case thrown != nil:
		err = causedError(CodeContract, "ChatSurface runtime activation failed: "+pid, thrown)
	case h.fault != nil:
		err = errFaulted(h.fault) // C39
	case ret.Kind == KindThenable:
		err = newTypeError(CodeContract, "ChatSurface runtime "+pid+" must return synchronously")
	case ret.Kind == KindUndefined:
		err = newError(CodeContract, "ChatSurface runtime "+pid+" must return a disposable")
	case ret.Kind == KindOther:
		err = newTypeError(CodeContract, "ChatSurface runtime "+pid+" must return a cleanup function, disposable object, or nothing")
	}
	if err == nil {
		if ret.Ref != 0 {
			err = l.addRef(ret.Ref)
		}
		if err == nil && !h.live(c) {
			err = notLive()
		}
	} else if ret.Ref != 0 {
		h.js.Release(ret.Ref)
	}
	if err != nil {
		_ = l.Close(ReasonActivationFailed) // the activation error is the one reported
		return err
	}
	c.lease = l
	return nil
}

func (e hostAdmission) revoke(c *Candidate, reason string) error {
	l := c.lease
	c.lease = nil
	if l == nil {
		return nil
	}
	return l.Close(reason)
}

// order is C63's box ordering: gap to the root's box, then centre distance,
// then demand order (the stable sort keeps it).
func (e hostAdmission) order(list []*Candidate) ([]*Candidate, error) {
	h := e.h
	rr := h.doc.QRect(h.root)
	hosts := make([]Read, len(list))
	for i, c := range list {
		hosts[i] = h.doc.QHostRect(c.Source)
	}
	h.doc.Sync()
	root := h.doc.RectOf(rr)
	rc := (root.Top + root.Bottom) / 2
	type keyed struct {
		c         *Candidate
		gap, dist float64
	}
	ks := make([]keyed, len(list))
	for i, c := range list {
		box, ok := h.doc.HostRectOf(hosts[i])
		if !ok {
			return nil, newError(CodeOwnership, "ChatSurface runtime host is missing: "+c.Participant.ID)
		}
		gap := max(root.Top-box.Bottom, box.Top-root.Bottom, 0)
		d := (box.Top+box.Bottom)/2 - rc
		if d < 0 {
			d = -d
		}
		ks[i] = keyed{c, gap, d}
	}
	// A stable insertion sort: the list is the demanded candidates (a few
	// dozen), and a generic sort costs the module ~10 KB.
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && (ks[j].gap < ks[j-1].gap || ks[j].gap == ks[j-1].gap && ks[j].dist < ks[j-1].dist); j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	out := make([]*Candidate, len(ks))
	for i, k := range ks {
		out[i] = k.c
	}
	return out, nil
}
