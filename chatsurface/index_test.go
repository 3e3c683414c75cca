package chatsurface

import "testing"

// C25, C4: the structure's index answers every id with its mesid and finds
// a repeated object, whether the ids are close together (the slice) or
// spread wide (the map), and a pass after a failed one starts clean.
func TestC25MessageIndexDenseAndSparse(t *testing.T) {
	cases := map[string][]MessageID{
		"consecutive": {5, 6, 7, 8, 9},
		"shuffled":    {9, 5, 8, 6, 7},
		"sparse":      {1, 1 << 30, 77, 1 << 20},
		"one":         {42},
	}
	for name, ids := range cases {
		var x messageIndex
		if d := x.build(ids); d != -1 {
			t.Fatalf("%s: duplicate at %d", name, d)
		}
		if x.n != len(ids) {
			t.Fatalf("%s: len %d", name, x.n)
		}
		for i, id := range ids {
			if got, ok := x.get(id); !ok || got != i {
				t.Fatalf("%s: get(%d) = %d, %v; want %d", name, id, got, ok, i)
			}
		}
		for _, id := range []MessageID{0, 4, 10, 1<<30 + 1, -1} {
			found := false
			for _, k := range ids {
				found = found || k == id
			}
			if _, ok := x.get(id); ok != found {
				t.Fatalf("%s: get(%d) found=%v", name, id, ok)
			}
		}
	}
	for name, ids := range map[string][]MessageID{"dense": {3, 4, 5, 4}, "sparse": {3, 1 << 30, 9, 1 << 30}} {
		var x messageIndex
		if d := x.build(ids); d != 3 {
			t.Fatalf("%s: duplicate at %d, want 3", name, d)
		}
		if x.n != 0 {
			t.Fatalf("%s: a failed pass leaves %d ids", name, x.n)
		}
		if _, ok := x.get(3); ok {
			t.Fatalf("%s: a failed pass leaves ids behind", name)
		}
		if d := x.build([]MessageID{4, 5}); d != -1 || x.n != 2 {
			t.Fatalf("%s: the next pass: %d, %d", name, d, x.n)
		}
		if i, ok := x.get(5); !ok || i != 1 {
			t.Fatalf("%s: the next pass: get(5) = %d, %v", name, i, ok)
		}
		if _, ok := x.get(3); ok {
			t.Fatalf("%s: the next pass still has 3", name)
		}
	}
	// A shorter chat after a long one reuses the room and keeps nothing.
	var x messageIndex
	long := make([]MessageID, 1000)
	for i := range long {
		long[i] = MessageID(100 + i)
	}
	x.build(long)
	x.build([]MessageID{150, 151})
	if _, ok := x.get(100); ok {
		t.Fatal("an id of the previous chat is still indexed")
	}
	if i, ok := x.get(151); !ok || i != 1 {
		t.Fatalf("get(151) = %d, %v", i, ok)
	}
}

// C4 (issue 13): a structural pass fills the previous pass's ids, and a
// disposed host's ids and index room serve the next host's passes, so
// opening a 10,000-message chat again allocates neither array. The answers
// stay those of fresh storage: every id maps to its mesid and a duplicate is
// still found.
func TestC4_StructuralPassReusesStorage(t *testing.T) {
	spareStructure.Store(nil)
	h := openedHarness(t, 10000)
	a := &h.host.ids[0]
	if err := h.host.structural(); err != nil {
		t.Fatal(err)
	}
	b := &h.host.ids[0]
	if err := h.host.structural(); err != nil {
		t.Fatal(err)
	}
	if b == a || &h.host.ids[0] != a {
		t.Fatal("a pass did not fill the storage of the pass before the last")
	}
	pos := &h.host.index.pos[0]
	if err := h.host.Dispose(); err != nil {
		t.Fatal(err)
	}
	h2 := &harness{t: t, dom: h.dom, js: h.js, sch: &fakeSched{}, page: h.page}
	h2.create()
	h2.open()
	if p := &h2.host.ids[0]; p != a && p != b {
		t.Fatal("the disposed host's ids were not reused")
	}
	if &h2.host.index.pos[0] != pos {
		t.Fatal("the disposed host's index room was not reused")
	}
	for i, m := range h.js.chat {
		if j, ok := h2.host.indexOf(m.id); !ok || j != i {
			t.Fatalf("message %d indexed at %d, %v", i, j, ok)
		}
	}
	h.js.chat[7] = h.js.chat[3]
	if err := h2.host.structural(); err == nil {
		t.Fatal("a duplicate in reused storage was not found")
	}
}
