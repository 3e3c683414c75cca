package protocol

import (
	"flag"
	"os"
	"testing"

	"tavern-core/takeover"
	"tavern-core/takeover/editops"
)

var update = flag.Bool("update", false, "rewrite js/protocol.js from Groups")

const jsPath = "../js/protocol.js"

// js/protocol.js is exactly what Groups renders: no number is copied by hand.
func TestJSProtocolIsGenerated(t *testing.T) {
	want := JS()
	if *update {
		if err := os.WriteFile(jsPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(jsPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run `go test ./protocol -update`", jsPath)
	}
}

// Names and values are unique within a group, so a lookup either way is
// unambiguous.
func TestGroupsAreUnambiguous(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range Groups() {
		if seen[g.Name] {
			t.Fatalf("group %s twice", g.Name)
		}
		seen[g.Name] = true
		names, values := map[string]bool{}, map[int]string{}
		for _, e := range g.Entries {
			if names[e.Name] {
				t.Fatalf("%s.%s twice", g.Name, e.Name)
			}
			names[e.Name] = true
			if other, ok := values[e.Value]; ok && !g.Layout {
				t.Fatalf("%s.%s and %s.%s share %d", g.Name, e.Name, g.Name, other, e.Value)
			}
			values[e.Value] = e.Name
		}
	}
}

// An edit's target is also the handle field the facade writes it to.
func TestEditTargetsAreFields(t *testing.T) {
	if int(editops.Text) != int(takeover.Text) || int(editops.Reasoning) != int(takeover.Reasoning) {
		t.Fatal("editops.Target and takeover.Field disagree on text and reasoning")
	}
}
