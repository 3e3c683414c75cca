package sessionlog

import (
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// The issue-7 benchmark log: 100,000 events built from fixture F, generated
// at bench time (never committed). Layout:
//   - F's header and its 20 events (system prompt at node 0, two turns);
//   - then cycles of F's two turns (events 0 and 2–19: a prompt with a
//     runtime-context snapshot, a tool call and its result, a second step,
//     a prompt with an image and a file) with fresh ids, turns, seqs and
//     tool/result citations;
//   - every 50th cycle a cold edit of that cycle's first prompt (an editor
//     copy, S49), every 1,000th cycle a compaction transaction whose
//     checkpoint replaces every node after the system prompt (S17 shape,
//     v4 source), so the log has replacements and the surface stays the
//     size a compacting session keeps;
//   - session/title events pad the log to exactly n.
//
// The node benchmark (js/bench/session-log.js) writes the same log through
// TestWriteBenchLog, so Go and JS measure identical input.
const benchEvents = 100_000

func genBenchLog(tb testing.TB, n int) []byte {
	tb.Helper()
	raw, err := os.ReadFile(fixturePath("f.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	var tmpl []map[string]any
	for _, line := range lines[1:] {
		v, err := decodeValue(line)
		if err != nil {
			tb.Fatal(err)
		}
		tmpl = append(tmpl, v.(map[string]any))
	}

	var out bytes.Buffer
	out.Write(lines[0])
	out.WriteByte('\n')
	seq := 0
	var surface []int
	emit := func(ev map[string]any) {
		ev["seq"] = seq
		ev["time"] = 1790000000000 + seq
		b, err := EncodeJSON(ev)
		if err != nil {
			tb.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
		switch op := ev["surfaceOp"].(type) {
		case string:
			surface = append(surface, seq)
		case map[string]any:
			si, ei := indexOf(surface, op["startSeq"].(int)), indexOf(surface, op["endSeq"].(int))
			surface = append(surface[:si], append([]int{seq}, surface[ei+1:]...)...)
		}
		seq++
	}

	// F as it is: the system prompt and the first two turns.
	for _, ev := range tmpl {
		emit(cloneValue(ev).(map[string]any))
	}
	cycleLen := len(tmpl) - 1 // without the system prompt
	for cycle := 1; seq+cycleLen+6 <= n; cycle++ {
		suffix := "-" + strconv.Itoa(cycle)
		callSeq, firstPrompt := -1, -1
		for i, t := range tmpl {
			if i == 1 {
				continue // the system prompt exists once
			}
			ev := cloneValue(t).(map[string]any)
			data := asMap(ev["data"])
			if turn, ok := data["turn"].(json.Number); ok {
				k, _ := turn.Int64()
				data["turn"] = int(k) + 2*cycle
			}
			msg := data
			if ev["type"] != "user/message" {
				msg = asMap(data["message"])
			}
			if id, ok := msg["id"].(string); ok {
				msg["id"] = id + suffix
			}
			switch ev["type"] {
			case "tool/call":
				callSeq = seq
			case "tool/result":
				ev["sourceEventSeqs"] = []any{callSeq}
			case "user/message":
				if firstPrompt < 0 {
					firstPrompt = seq
				}
			}
			emit(ev)
		}
		if cycle%50 == 0 {
			orig := asMap(cloneValue(tmpl[2]["data"]))
			orig["id"] = "u1" + suffix
			orig["content"] = []any{map[string]any{"type": "text", "text": "q1 edited" + suffix}}
			asMap(orig["source"])["messageEdit"] = map[string]any{"originalEventSeq": firstPrompt, "action": "edit"}
			emit(map[string]any{"type": "user/message", "data": orig,
				"surfaceOp":       map[string]any{"op": "replace", "startSeq": firstPrompt, "endSeq": firstPrompt},
				"sourceEventSeqs": []any{firstPrompt}})
		}
		if cycle%1000 == 0 && len(surface) > 2 {
			k := "k" + suffix
			start := seq
			emit(map[string]any{"type": "compaction/start", "data": map[string]any{"compactionId": k, "turn": nil}})
			emit(map[string]any{"type": "compaction/summary", "data": map[string]any{"compactionId": k, "summary": []any{map[string]any{"type": "text", "text": "S"}}}})
			src := []any{start, start + 1}
			for _, s := range surface[1:] {
				src = append(src, s)
			}
			emit(map[string]any{"type": "user/message",
				"data": map[string]any{"id": "ck" + suffix, "role": "user",
					"content": []any{map[string]any{"type": "text", "text": "SUMMARY" + suffix}},
					"source":  map[string]any{"kind": "compact-checkpoint", "compactionId": k}},
				"surfaceOp":       map[string]any{"op": "replace", "startSeq": surface[1], "endSeq": surface[len(surface)-1]},
				"sourceEventSeqs": src})
			emit(map[string]any{"type": "compaction/end", "data": map[string]any{"compactionId": k, "turn": nil}})
		}
	}
	for seq < n {
		emit(map[string]any{"type": "session/title", "data": map[string]any{"title": "bench " + strconv.Itoa(seq)}})
	}
	return out.Bytes()
}

// lastPrompt is the seq of the log's last user-kind original, the target
// of the plan benchmark (a prompt with an image and a file).
func lastPrompt(l *Log) int {
	for s := l.Len() - 1; s >= 0; s-- {
		if l.isAppend(s) && isUserKind(l.Events[s]) {
			return s
		}
	}
	return -1
}

// TestBenchLog checks the generator makes what the benchmarks claim (at a
// quarter of the size, to keep the suite quick): a valid log of exactly n
// events with edits and a compaction folded in, on which an edit of the
// last prompt plans and appends.
func TestBenchLog(t *testing.T) {
	const n = benchEvents / 4
	l, err := DecodeBytes(genBenchLog(t, n), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != n || l.Generation() < 25 || l.CompactionOpen() || !l.isCheckpoint(l.Surface()[1]) {
		t.Fatalf("len %d, generation %d, compaction open %v", l.Len(), l.Generation(), l.CompactionOpen())
	}
	p, err := l.Plan(Request{Op: OpEdit, Target: bySeq(lastPrompt(l)), Text: ptr("edited")}, Env{})
	if err != nil || p.Event == nil {
		t.Fatalf("plan: %v", err)
	}
	if err := l.Append(p.Event); err != nil {
		t.Fatal(err)
	}
}

// TestWriteBenchLog writes the benchmark log for the node benchmark when
// TAVERN_BENCHLOG names a file (run with -count=1); otherwise it skips.
func TestWriteBenchLog(t *testing.T) {
	path := os.Getenv("TAVERN_BENCHLOG")
	if path == "" {
		t.Skip("set TAVERN_BENCHLOG=FILE to write the 100k-event benchmark log")
	}
	if err := os.WriteFile(path, genBenchLog(t, benchEvents), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkValidateFold100k: read, validate and fold the 100k-event log
// (Decode does all three), then derive the messages (S25, S28).
func BenchmarkValidateFold100k(b *testing.B) {
	data := genBenchLog(b, benchEvents)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	before := liveHeap()
	var l *Log
	for b.Loop() {
		var err error
		if l, err = DecodeBytes(data, DecodeOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := l.AppendFoldJSON(nil); err != nil {
			b.Fatal(err)
		}
	}
	// What a host keeps while the log is open: the folded log's live heap.
	b.ReportMetric(float64(liveHeap()-before)/(1<<20), "live-MB")
	b.ReportMetric(float64(len(l.Surface())), "nodes")
	runtime.KeepAlive(l)
}

func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// BenchmarkPlanEdit100k: plan a cold edit (S44–S49, validated as the next
// event, S23) of the last prompt on the folded 100k-event log.
func BenchmarkPlanEdit100k(b *testing.B) {
	l, err := DecodeBytes(genBenchLog(b, benchEvents), DecodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Op: OpEdit, Target: bySeq(lastPrompt(l)), Text: ptr("edited"), RemoveAttachments: []string{"img-A"}}
	b.ReportAllocs()
	for b.Loop() {
		p, err := l.Plan(req, Env{})
		if err != nil || p.Event == nil {
			b.Fatal(err)
		}
	}
}
