package chatsurface

import (
	"slices"
	"testing"
)

// nestingDOM answers every DomReadHTML with "n<node>", and on its first
// batch runs page code that queues and syncs a batch of its own, as a
// custom element's connectedCallback calling the host does.
type nestingDOM struct {
	got    [][]uint16
	inner  func()
	innerR Read
}

func (f *nestingDOM) Apply(cmd []uint16) ([]uint16, *JSValue) {
	f.got = append(f.got, slices.Clone(cmd))
	if inner := f.inner; inner != nil {
		f.inner = nil
		inner()
	}
	var out []uint16
	for p := 0; p < len(cmd); {
		op := cmd[p]
		n := Node(int32(uint32(cmd[p+1]) | uint32(cmd[p+2])<<16))
		p += 3
		switch op {
		case DomReadHTML:
			s := "n" + itoa(int(n))
			out = append(out, uint16(len(s)), 0)
			for _, c := range s {
				out = append(out, uint16(c))
			}
		case DomRemove:
			p += 2
		}
	}
	return out, nil
}

// C33/C109 (issue 13): a Sync made while a batch is in flight sends only
// what was queued since: the batch in flight is not applied twice, and both
// batches' reads answer with their own results.
func TestSyncNestedInABatchSendsOnlyItsOwn(t *testing.T) {
	f := &nestingDOM{}
	d := newDoc(f, nil)
	d.Remove(7, 0)
	outer := d.QHTML(8)
	var innerHTML string
	f.inner = func() {
		f.innerR = d.QHTML(9)
		d.Sync()
		innerHTML = d.Str(f.innerR)
	}
	d.Sync()
	if len(f.got) != 2 {
		t.Fatalf("batches applied: %d, want 2 (the outer once, the inner once)", len(f.got))
	}
	if want := []uint16{DomRemove, 7, 0, 0, 0, DomReadHTML, 8, 0}; !slices.Equal(f.got[0], want) {
		t.Fatalf("outer batch %v, want %v", f.got[0], want)
	}
	if want := []uint16{DomReadHTML, 9, 0}; !slices.Equal(f.got[1], want) {
		t.Fatalf("nested batch %v, want only its own read %v", f.got[1], want)
	}
	if innerHTML != "n9" || d.Str(outer) != "n8" {
		t.Fatalf("reads answered %q and %q, want n9 (nested) and n8 (outer)", innerHTML, d.Str(outer))
	}
	if !d.b.Empty() || len(d.b.cmd) != 0 || len(d.b.reads) != 0 {
		t.Fatalf("batch not reset after the outer Sync: %d units, %d reads", len(d.b.cmd), len(d.b.reads))
	}
	d.QHTML(10)
	d.Sync()
	if want := []uint16{DomReadHTML, 10, 0}; !slices.Equal(f.got[2], want) {
		t.Fatalf("next batch %v, want %v", f.got[2], want)
	}
}
