package chatsurface

import "testing"

// C2 (issue 13): the DOM boundary is crossed per step, not per node. A
// frame's geometry commit is at most six batches (the operation's C79 check,
// S and metrics, the children before the writes, the writes with the
// verification and measurement, the scroll write) however many roots it
// mounts.
func TestC2_BatchesPerFrame(t *testing.T) {
	h := managedHarness(t, 10000)
	h.create()
	h.open()
	h.sch.flush()
	for step := 1; step <= 20; step++ {
		h.dom.SetScrollTop(0, float64(1000000-step*40000))
		h.host.OnScroll()
		h.sch.fireTimers()
		for f := 0; len(h.sch.frames) > 0; f++ {
			before, mat := h.dom.batches, h.js.mat
			h.sch.frame()
			if n := h.dom.batches - before; n > 6 {
				t.Fatalf("step %d frame %d: %d batches for %d materialized roots", step, f, n, h.js.mat-mat)
			}
		}
	}
}
