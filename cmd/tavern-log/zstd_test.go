package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// compressed lays testdata's log out as the harness writes session.jsonl.zstd:
// the header line alone in the first frame, then checksummed batch frames.
// It returns the file, the plaintext and where the last frame starts.
func compressed(t *testing.T) (file, plain []byte, last int) {
	t.Helper()
	plain, lines := fixtureLines(t)
	file, starts := frames(lines[0], bytes.Join(lines[1:6], nil), bytes.Join(lines[6:], nil))
	return file, plain, starts[2]
}

func fixtureLines(t *testing.T) ([]byte, [][]byte) {
	t.Helper()
	plain, err := os.ReadFile(fixtureF)
	if err != nil {
		t.Fatal(err)
	}
	return plain, bytes.SplitAfter(plain, []byte("\n"))
}

// frames encodes each batch as one checksummed frame, with a small window
// so a frame spans several blocks; starts says where each begins.
func frames(batches ...[]byte) (file []byte, starts []int) {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithWindowSize(zstd.MinWindowSize), zstd.WithEncoderConcurrency(1))
	defer enc.Close()
	for _, b := range batches {
		starts = append(starts, len(file))
		file = enc.EncodeAll(b, file)
	}
	return file, starts
}

// S102/S105: every reading command takes the harness's compressed file (or
// the same bytes on standard input) and prints what it prints for the
// plaintext.
func TestS102_CompressedLogReadsAsPlaintext(t *testing.T) {
	file, plain, _ := compressed(t)
	dir := t.TempDir()
	z := filepath.Join(dir, "session.jsonl.zstd")
	p := filepath.Join(dir, "session.jsonl")
	os.WriteFile(z, file, 0o600)
	os.WriteFile(p, plain, 0o600)
	for _, cmd := range [][]string{{"validate"}, {"fold"}, {"transcript"}, {"plan-edit", "--op", "edit", "--target", "u1", "--text", "q1*", "--time", "5"}} {
		code, want, _ := runCLI(t, "", append([]string{cmd[0], p}, cmd[1:]...)...)
		if code != 0 {
			t.Fatalf("%s on the plaintext: %d", cmd[0], code)
		}
		code, got, _ := runCLI(t, "", append([]string{cmd[0], z}, cmd[1:]...)...)
		if code != 0 || !equalJSON(got, want) {
			t.Fatalf("%s on the compressed file: %d %v, want %v", cmd[0], code, got, want)
		}
		code, got, _ = runCLI(t, string(file), append([]string{cmd[0], "-"}, cmd[1:]...)...)
		if code != 0 || !equalJSON(got, want) {
			t.Fatalf("%s on standard input: %d %v", cmd[0], code, got)
		}
	}
}

// S105: a compressed log whose last frame is unfinished is refused as a torn
// tail at that frame's offset; repair keeps a copy, cuts the frame off and
// re-appends the whole records it still holds, and the result validates.
func TestS105_CompressedTornFrameAndRepair(t *testing.T) {
	file, plain, last := compressed(t)
	for _, cut := range []int{last + 3, last + (len(file)-last)*2/3, len(file) - 2} {
		torn := file[:cut]
		path := filepath.Join(t.TempDir(), "session.jsonl.zstd")
		os.WriteFile(path, torn, 0o600)
		code, doc, stderr := runCLI(t, "", "validate", path)
		if code != 1 || doc["code"] != "torn-tail" || doc["offset"] != float64(last) || doc["line"] != 7.0 {
			t.Fatalf("cut %d: %d %v", cut, code, doc)
		}
		if !strings.Contains(stderr, "unfinished Zstandard frame") || !strings.Contains(stderr, "tavern-log repair") {
			t.Fatalf("stderr %q", stderr)
		}
		code, doc, _ = runCLI(t, "", "repair", path)
		if code != 0 {
			t.Fatalf("cut %d: repair %d %v", cut, code, doc)
		}
		rep := doc["repair"].(map[string]any)
		if kept, _ := os.ReadFile(rep["copy"].(string)); !bytes.Equal(kept, torn) {
			t.Fatalf("cut %d: the copy does not hold the original", cut)
		}
		now, _ := os.ReadFile(path)
		if !bytes.Equal(now[:last], file[:last]) {
			t.Fatalf("cut %d: the complete frames changed", cut)
		}
		code, v, _ := runCLI(t, "", "validate", path)
		if code != 0 || v["events"] != rep["events"] {
			t.Fatalf("cut %d: after repair %d %v (repair said %v)", cut, code, v, rep)
		}
		recovered := int(rep["recovered"].(float64))
		if rep["events"] != float64(5+recovered) || rep["action"] != "truncate" || rep["truncateTo"] != float64(last) {
			t.Fatalf("cut %d: %v", cut, rep)
		}
		if cut == len(file)-2 && recovered == 0 {
			t.Fatalf("a cut in the checksum kept no record of a frame whose blocks are all there")
		}
		if recovered > 0 {
			want := bytes.SplitAfter(plain, []byte("\n"))[6 : 6+recovered]
			z, _ := os.ReadFile(path)
			if !bytes.Contains(decodeAll(t, z), bytes.Join(want, nil)) {
				t.Fatalf("cut %d: the recovered records are not the frame's first %d", cut, recovered)
			}
		}
	}
	// A sound compressed log: nothing to do.
	path := filepath.Join(t.TempDir(), "s.jsonl.zstd")
	os.WriteFile(path, file, 0o600)
	code, doc, _ := runCLI(t, "", "repair", path)
	if code != 0 || doc["repair"].(map[string]any)["action"] != "none" {
		t.Fatalf("%d %v", code, doc)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, file) {
		t.Fatal("a sound log was changed")
	}
}

// S105: corrupt complete frames are refused and nothing is written.
func TestS105_CompressedCorruptionRefusedUnchanged(t *testing.T) {
	file, _, last := compressed(t)
	bad := bytes.Clone(file)
	bad[last-1] ^= 0xff // the middle frame's checksum
	path := filepath.Join(t.TempDir(), "s.jsonl.zstd")
	os.WriteFile(path, bad, 0o600)
	for _, cmd := range []string{"validate", "repair"} {
		code, doc, _ := runCLI(t, "", cmd, path)
		if code != 1 || doc["ok"] != false || !strings.Contains(doc["error"].(string), "corrupt Zstandard session log") {
			t.Fatalf("%s: %d %v", cmd, code, doc)
		}
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, bad) {
		t.Fatal("a refused repair changed the file")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatal("a refused repair left a copy")
	}
}

func equalJSON(a, b map[string]any) bool { return reflect.DeepEqual(a, b) }

func decodeAll(t *testing.T, b []byte) []byte {
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	out, err := dec.DecodeAll(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// S102: the committed fixture (testdata's log as header frame plus two batch
// frames) validates and folds as its plaintext.
func TestS102_CommittedCompressedFixture(t *testing.T) {
	z := filepath.Join("..", "..", "testdata", "sessionlog", "f.jsonl.zstd")
	for _, cmd := range []string{"validate", "fold", "transcript"} {
		_, want, _ := runCLI(t, "", cmd, fixtureF)
		code, got, stderr := runCLI(t, "", cmd, z)
		if code != 0 || !equalJSON(got, want) {
			t.Fatalf("%s: %d %v %s", cmd, code, got, stderr)
		}
	}
}

// S105: whole records of the torn frame that would make the log invalid are
// not kept; the log is cut where the frame starts and stays valid.
func TestS105_CompressedRepairDropsInvalidRecoveredRecords(t *testing.T) {
	_, lines := fixtureLines(t)
	gap := []byte(`{"type":"turn/start","seq":999,"time":1,"data":{"turn":9}}` + "\n") // not contiguous (V1)
	file, starts := frames(lines[0], bytes.Join(lines[1:6], nil), append(gap, bytes.Join(lines[6:], nil)...))
	last := starts[2]
	path := filepath.Join(t.TempDir(), "session.jsonl.zstd")
	os.WriteFile(path, file[:len(file)-2], 0o600)
	code, doc, stderr := runCLI(t, "", "repair", path)
	if code != 0 {
		t.Fatalf("%d %v %s", code, doc, stderr)
	}
	rep := doc["repair"].(map[string]any)
	if rep["recovered"] != 0.0 || rep["events"] != 5.0 || rep["frames"] != 2.0 || rep["truncateTo"] != float64(last) {
		t.Fatalf("%v", rep)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, file[:last]) {
		t.Fatal("the file is not cut where the torn frame starts")
	}
	if code, v, _ := runCLI(t, "", "validate", path); code != 0 || v["events"] != 5.0 {
		t.Fatalf("%d %v", code, v)
	}
}
