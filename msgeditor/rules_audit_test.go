package msgeditor

// Rules audit (spec/sessionlog.md §15): widget clauses no other test checks.

import (
	"os"
	"strings"
	"testing"

	"tavern-core/sessionlog"
	"tavern-core/sessionlog/route"
)

// auditRig is newRig over another log (the same real route handler).
func auditRig(t *testing.T, log string) *rig {
	t.Helper()
	l, err := sessionlog.DecodeBytes([]byte(log), sessionlog.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &fPort{s: &fSession{log: l, agent: &fAgent{status: "idle"}}, version: Version}
	r := &rig{t: t, w: New("sF"), port: p, h: route.New(p), override: map[string]func() (int, string){}}
	r.run(r.w.Refresh())
	return r
}

func auditFixture(t *testing.T, name string) string {
	b, err := os.ReadFile("../testdata/sessionlog/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// S90: the pencil is hidden while the row is shadowed (Fk: u1 is condensed
// by the checkpoint), and shown on a row still on the surface.
func TestS90_PencilHiddenWhileShadowed(t *testing.T) {
	r := auditRig(t, auditFixture(t, "compaction.jsonl"))
	if v := r.w.Row(2); v.Kind != UserRowKind || v.Pencil {
		t.Fatalf("shadowed row 2: %+v", v)
	}
	if v := r.w.Row(15); !v.Pencil {
		t.Fatalf("row 15: %+v", v)
	}
}

// S93: a chip is labelled with the attachment's name, else its media type,
// else its kind.
func TestS93_ChipLabelFallback(t *testing.T) {
	f := auditFixture(t, "f.jsonl")
	lines := strings.SplitAfter(f, "\n")
	log := strings.Join(lines[:16], "") +
		`{"type":"user/message","seq":15,"time":1,"data":{"id":"u2","role":"user","content":[{"type":"text","text":"q"},` +
		`{"type":"image","attachment":{"attachmentId":"img-N","mediaType":"image/gif","bytes":1,"width":1,"height":1}},` +
		`{"type":"file","attachment":{"attachmentId":"file-N","bytes":1}},` +
		`{"type":"image","attachment":{"attachmentId":"img-M","mediaType":"image/png","bytes":1,"width":1,"height":1,"name":"m.png"}}` +
		`],"source":{"kind":"user"}},"surfaceOp":"append"}` + "\n"
	r := auditRig(t, log)
	v := r.w.Row(15)
	var got []string
	for _, c := range v.Chips {
		got = append(got, c.Label)
	}
	if strings.Join(got, ",") != "image/gif,file,m.png" {
		t.Fatalf("labels %v", got)
	}
}
