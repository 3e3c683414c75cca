package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var fixtureF = filepath.Join("..", "..", "testdata", "sessionlog", "f.jsonl")

func runCLI(t *testing.T, stdin string, args ...string) (int, map[string]any, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	var doc map[string]any
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("stdout is not one JSON document: %v\n%s", err, out.String())
		}
	}
	return code, doc, errb.String()
}

// S102 validate
func TestS102_Validate(t *testing.T) {
	code, doc, _ := runCLI(t, "", "validate", fixtureF)
	if code != 0 || doc["ok"] != true || doc["version"] != 4.0 || doc["events"] != 20.0 {
		t.Fatalf("%d %v", code, doc)
	}
	bad := `{"type":"session","version":4,"id":"s","createdAt":0}
{"type":"turn/start","seq":1,"time":0,"data":{}}
`
	code, doc, stderr := runCLI(t, bad, "validate", "-")
	want := "session event seq 1 is not contiguous; expected 0"
	if code != 1 || doc["ok"] != false || doc["seq"] != 0.0 || doc["error"] != want || strings.TrimSpace(stderr) != want {
		t.Fatalf("%d %v %q", code, doc, stderr)
	}
}

// S103: snapshot fixtures need --import-snapshot.
func TestS103_ImportSnapshotFlag(t *testing.T) {
	snap := `{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w"}
{"type":"user/message","data":{"id":"u","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append"}
`
	if code, _, _ := runCLI(t, snap, "validate", "-"); code != 1 {
		t.Fatalf("exit %d without the flag", code)
	}
	code, doc, _ := runCLI(t, snap, "fold", "--import-snapshot", "-")
	if code != 0 || len(doc["surface"].([]any)) != 1 || len(doc["messages"].([]any)) != 1 {
		t.Fatalf("%d %v", code, doc)
	}
}

// S104: a JSON error names its line; an unreadable file exits 2.
func TestS104_Errors(t *testing.T) {
	code, _, stderr := runCLI(t, "{\"type\":\"session\",\"version\":4,\"id\":\"s\",\"createdAt\":0}\n{bad\n", "validate", "-")
	if code != 1 || !strings.HasPrefix(stderr, "line 2: ") {
		t.Fatalf("%d %q", code, stderr)
	}
	if code, _, _ := runCLI(t, "", "validate", filepath.Join(t.TempDir(), "missing.jsonl")); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if code, _, _ := runCLI(t, "", "frobnicate", fixtureF); code != 2 {
		t.Fatalf("exit %d", code)
	}
}

// S102 fold and transcript
func TestS102_FoldTranscript(t *testing.T) {
	_, doc, _ := runCLI(t, "", "fold", fixtureF)
	b, _ := json.Marshal(doc["surface"])
	if string(b) != "[1,2,3,6,8,11,15,17]" || len(doc["messages"].([]any)) != 8 {
		t.Fatalf("%s %v", b, doc)
	}
	_, doc, _ = runCLI(t, "", "transcript", fixtureF)
	rows := doc["rows"].([]any)
	if len(rows) != 7 || rows[1].(map[string]any)["kind"] != "context" {
		t.Fatalf("%v", rows)
	}
	if doc["overlay"].(map[string]any)["userRows"].([]any)[1].(map[string]any)["regenerable"] != true {
		t.Fatal("overlay missing")
	}
}

// S102 plan-edit: exact events, refusals with codes, the file untouched.
func TestS102_PlanEdit(t *testing.T) {
	before, _ := os.ReadFile(fixtureF)
	code, doc, _ := runCLI(t, "", "plan-edit", fixtureF, "--op", "edit", "--target", "u1", "--text", "q1*", "--time", "7")
	if code != 0 {
		t.Fatal(doc)
	}
	evs := doc["events"].([]any)
	b, _ := json.Marshal(evs[0])
	want := `{"data":{"content":[{"text":"q1*","type":"text"}],"id":"u1","role":"user","source":{"kind":"user","messageEdit":{"action":"edit","originalEventSeq":2}}},"seq":20,"sourceEventSeqs":[2],"surfaceOp":{"endSeq":2,"op":"replace","startSeq":2},"time":7,"type":"user/message"}`
	if string(b) != want {
		t.Fatalf("got %s", b)
	}
	code, doc, _ = runCLI(t, "", "plan-edit", "--op", "regenerate-turn", "--target", "17", fixtureF, "--time", "7")
	if code != 0 || len(doc["events"].([]any)) != 1 {
		t.Fatalf("%d %v", code, doc)
	}
	code, doc, _ = runCLI(t, "", "plan-edit", fixtureF, "--op", "regenerate-turn", "--target", "u2")
	if code != 1 || doc["error"].(map[string]any)["code"] != "bad-request" {
		t.Fatalf("%d %v", code, doc)
	}
	code, doc, stderr := runCLI(t, "", "plan-edit", fixtureF, "--op", "edit", "--target", "a1", "--text", "x")
	if code != 1 || doc["error"].(map[string]any)["code"] != "assistant-immutable" || !strings.HasPrefix(stderr, "Model replies cannot be rewritten") {
		t.Fatalf("%d %v", code, doc)
	}
	code, doc, _ = runCLI(t, "", "plan-edit", fixtureF, "--op", "edit", "--target", "u2", "--text", "q2", "--remove", "img-A", "--remove", "file-B")
	if code != 0 {
		t.Fatal(doc)
	}
	code, doc, _ = runCLI(t, "", "plan-edit", fixtureF, "--op", "edit", "--target", "u1", "--text", "q1")
	if code != 0 || doc["unchanged"] != true || len(doc["events"].([]any)) != 0 {
		t.Fatalf("%d %v", code, doc)
	}
	after, _ := os.ReadFile(fixtureF)
	if !bytes.Equal(before, after) {
		t.Fatal("input modified")
	}
}

// The real snapshot logs validate through the CLI with --import-snapshot.
func TestS103_RealLogViaCLI(t *testing.T) {
	p := filepath.Join("..", "..", "..", "shared", "data", "dsh-logs", "examples", "headless-agent", "tests", "snapshots", "compaction-recovery", "session.jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real logs not available: %s is absent", p)
	}
	code, doc, _ := runCLI(t, "", "validate", "--import-snapshot", p)
	if code != 0 || doc["ok"] != true {
		t.Fatalf("%d %v", code, doc)
	}
}

// S102: an empty surface is an empty array, not null (issue 15, item 3);
// the same for the other lists fold and transcript print.
func TestS102_EmptySurfaceIsArray(t *testing.T) {
	var out, errb bytes.Buffer
	log := `{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w","delegationDepth":0}` + "\n" +
		`{"type":"session/title","seq":0,"time":0,"data":{"title":"t"}}` + "\n"
	for _, cmd := range []string{"fold", "transcript"} {
		out.Reset()
		if code := run([]string{cmd, "-"}, strings.NewReader(log), &out, &errb); code != 0 {
			t.Fatalf("%s exit %d: %s", cmd, code, errb.String())
		}
		if bytes.Contains(out.Bytes(), []byte("null")) {
			t.Fatalf("%s prints null: %s", cmd, out.String())
		}
	}
	_, doc, _ := runCLI(t, log, "fold", "-")
	if s, ok := doc["surface"].([]any); !ok || len(s) != 0 {
		t.Fatalf("surface %v", doc["surface"])
	}
}

// S105 (issue 15, item 6): a torn last line is reported with its byte
// offset, and repair keeps a copy of the file and truncates it there; the
// repaired log validates with every complete event kept.
func TestS105_TornTailAndRepair(t *testing.T) {
	whole, err := os.ReadFile(fixtureF)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(bytes.Clone(whole), `{"type":"turn/start","seq":20,"time":1,"da`...)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	os.WriteFile(path, torn, 0o600)

	code, doc, stderr := runCLI(t, "", "validate", path)
	if code != 1 || doc["code"] != "torn-tail" || doc["offset"] != float64(len(whole)) || doc["line"] != 22.0 {
		t.Fatalf("%d %v", code, doc)
	}
	if !strings.HasPrefix(stderr, "line 22: torn tail at byte offset "+strconvItoa(len(whole))) || !strings.Contains(stderr, "tavern-log repair") {
		t.Fatalf("stderr %q", stderr)
	}
	if code, _, _ := runCLI(t, "", "fold", path); code != 1 {
		t.Fatal("fold read a torn log")
	}

	code, doc, _ = runCLI(t, "", "repair", path)
	if code != 0 {
		t.Fatalf("%d %v", code, doc)
	}
	rep := doc["repair"].(map[string]any)
	if rep["action"] != "truncate" || rep["truncateTo"] != float64(len(whole)) || rep["events"] != 20.0 {
		t.Fatalf("%v", rep)
	}
	copyPath := rep["copy"].(string)
	if kept, _ := os.ReadFile(copyPath); !bytes.Equal(kept, torn) || !strings.HasPrefix(filepath.Base(copyPath), "session.jsonl.torn-"+strconvItoa(len(whole))+"-") {
		t.Fatalf("copy %s does not hold the original", copyPath)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, whole) {
		t.Fatal("repaired file is not the committed prefix")
	}
	code, doc, _ = runCLI(t, "", "validate", path)
	if code != 0 || doc["events"] != 20.0 {
		t.Fatalf("%d %v", code, doc)
	}
	// Repairing a sound log changes nothing.
	code, doc, _ = runCLI(t, "", "repair", path)
	if code != 0 || doc["repair"].(map[string]any)["action"] != "none" {
		t.Fatalf("%d %v", code, doc)
	}
}

// S105: a complete last line without its newline is kept (it is a whole
// record); repair only adds the newline, so the next append cannot glue
// onto it.
func TestS105_UnterminatedLastLine(t *testing.T) {
	whole, _ := os.ReadFile(fixtureF)
	cut := bytes.TrimSuffix(whole, []byte("\n"))
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, cut, 0o600)
	if code, doc, _ := runCLI(t, "", "validate", path); code != 0 || doc["events"] != 20.0 {
		t.Fatalf("%d %v", code, doc)
	}
	code, doc, _ := runCLI(t, "", "repair", path)
	if code != 0 || doc["repair"].(map[string]any)["action"] != "terminate" {
		t.Fatalf("%d %v", code, doc)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, whole) {
		t.Fatal("newline not added")
	}
}

// S105: repair refuses, changing nothing, when the log is broken before its
// tail, when the header itself is torn, and on standard input.
func TestS105_RepairRefuses(t *testing.T) {
	dir := t.TempDir()
	whole, _ := os.ReadFile(fixtureF)
	bad := bytes.Replace(whole, []byte(`"seq":5,`), []byte(`"seq":50,`), 1)
	bad = append(bad, `{"type":"tu`...)
	p := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(p, bad, 0o600)
	code, doc, stderr := runCLI(t, "", "repair", p)
	if code != 1 || doc["ok"] != false || !strings.Contains(stderr, "nothing was changed") {
		t.Fatalf("%d %v %q", code, doc, stderr)
	}
	if now, _ := os.ReadFile(p); !bytes.Equal(now, bad) {
		t.Fatal("refused repair changed the file")
	}
	h := filepath.Join(dir, "h.jsonl")
	os.WriteFile(h, []byte(`{"type":"sess`), 0o600)
	if code, doc, _ := runCLI(t, "", "repair", h); code != 1 || doc["code"] != "torn-tail" || doc["offset"] != 0.0 {
		t.Fatalf("%d %v", code, doc)
	}
	if code, _, _ := runCLI(t, "", "repair", "-"); code != 2 {
		t.Fatalf("repair of stdin exit %d", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("refused repairs left files: %v", entries)
	}
}

func strconvItoa(n int) string { return strconv.Itoa(n) }
