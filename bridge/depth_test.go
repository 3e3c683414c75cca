package bridge

import "testing"

// call stands for an export: it enters, runs body, and exits.
func call(body func()) (st int32) {
	if !Enter() {
		return Failed
	}
	defer Exit(&st)
	body()
	return OK
}

// T45: calls may nest MaxDepth deep; the next one is refused with
// reentry_too_deep before its body runs, and the count recovers as calls
// return, panics included.
func TestDepthGuardRefusesPastMaxDepth(t *testing.T) {
	deepest := 0
	var refused int32
	var nest func(level int)
	nest = func(level int) {
		deepest = level
		if st := call(func() { nest(level + 1) }); st == Failed && refused == 0 {
			refused = int32(level + 1)
			if last == nil || last.Code != CodeTooDeep {
				t.Fatalf("error %v", last)
			}
			if d, _ := last.Details.Get("depth"); d.Num != MaxDepth {
				t.Fatalf("details %v", last.Details)
			}
			last = nil
		}
	}
	call(func() { nest(1) })
	if refused != MaxDepth+1 || deepest != MaxDepth {
		t.Fatalf("refused at %d, deepest body %d", refused, deepest)
	}
	if depth != 0 {
		t.Fatalf("depth %d after return", depth)
	}
	// A panicking call still leaves the count balanced.
	if st := call(func() { panic("boom") }); st != Failed || depth != 0 {
		t.Fatalf("st %d depth %d", st, depth)
	}
	last = nil
	if st := call(func() {}); st != OK {
		t.Fatal("the next call works")
	}
}
