package sessionlog

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

func fuzzSeeds(f *testing.F, add func([]byte)) {
	for _, name := range []string{"f.jsonl", "steering.jsonl", "compaction.jsonl", "resume.jsonl", "legacy-v0.jsonl"} {
		b, err := os.ReadFile(fixturePath(name))
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
}

// roundTrip checks that a decoded log re-encodes to a log that decodes to
// the same fold.
func roundTrip(t *testing.T, l *Log, live bool) {
	t.Helper()
	var buf bytes.Buffer
	if err := l.Encode(&buf); err != nil {
		t.Fatalf("encode: %v", err)
	}
	l2, err := DecodeBytes(buf.Bytes(), DecodeOptions{Live: live})
	if err != nil {
		t.Fatalf("re-decode of an accepted log failed: %v\n%s", err, buf.String())
	}
	if !slices.Equal(l.Surface(), l2.Surface()) || l.Generation() != l2.Generation() || l.Len() != l2.Len() {
		t.Fatalf("fold changed across a round trip: %v vs %v", l.Surface(), l2.Surface())
	}
}

// FuzzValidate: arbitrary bytes never panic the reader; an accepted log
// folds consistently and survives a round trip (S6, S22, S25).
func FuzzValidate(f *testing.F) {
	fuzzSeeds(f, func(b []byte) { f.Add(b, uint8(0)) })
	f.Add([]byte(`{"type":"session","version":0,"id":"s","createdAt":0}`+"\n"+`{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opts := DecodeOptions{ImportSnapshot: mode&1 != 0, Live: mode&2 != 0}
		l, err := DecodeBytes(data, opts)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is not an *Error: %T %v", err, err)
			}
			return
		}
		for _, s := range l.Surface() {
			if k := l.kinds[s]; k != kindAppend && k != kindReplace {
				t.Fatalf("node %d is not a surface event", s)
			}
		}
		_ = l.Messages()
		_ = l.Transcript()
		_ = l.Overlay(Env{})
		roundTrip(t, l, opts.Live)
	})
}

// FuzzFold: for any accepted log, every operation the editor plans is a
// valid next event (S23), appending it keeps the log valid, and further
// operations can be planned on the result.
func FuzzFold(f *testing.F) {
	fuzzSeeds(f, func(b []byte) {
		f.Add(b, uint8(0), 15, "Q", "")
		f.Add(b, uint8(1), 2, "", "img-A")
		f.Add(b, uint8(2), 17, "x", "")
		f.Add(b, uint8(4|2), 7, "", "")
	})
	f.Add([]byte(`{"type":"session","version":0,"id":"s","createdAt":0}`+"\n"+`{"type":"assistant/message","seq":0,"time":0,"data":5,"surfaceOp":"append"}`), uint8(2), 0, "x", "")
	f.Fuzz(func(t *testing.T, data []byte, op uint8, target int, text, remove string) {
		l, err := DecodeBytes(data, DecodeOptions{ImportSnapshot: op&64 != 0, Live: op&128 != 0})
		if err != nil || l.Len() == 0 {
			return
		}
		for round := 0; round < 3; round++ {
			seq := target
			if seq < 0 || seq >= l.Len() {
				seq = ((seq % l.Len()) + l.Len()) % l.Len()
			}
			tg := bySeq(seq)
			if op&32 != 0 {
				tg = byID(messageIDSafe(l, seq))
			}
			req := Request{Op: []Op{OpEdit, OpUndo, OpRegenerate}[int(op+uint8(round))%3], Target: tg}
			if op&4 == 0 || req.Op == OpEdit {
				req.Text = &text
			}
			if req.Op == OpUndo {
				req.Text = nil
			} else if op&8 != 0 {
				req.RemoveAttachments = strings.Split(remove, ",")
			}
			env := Env{AgentRunning: op&16 != 0 && round == 0}
			n := l.Len()
			p, err := l.Plan(req, env)
			if l.Len() != n {
				t.Fatal("planning changed the log")
			}
			if err != nil {
				e, ok := err.(*Error)
				if !ok || e.Code == CodeInternal {
					t.Fatalf("S23: %v", err)
				}
				if p != nil {
					t.Fatal("plan with error")
				}
			} else if p.Event != nil {
				if err := l.Append(p.Event); err != nil {
					t.Fatalf("planned event rejected: %v", err)
				}
			}
			if op&2 != 0 && l.Version() < 3 {
				if p, err := l.PlanLegacyAssistantEdit(tg, text, env); err == nil && p.Event != nil {
					if err := l.Append(p.Event); err != nil {
						t.Fatalf("legacy planned event rejected: %v", err)
					}
				}
			}
			_ = l.Overlay(Env{})
			target++
		}
		roundTrip(t, l, op&128 != 0)
	})
}

func messageIDSafe(l *Log, seq int) string {
	ev := l.Events[seq]
	if eligible(l.Version(), ev.Type) {
		return messageID(ev)
	}
	return ""
}
