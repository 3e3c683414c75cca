package sessionlog

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// harnessCase is one entry of harness-v0-load.json: fixture L with one line
// replaced or one line appended, the verdict the real harness (0.1.1)
// gave when it loaded the file (recorded once, by running it), and the
// verdict tavern-core must give. The two agree unless a note says why.
type harnessCase struct {
	Name    string `json:"name"`
	Line    int    `json:"line"`
	Replace string `json:"replace"`
	Append  string `json:"append"`
	Harness struct {
		OK      bool   `json:"ok"`
		Error   string `json:"error"`
		Surface []int  `json:"surface"`
	} `json:"harness"`
	Want struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"want"`
	Note string `json:"note"`
}

// S108, V22, S107 (issue 15, item 5): the load checks of a stored v0 log
// match the harness's: a request/header without provider/model (or with a
// bad reasoningEffort/adapterDefaults), a malformed old-style turn/end or
// turn/start, the message and tool-result shapes, the retired vocabulary,
// the envelope, and an unknown type without ignorable in a v0 log.
func TestS108_HarnessV0LoadCorpus(t *testing.T) {
	var cases []harnessCase
	if err := json.Unmarshal(readFixture(t, "harness-v0-load.json"), &cases); err != nil {
		t.Fatal(err)
	}
	base := strings.Split(strings.TrimSuffix(string(readFixture(t, "legacy-v0.jsonl")), "\n"), "\n")
	if len(cases) < 80 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		lines := slices.Clone(base)
		switch {
		case c.Append != "":
			lines = append(lines, c.Append)
		case c.Line > 0:
			lines[c.Line-1] = c.Replace
		}
		l, err := DecodeBytes([]byte(strings.Join(lines, "\n")+"\n"), DecodeOptions{})
		if c.Want.OK != (err == nil) {
			t.Errorf("%s: want ok=%v, got %v", c.Name, c.Want.OK, err)
			continue
		}
		if err != nil && err.Error() != c.Want.Error {
			t.Errorf("%s:\n got: %s\nwant: %s", c.Name, err, c.Want.Error)
		}
		if c.Note == "" && c.Harness.OK != c.Want.OK {
			t.Errorf("%s: disagrees with the harness without a recorded reason", c.Name)
		}
		if err == nil && c.Harness.OK && !slices.Equal(l.Surface(), c.Harness.Surface) {
			t.Errorf("%s: surface %v, harness %v", c.Name, l.Surface(), c.Harness.Surface)
		}
		// Where both refuse, the message is the harness's own (its "seed
		// event at index N" read as "session event at seq N"; V22 keeps the
		// spec's editor wording).
		if err != nil && !c.Harness.OK && c.Note == "" {
			h := strings.NewReplacer("seed event at index ", "session event at seq ", "seed request/header at index ", "request/header at seq ").Replace(c.Harness.Error)
			if !strings.Contains(h, err.Error()) && !strings.Contains(c.Want.Error, "unknown type") && !strings.Contains(c.Want.Error, "not contiguous") && !strings.Contains(c.Want.Error, "cannot carry surfaceOp") {
				t.Errorf("%s: message %q is not the harness's %q", c.Name, err, c.Harness.Error)
			}
		}
	}
}

// S14, S108: the load checks are for stored files only. A live session's
// snapshot folds whatever the harness admitted (its append makes none of
// these checks), and an append through the log is validated by the
// surface rules alone.
func TestS108_LiveSnapshotsAreNotLoadChecked(t *testing.T) {
	head := `{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w","delegationDepth":0}` + "\n"
	rh := `{"type":"request/header","seq":0,"time":0,"data":{"header":{"config":{}},"reason":"initial"}}` + "\n"
	odd := `{"type":"x/custom","seq":1,"time":0.5,"data":{},"extra":1}` + "\n"
	if _, err := DecodeBytes([]byte(head+rh+odd), DecodeOptions{}); err == nil {
		t.Fatal("stored file with a header lacking provider/model loaded")
	}
	l, err := DecodeBytes([]byte(head+rh+odd), DecodeOptions{Live: true})
	if err != nil || l.Len() != 2 {
		t.Fatalf("live fold refused: %v", err)
	}
	raws := []json.RawMessage{json.RawMessage(strings.TrimSpace(rh)), json.RawMessage(strings.TrimSpace(odd))}
	if _, err := LiveSnapshot(0, raws); err != nil {
		t.Fatalf("LiveSnapshot refused: %v", err)
	}
	// V22 in v0 is a load rule: an append of an unknown type is log-only.
	l0 := load(t, "legacy-v0.jsonl", 0)
	mustAppend(t, l0, `{"type":"x/custom","data":{}}`)
}

// S105: the harness's compressed file is refused by name (unsupported
// format), not as "line 1: invalid JSON"; tavern-log decompresses it first.
func TestS105_CompressedFileIsRefusedByName(t *testing.T) {
	b, err := os.ReadFile("../testdata/sessionlog/f.jsonl.zstd")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []DecodeOptions{{}, {AllowTornTail: true}} {
		_, err := DecodeBytes(b, opts)
		var se *Error
		if !errors.As(err, &se) || se.Code != CodeUnsupportedFormat || !strings.Contains(se.Message, "Zstandard") {
			t.Fatalf("%+v: got %v", opts, err)
		}
	}
	if _, err := PlanRepair(b, "x", 0, DecodeOptions{}); err == nil {
		t.Fatal("repair planned for a compressed file")
	}
}
