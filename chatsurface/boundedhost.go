package chatsurface

// hostBounded connects the bounded window to its host (boundedEnv).
type hostBounded struct{ h *Host }

func (e hostBounded) ids() []MessageID                  { return e.h.ids }
func (e hostBounded) indexOf(id MessageID) (int, bool)  { return e.h.index.get(id) }
func (e hostBounded) mounted() []*residency             { return e.h.mounted }
func (e hostBounded) residencyAt(mesid int) *residency  { return e.h.residencyAt(mesid) }
func (e hostBounded) structural() error                 { return e.h.structural() }
func (e hostBounded) requestFrame() (int, bool)         { return e.h.requestFrame() }
func (e hostBounded) cancelFrame(id int)                { e.h.cancelFrame(id) }
func (e hostBounded) setTimeout(ms float64) (int, bool) { return e.h.setTimeout(ms) }
func (e hostBounded) clearTimeout(id int)               { e.h.clearTimeout(id) }
func (e hostBounded) state() State                      { return e.h.state }
func (e hostBounded) setState(s State)                  { e.h.state = s }
func (e hostBounded) setDemand(d []int, suspended bool) error {
	return e.h.adm.setDemandInts(d, suspended)
}
func (e hostBounded) fail(err error) error { return e.h.fail(err) }

func (e hostBounded) commit(proj []int, replace map[int]bool, w *Window) error {
	return e.h.commit(proj, replace, w)
}

func (e hostBounded) placeRoots(children []Child, rs []*residency, before, after []Node) {
	e.h.placeRoots(children, rs, before, after)
}
