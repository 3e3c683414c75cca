package chatsurface

import "testing"

// C2 (issue 13): the DOM boundary is crossed per step, not per node. A
// frame's geometry commit is at most six batches (the operation's C79 check,
// S and metrics, the children before the writes, the writes with the
// verification and measurement, the scroll write) however many roots it
// mounts.
func TestC2_BatchesPerFrame(t *testing.T) {
	h := openedHarness(t, 10000)
	for step := 1; step <= 20; step++ {
		h.dom.SetScrollTop(0, float64(1000000-step*40000))
		h.host.OnScroll()
		h.sch.fireTimers()
		for f := 0; len(h.sch.frames) > 0; f++ {
			before, mat := h.dom.batches, h.js.mat
			h.sch.frame()
			if n := h.dom.batches - before; n > 4 {
				t.Fatalf("step %d frame %d: %d batches for %d materialized roots", step, f, n, h.js.mat-mat)
			}
		}
	}
}

// A jump (C94) takes nine batches however many roots it mounts: the C112a
// check; the forced commit's metrics, children and DOM batch; the scroll
// write with the normal commit's first read; the normal commit's children,
// DOM batch and scroll write; and step 4's reads.
func TestC2_BatchesPerJump(t *testing.T) {
	h := openedHarness(t, 10000)
	for _, target := range []int{500, 7000, 20, 9990, 4321} {
		before := h.dom.batches
		if _, err := h.host.JumpToMessage(Num(float64(target))); err != nil {
			t.Fatal(err)
		}
		if n := h.dom.batches - before; n > 9 {
			t.Fatalf("jump to %d: %d batches", target, n)
		}
		h.sch.flush()
	}
}
