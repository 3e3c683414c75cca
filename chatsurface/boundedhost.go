package chatsurface

// The Host's side of boundedEnv that is not already one of its methods
// (structural, commit, placeRoots, residencyAt, the scheduler and fail are).
// The Host is the env itself, not a wrapper of it: a wrapper type costs the
// page's module a method wrapper per call it forwards.

func (h *Host) messageIDs() []MessageID                 { return h.ids }
func (h *Host) indexOf(id MessageID) (int, bool)        { return h.index.get(id) }
func (h *Host) mountedRoots() []*residency              { return h.mounted }
func (h *Host) surfaceState() State                     { return h.state }
func (h *Host) setSurfaceState(s State)                 { h.state = s }
func (h *Host) setDemand(d []int, suspended bool) error { return h.adm.setDemandInts(d, suspended) }
