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
