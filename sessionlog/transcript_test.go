package sessionlog

import (
	"strings"
	"testing"
)

func rowsString(rows []Row) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Kind+" "+itoa(r.Seq))
	}
	return strings.Join(s, ",")
}

// C17, S30: rows of F; no row for the system message.
func TestC17_TranscriptF(t *testing.T) {
	got := rowsString(loadF(t).Transcript())
	if got != "user 2,context 3,assistant 6,tool 8,assistant 11,user 15,assistant 17" {
		t.Fatal(got)
	}
}

// C18, S30: a user message spliced next-step is a steering row.
func TestC18_Steering(t *testing.T) {
	l := load(t, "steering.jsonl", 0)
	wantSurface(t, l, 1, 2, 3, 6, 8, 10, 13)
	got := rowsString(l.Transcript())
	if got != "user 2,context 3,assistant 6,tool 8,steering 10,assistant 13" {
		t.Fatal(got)
	}
}

// C19, S30, S32: compaction keeps rows, adds a marker where the checkpoint
// stands, and the overlay marks the condensed prompt shadowed.
func TestC19_CompactionMarker(t *testing.T) {
	l := load(t, "compaction.jsonl", 0)
	wantSurface(t, l, 1, 22, 15, 17)
	got := rowsString(l.Transcript())
	if got != "user 2,context 3,assistant 6,tool 8,assistant 11,compaction-marker 22,user 15,assistant 17" {
		t.Fatal(got)
	}
	ov := l.Overlay(Env{})
	if r := ov.UserRows[0]; r.Seq != 2 || !r.Shadowed || r.Undoable || r.Regenerable {
		t.Fatalf("%+v", r)
	}
}

// C20, S32, S34, S87: the overlay of F, exactly.
func TestC20_StateF(t *testing.T) {
	ov := loadF(t).Overlay(Env{})
	jsonEq(t, ov, `{"compactionOpen":false,
	"userRows":[
	 {"seq":2,"id":"u1","liveSeq":2,"text":"q1","attachments":[],"edited":false,"undoable":false,"regenerable":false,"shadowed":false},
	 {"seq":15,"id":"u2","liveSeq":15,"text":"q2\nmore","attachments":[{"attachmentId":"img-A","kind":"image","name":"a.png","mediaType":"image/png"},{"attachmentId":"file-B","kind":"file","name":"b.txt"}],"edited":false,"undoable":false,"regenerable":true,"shadowed":false}],
	"assistantRows":[{"seq":6,"id":"a1","regenerable":false},{"seq":11,"id":"a2","regenerable":false},{"seq":17,"id":"a3","regenerable":true}],
	"hiddenSeqs":[]}`)
}

// S32, S34: a running agent or a pending wake makes nothing regenerable.
func TestS32_RegenerableNeedsIdle(t *testing.T) {
	l := loadF(t)
	for _, env := range []Env{{AgentRunning: true}, {WakePending: true}} {
		ov := l.Overlay(env)
		if ov.UserRows[1].Regenerable || ov.AssistantRows[2].Regenerable {
			t.Fatalf("%+v regenerable", env)
		}
	}
}

// S33: trigger rows are hidden, and so is everything a regenerate shadowed
// except the regenerated prompt itself; compaction hides nothing.
func TestS33_Hidden(t *testing.T) {
	l := load(t, "compaction.jsonl", 0)
	if h := l.Overlay(Env{}).HiddenSeqs; len(h) != 0 {
		t.Fatalf("compaction hid %v", h)
	}
}

// crash-and-resume fixture: the stale compaction start before a seed
// boundary holds no lock (S77), and the resumed turn is editable.
func TestS77_ResumeFixture(t *testing.T) {
	l := load(t, "resume.jsonl", 0)
	if l.CompactionOpen() {
		t.Fatal("lock held across end-seed")
	}
	ov := l.Overlay(Env{})
	last := ov.UserRows[len(ov.UserRows)-1]
	if last.ID != "u3" || !last.Regenerable {
		t.Fatalf("%+v", last)
	}
	got := rowsString(l.Transcript())
	if !strings.HasSuffix(got, "user 23,context 24,assistant 26") {
		t.Fatal(got)
	}
}
