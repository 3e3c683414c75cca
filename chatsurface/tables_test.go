package chatsurface

import "testing"

// C107/C32: a reset leaves no per-epoch table behind (the leak check's
// native half; js/test/chat-surface-leak.test.js runs 1,000 cycles).
func TestC107_ResetEmptiesTables(t *testing.T) {
	h := managedHarness(t, 100)
	h.create()
	for i := 0; i < 3; i++ {
		h.open()
		if tb := h.host.Tables(); tb.Mounted == 0 || tb.Sizes == 0 {
			t.Fatalf("open mounted nothing: %+v", tb)
		}
		if err := h.host.ResetEpoch(); err != nil {
			t.Fatal(err)
		}
		tb := h.host.Tables()
		if tb.Mounted+tb.Sizes+tb.Dirty+tb.Demand+tb.Candidates+tb.Desired+tb.AdmissionDemand+tb.OpenClaims+tb.Transient != 0 {
			t.Fatalf("cycle %d left tables: %+v", i, tb)
		}
	}
}
