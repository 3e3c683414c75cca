package chatsurface

// Tables reports the sizes of a host's per-epoch tables, for leak checks
// (issue 5: 1,000 open/scroll/reset cycles must leave nothing growing). It is
// a debugging aid for the bridge and tests, not part of the host API (C13).
type Tables struct {
	IDs, Index, Mounted, Transient, OpenClaims int
	Sizes, Dirty, Demand                       int
	Candidates, Desired, AdmissionDemand       int
	Layout                                     int
	Requests, Queue, Tokens                    int // content processors
}

// Tables returns the current table sizes.
func (h *Host) Tables() Tables {
	t := Tables{
		IDs: len(h.ids), Index: h.index.n, Mounted: len(h.mounted), Transient: len(h.transient),
		OpenClaims: len(h.openClaim),
		Sizes:      len(h.b.sizes), Dirty: len(h.b.dirty), Demand: len(h.b.demand),
	}
	if h.adm != nil {
		t.Candidates, t.Desired, t.AdmissionDemand = len(h.adm.cands), len(h.adm.isDesired), len(h.adm.demand)
	}
	t.Requests, t.Queue, t.Tokens = len(h.proc.cache), len(h.proc.queue), len(h.proc.tokens)
	if h.b.layout != nil {
		t.Layout = len(h.b.layout.size)
	}
	return t
}
