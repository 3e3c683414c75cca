package sessionlog_test

// Rules audit (spec/sessionlog.md): clauses that no other test would catch
// if the implementation broke them. External test package so it can drive
// both the pure planner and the route (sessionlog/route imports sessionlog).

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tavern-core/sessionlog"
	"tavern-core/sessionlog/route"
)

// ---- helpers ----

func auFixture(t *testing.T, name string, cut int) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "sessionlog", name))
	if err != nil {
		t.Fatal(err)
	}
	if cut > 0 {
		lines := bytes.SplitAfter(b, []byte("\n"))
		b = bytes.Join(lines[:cut+1], nil)
	}
	return b
}

func auLoad(t *testing.T, name string, cut int) *sessionlog.Log {
	t.Helper()
	l, err := sessionlog.DecodeBytes(auFixture(t, name, cut), sessionlog.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func auF(t *testing.T) *sessionlog.Log { return auLoad(t, "f.jsonl", 0) }

// auEv builds the next event from JSON (seq and time filled in).
func auEv(t *testing.T, l *sessionlog.Log, js string) *sessionlog.Event {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	if _, ok := m["seq"]; !ok {
		m["seq"] = l.Len()
	}
	if _, ok := m["time"]; !ok {
		m["time"] = 1790000999000
	}
	b, _ := json.Marshal(m)
	ev, err := sessionlog.ParseEvent(b, l.Len())
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func auAppend(t *testing.T, l *sessionlog.Log, js string) {
	t.Helper()
	if err := l.Append(auEv(t, l, js)); err != nil {
		t.Fatalf("append %s: %v", js, err)
	}
}

func auWantErr(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil || err.Error() != msg {
		t.Fatalf("error\n got: %v\nwant: %s", err, msg)
	}
}

func auID(id string) sessionlog.Target { return sessionlog.Target{MessageID: &id} }
func auStr(s string) *string           { return &s }

// auPlan plans and checks that planning changed nothing and never produced
// an invalid event (S22, S23).
func auPlan(t *testing.T, l *sessionlog.Log, op sessionlog.Op, tg sessionlog.Target, text *string, remove []string, env sessionlog.Env) (*sessionlog.Plan, error) {
	t.Helper()
	n, surf := l.Len(), l.Surface()
	p, err := l.Plan(sessionlog.Request{Op: op, Target: tg, Text: text, RemoveAttachments: remove}, env)
	if l.Len() != n || !slices.Equal(surf, l.Surface()) {
		t.Fatal("planning changed the log")
	}
	var se *sessionlog.Error
	if errors.As(err, &se) && se.Code == sessionlog.CodeInternal {
		t.Fatalf("S23: planner produced an invalid event: %v", err)
	}
	return p, err
}

func auCode(t *testing.T, err error, code string) {
	t.Helper()
	var se *sessionlog.Error
	if !errors.As(err, &se) || se.Code != code {
		t.Fatalf("want code %s, got %v", code, err)
	}
}

func auApply(t *testing.T, l *sessionlog.Log, op sessionlog.Op, tg sessionlog.Target, text *string, remove []string, env sessionlog.Env) *sessionlog.Plan {
	t.Helper()
	p, err := auPlan(t, l, op, tg, text, remove, env)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	if p.Event == nil {
		t.Fatalf("%s: unchanged", op)
	}
	if err := l.Append(p.Event); err != nil {
		t.Fatalf("S23: planned event rejected: %v", err)
	}
	return p
}

// auJSON re-encodes any JSON-ish value with sorted keys.
func auJSON(t *testing.T, v any) string {
	t.Helper()
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x)
	case json.RawMessage:
		b = x
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
	out, _ := json.Marshal(g)
	return string(out)
}

func auEq(t *testing.T, got any, want string) {
	t.Helper()
	if g, w := auJSON(t, got), auJSON(t, want); g != w {
		t.Fatalf("JSON mismatch\n got: %s\nwant: %s", g, w)
	}
}

func auField(t *testing.T, ev *sessionlog.Event, name string) string {
	t.Helper()
	b, err := ev.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	return auJSON(t, m[name])
}

func auContent(t *testing.T, ev *sessionlog.Event) string {
	t.Helper()
	var d map[string]json.RawMessage
	json.Unmarshal([]byte(auField(t, ev, "data")), &d)
	return auJSON(t, d["content"])
}

func auSurface(t *testing.T, l *sessionlog.Log, want ...int) {
	t.Helper()
	if got := l.Surface(); !slices.Equal(got, want) {
		t.Fatalf("surface = %v, want %v", got, want)
	}
}

func auRows(l *sessionlog.Log) string {
	var s []string
	for _, r := range l.Transcript() {
		s = append(s, r.Kind+" "+itoaAu(r.Seq))
	}
	return strings.Join(s, ",")
}

func itoaAu(n int) string { b, _ := json.Marshal(n); return string(b) }

// withU2 is F cut after seq 14 plus u2 at 15 with the given data members.
func auWithU2(t *testing.T, content string, extra string) *sessionlog.Log {
	l := auLoad(t, "f.jsonl", 15)
	auAppend(t, l, `{"type":"user/message","data":{"id":"u2","role":"user","content":`+content+`,"source":{"kind":"user"}`+extra+`},"surfaceOp":"append"}`)
	return l
}

const (
	auIA = `{"type":"image","attachment":{"attachmentId":"img-A","mediaType":"image/png","bytes":16,"width":2,"height":2,"name":"a.png"}}`
	auFB = `{"type":"file","attachment":{"attachmentId":"file-B","bytes":7,"name":"b.txt"}}`
)

var idle = sessionlog.Env{}

// ---- validator (S10–S13, S21) ----

// S10/V7: both endpoints must be below the event's own seq; a start at the
// own seq (with an earlier end) is V7, not a lookup failure.
func TestS10_V7_StartSeqAtOwnSeq(t *testing.T) {
	l := auF(t)
	auWantErr(t, l.ValidateCandidate(auEv(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":20,"endSeq":2},"sourceEventSeqs":[2]}`)),
		"surface replace at seq 20: startSeq and endSeq must reference earlier events")
}

// S21: V7 (step 3) comes before the event-local sourceEventSeqs checks
// (step 4): an empty list on a replacement with a future endpoint is V7.
func TestS21_V7BeforeSourceChecks(t *testing.T) {
	l := auF(t)
	auWantErr(t, l.ValidateCandidate(auEv(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":20},"sourceEventSeqs":[]}`)),
		"surface replace at seq 20: startSeq and endSeq must reference earlier events")
}

// S11/V8: in v3+ sourceEventSeqs is forbidden on assistant/message
// altogether, on an append too, and V8 comes before V10 (empty list).
func TestS11_V8_AssistantAppendWithSources(t *testing.T) {
	l := auF(t)
	a := `{"type":"assistant/message","data":{"turn":2,"step":2,"message":{"id":"a9","role":"assistant","content":[{"type":"text","text":"x"}],"source":{"kind":"model","provider":"p","model":"m"}},"stream":[]},"surfaceOp":"append","sourceEventSeqs":`
	auWantErr(t, l.ValidateCandidate(auEv(t, l, a+`[5]}`)), "assistant/message embeds its source stream and cannot carry sourceEventSeqs")
	auWantErr(t, l.ValidateCandidate(auEv(t, l, a+`[]}`)), "assistant/message embeds its source stream and cannot carry sourceEventSeqs")
}

// S21 step 5: coverage (V17) before the tool/result rules (V18).
func TestS21_CoverageBeforeToolResultRules(t *testing.T) {
	l := auF(t)
	auWantErr(t, l.ValidateCandidate(auEv(t, l, `{"type":"tool/result","data":{"turn":1,"step":1,"message":{"id":"t1","role":"tool","toolCallId":"c1","isError":false,"content":[{"type":"text","text":"cut"}],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":{"op":"replace","startSeq":6,"endSeq":8},"sourceEventSeqs":[6]}`)),
		"surface replace: sourceEventSeqs must include every shadowed surface node; missing 8")
}

// S21 step 5: the tool/result rules (V19) before the system head (V21).
func TestS21_ToolResultRulesBeforeSystemHead(t *testing.T) {
	l := auF(t)
	auWantErr(t, l.ValidateCandidate(auEv(t, l, `{"type":"tool/result","data":{"turn":1,"step":1,"message":{"id":"t1","role":"tool","toolCallId":"c1","isError":false,"content":[],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":1},"sourceEventSeqs":[1]}`)),
		"tool/result surface replacement must target a current tool/result")
}

// S12/V20: data must equal the shadowed event's data in every respect
// except message.content, top-level members (turn, step) included.
func TestS12_V20_TopLevelDataMember(t *testing.T) {
	l := auF(t)
	auWantErr(t, l.ValidateCandidate(auEv(t, l, `{"type":"tool/result","data":{"turn":1,"step":2,"message":{"id":"t1","role":"tool","toolCallId":"c1","isError":false,"content":[{"type":"text","text":"cut"}],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":{"op":"replace","startSeq":8,"endSeq":8},"sourceEventSeqs":[8]}`)),
		"tool/result surface replacement may change only content")
	auWantErr(t, l.ValidateCandidate(auEv(t, l, `{"type":"tool/result","data":{"turn":1,"step":1,"extra":true,"message":{"id":"t1","role":"tool","toolCallId":"c1","isError":false,"content":[{"type":"text","text":"cut"}],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":{"op":"replace","startSeq":8,"endSeq":8},"sourceEventSeqs":[8]}`)),
		"tool/result surface replacement may change only content")
}

// S13: the system-head rule applies only when the node at position 0 is a
// system/message; a v4 log whose first node is a prompt may replace it.
func TestS13_NoHeadRuleWithoutSystemNode(t *testing.T) {
	l := sessionlog.NewLog(sessionlog.Header{Version: 4}, false)
	auAppend(t, l, `{"type":"user/message","data":{"id":"u","role":"user","content":[{"type":"text","text":"a"}],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	auAppend(t, l, `{"type":"user/message","data":{"id":"u","role":"user","content":[{"type":"text","text":"b"}],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":0},"sourceEventSeqs":[0]}`)
	auSurface(t, l, 1)
}

// S10/V6 in v0–v2: the start/end spelling takes no extra key and no mix.
func TestS10_V6_LegacyExtraKeyOrMix(t *testing.T) {
	l := auLoad(t, "legacy-v0.jsonl", 0)
	for _, op := range []string{
		`{"op":"replace","start":0,"end":0,"note":"x"}`,
		`{"op":"replace","start":0,"endSeq":0}`,
		`{"op":"replace","startSeq":0,"end":0}`,
	} {
		auWantErr(t, l.ValidateCandidate(auEv(t, l, `{"type":"user/message","data":{},"surfaceOp":`+op+`,"sourceEventSeqs":[0]}`)),
			`session event "user/message" carries an invalid replace surfaceOp`)
	}
}

// ---- fold / derive (S28) ----

// S28: system/message and developer/message with empty content derive no
// message but keep their node.
func TestS28_EmptySystemAndDeveloperKeepNodeNoMessage(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"developer/message","data":{"turn":2,"step":2,"message":{"id":"d","role":"developer","content":[],"source":{"kind":"x"}}},"surfaceOp":"append"}`)
	auAppend(t, l, `{"type":"system/message","data":{"turn":2,"step":2,"message":{"id":"s9","role":"system","content":[],"source":{"kind":"system-prompt"}}},"surfaceOp":"append"}`)
	auSurface(t, l, 1, 2, 3, 6, 8, 11, 15, 17, 20, 21)
	if n := len(l.Messages()); n != 8 {
		t.Fatalf("messages %d, want 8", n)
	}
}

// ---- transcript and overlay (S30, S33, S34) ----

// S30: only a next-step splice makes a steering row; a next-turn splice, or
// a next-step splice that comes after the message, leaves a user row.
func TestS30_SteeringNeedsEarlierNextStepSplice(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"id":"n1","role":"user","content":[{"type":"text","text":"n"}],"source":{"kind":"user"}}]}}`)
	auAppend(t, l, `{"type":"user/message","data":{"id":"n1","role":"user","content":[{"type":"text","text":"n"}],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	auAppend(t, l, `{"type":"user/message","data":{"id":"n2","role":"user","content":[{"type":"text","text":"m"}],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	auAppend(t, l, `{"type":"agent/inbox/spliced","data":{"target":"next-step","start":0,"inserted":[{"id":"n2","role":"user","content":[{"type":"text","text":"m"}],"source":{"kind":"user"}}]}}`)
	if got := auRows(l); !strings.HasSuffix(got, "assistant 17,user 21,user 22") {
		t.Fatal(got)
	}
}

// S30: an assistant event with empty content makes no row (and so no
// assistant overlay row).
func TestS30_EmptyAssistantMakesNoRow(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"assistant/message","data":{"turn":2,"step":2,"message":{"id":"a9","role":"assistant","content":[],"source":{"kind":"model","provider":"p","model":"m"}},"stream":[]},"surfaceOp":"append"}`)
	if got := auRows(l); got != "user 2,context 3,assistant 6,tool 8,assistant 11,user 15,assistant 17" {
		t.Fatal(got)
	}
	if n := len(l.Overlay(idle).AssistantRows); n != 3 {
		t.Fatalf("assistant rows %d", n)
	}
}

// S30, S33: another producer's replacement makes no row, and the rows it
// shadows stay visible (only regenerate copies hide rows).
func TestS33_ForeignReplacementHidesNothing(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"user/message","data":{"id":"x","role":"user","content":[{"type":"text","text":"x"}],"source":{"kind":"plugin:test"}},"surfaceOp":{"op":"replace","startSeq":15,"endSeq":17},"sourceEventSeqs":[15,17]}`)
	if got := auRows(l); got != "user 2,context 3,assistant 6,tool 8,assistant 11,user 15,assistant 17" {
		t.Fatal(got)
	}
	ov := l.Overlay(idle)
	if len(ov.HiddenSeqs) != 0 {
		t.Fatalf("hidden %v", ov.HiddenSeqs)
	}
	if r := ov.UserRows[1]; !r.Shadowed || r.Regenerable || r.Undoable {
		t.Fatalf("%+v", r)
	}
}

// S33: a regenerate hides every row it shadowed — context, reply and tool
// rows included — except the prompt's own row (C53's range).
func TestS33_RegenerateHidesSweptRowsButNotItsPrompt(t *testing.T) {
	l := auLoad(t, "f.jsonl", 14)
	auApply(t, l, sessionlog.OpRegenerate, auID("u1"), nil, nil, idle)
	if h := l.Overlay(idle).HiddenSeqs; !slices.Equal(h, []int{3, 6, 8, 11}) {
		t.Fatalf("hidden %v, want [3 6 8 11]", h)
	}
}

// S34, S66: an assistant row whose walk back finds no prompt (a compaction
// checkpoint heads it) is not regenerable even though it is last; the plan
// answers no-prompt.
func TestS34_NoHeadMeansNotRegenerable(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"compaction/start","data":{"compactionId":"k9","turn":null}}`)
	auAppend(t, l, `{"type":"compaction/summary","data":{"compactionId":"k9","summary":[]}}`)
	auAppend(t, l, `{"type":"user/message","data":{"id":"ck","role":"user","content":[{"type":"text","text":"S"}],"source":{"kind":"compact-checkpoint","compactionId":"k9"}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":15},"sourceEventSeqs":[20,21,2,3,6,8,11,15]}`)
	auAppend(t, l, `{"type":"compaction/end","data":{"compactionId":"k9","turn":null}}`)
	auSurface(t, l, 1, 22, 17)
	ov := l.Overlay(idle)
	if last := ov.AssistantRows[len(ov.AssistantRows)-1]; last.Seq != 17 || last.Regenerable {
		t.Fatalf("%+v", last)
	}
	_, err := auPlan(t, l, sessionlog.OpRegenerate, auID("a3"), nil, nil, idle)
	auCode(t, err, sessionlog.CodeNoPrompt)
}

// S66: a user-kind head written by another producer (no messageEdit) is
// not a prompt the editor may regenerate: no-prompt, and not regenerable.
func TestS66_ForeignUserKindHeadIsNoPrompt(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"user/message","data":{"id":"u2","role":"user","content":[{"type":"text","text":"x"}],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":15,"endSeq":15},"sourceEventSeqs":[15]}`)
	auSurface(t, l, 1, 2, 3, 6, 8, 11, 20, 17)
	_, err := auPlan(t, l, sessionlog.OpRegenerate, auID("a3"), nil, nil, idle)
	auCode(t, err, sessionlog.CodeNoPrompt)
	ov := l.Overlay(idle)
	if last := ov.AssistantRows[len(ov.AssistantRows)-1]; last.Regenerable {
		t.Fatalf("%+v", last)
	}
}

// S66: a system node before the reply, or no node at all, is no prompt.
func TestS66_SystemOrNothingBeforeReplyIsNoPrompt(t *testing.T) {
	l := sessionlog.NewLog(sessionlog.Header{Version: 4}, false)
	auAppend(t, l, `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"id":"a0","role":"assistant","content":[{"type":"text","text":"r"}],"source":{"kind":"model","provider":"p","model":"m"}},"stream":[]},"surfaceOp":"append"}`)
	_, err := auPlan(t, l, sessionlog.OpRegenerate, auID("a0"), nil, nil, idle)
	auCode(t, err, sessionlog.CodeNoPrompt)
	l = sessionlog.NewLog(sessionlog.Header{Version: 4}, false)
	auAppend(t, l, `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"text","text":"S"}],"source":{"kind":"system-prompt"}}},"surfaceOp":"append"}`)
	auAppend(t, l, `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"id":"a0","role":"assistant","content":[{"type":"text","text":"r"}],"source":{"kind":"model","provider":"p","model":"m"}},"stream":[]},"surfaceOp":"append"}`)
	_, err = auPlan(t, l, sessionlog.OpRegenerate, auID("a0"), nil, nil, idle)
	auCode(t, err, sessionlog.CodeNoPrompt)
}

// S61: only append-origin context messages are swept; another producer's
// context replacement stops the range, so the exchange is not last.
func TestS61_ContextReplacementStopsRange(t *testing.T) {
	l := auLoad(t, "f.jsonl", 14)
	auAppend(t, l, `{"type":"user/message","data":{"id":"rc1","role":"user","content":[{"type":"text","text":"CTX1'"}],"source":{"kind":"plugin:test"}},"surfaceOp":{"op":"replace","startSeq":3,"endSeq":3},"sourceEventSeqs":[3]}`)
	auSurface(t, l, 1, 2, 14, 6, 8, 11)
	_, err := auPlan(t, l, sessionlog.OpRegenerate, auID("u1"), nil, nil, idle)
	auCode(t, err, sessionlog.CodeRegenerateNotLast)
	if l.Overlay(idle).UserRows[0].Regenerable {
		t.Fatal("u1 regenerable")
	}
}

// S61: a plugin notice appended after the reply (an append-origin context
// message) is swept into the range.
func TestS61_PluginNoticeIsSwept(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"user/message","data":{"id":"pn","role":"user","content":[{"type":"text","text":"note"}],"source":{"kind":"plugin:notes"}},"surfaceOp":"append"}`)
	p := auApply(t, l, sessionlog.OpRegenerate, auID("u2"), nil, nil, idle)
	if !slices.Equal(p.ShadowedSeqs, []int{15, 17, 20}) {
		t.Fatalf("shadowed %v", p.ShadowedSeqs)
	}
}

// ---- targets (S36, S38, S42) ----

// S36: the target is the latest append-origin event carrying the id.
func TestS36_LatestAppendOriginWithTheId(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"user/message","data":{"id":"u1","role":"user","content":[{"type":"text","text":"again"}],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	p, err := auPlan(t, l, sessionlog.OpEdit, auID("u1"), auStr("z"), nil, idle)
	if err != nil {
		t.Fatal(err)
	}
	if p.OriginalSeq != 20 || p.ReplacedSeq != 20 {
		t.Fatalf("%+v", p)
	}
}

// S38: developer/message and plugin notices (context) are not user messages,
// for every operation.
func TestS38_DeveloperAndPluginNoticeAreNotUserMessages(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"developer/message","data":{"turn":2,"step":2,"message":{"id":"d1","role":"developer","content":[{"type":"text","text":"d"}],"source":{"kind":"x"}}},"surfaceOp":"append"}`)
	auAppend(t, l, `{"type":"user/message","data":{"id":"pn","role":"user","content":[{"type":"text","text":"note"}],"source":{"kind":"plugin:notes"}},"surfaceOp":"append"}`)
	for _, id := range []string{"d1", "pn"} {
		_, err := auPlan(t, l, sessionlog.OpEdit, auID(id), auStr("x"), nil, idle)
		auCode(t, err, sessionlog.CodeNotUserMessage)
		_, err = auPlan(t, l, sessionlog.OpUndo, auID(id), nil, nil, idle)
		auCode(t, err, sessionlog.CodeNotUserMessage)
		_, err = auPlan(t, l, sessionlog.OpRegenerate, auID(id), nil, nil, idle)
		auCode(t, err, sessionlog.CodeNotUserMessage)
	}
}

// S42: a copy marked with the original's seq but carrying another id is not
// an editor copy of it: the live node stays the (now shadowed) original.
func TestS42_MarkedCopyWithOtherIdIsNotFollowed(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"user/message","data":{"id":"zz","role":"user","content":[{"type":"text","text":"z"}],"source":{"kind":"user","messageEdit":{"originalEventSeq":2,"action":"edit"}}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`)
	_, err := auPlan(t, l, sessionlog.OpEdit, auID("u1"), auStr("y"), nil, idle)
	auCode(t, err, sessionlog.CodeTargetShadowed)
	if r := l.Overlay(idle).UserRows[0]; r.LiveSeq != 2 || !r.Shadowed {
		t.Fatalf("%+v", r)
	}
}

// ---- cold edit content (S45, S47, S48, S49, S79.5) ----

// S45.2: every block carrying a listed id is dropped.
func TestS45_AllBlocksWithListedIdDropped(t *testing.T) {
	ia2 := `{"type":"image","attachment":{"attachmentId":"img-A","mediaType":"image/png","bytes":16,"width":2,"height":2,"name":"a2.png"}}`
	l := auWithU2(t, `[{"type":"text","text":"q"},`+auIA+`,`+ia2+`,`+auFB+`]`, "")
	p := auApply(t, l, sessionlog.OpEdit, auID("u2"), auStr("q"), []string{"img-A"}, idle)
	auEq(t, auContent(t, p.Event), `[{"type":"text","text":"q"},`+auFB+`]`)
}

// S45.3: a blank text writes no text block; the attachments stay.
func TestS45_BlankTextWritesNoTextBlock(t *testing.T) {
	l := auF(t)
	p := auApply(t, l, sessionlog.OpEdit, auID("u2"), auStr(" \n "), nil, idle)
	auEq(t, auContent(t, p.Event), `[`+auIA+`,`+auFB+`]`)
}

// S47: reasoning or opaque blocks are neither text nor attachments, so a
// message left with only them is empty.
func TestS47_OnlyNonAttachmentBlocksIsEmpty(t *testing.T) {
	l := auWithU2(t, `[{"type":"reasoning","text":"note"},{"type":"text","text":"q"},{"type":"weird"}]`, "")
	_, err := auPlan(t, l, sessionlog.OpEdit, auID("u2"), auStr(""), nil, idle)
	auCode(t, err, sessionlog.CodeEmptyMessage)
	if l.Len() != 16 {
		t.Fatal("wrote")
	}
}

// S79.5: empty-message comes before unchanged: a message with no text and
// no attachment, saved with the same (empty) text, is empty-message.
func TestS79_EmptyBeforeUnchanged(t *testing.T) {
	l := auWithU2(t, `[{"type":"reasoning","text":"note"}]`, "")
	_, err := auPlan(t, l, sessionlog.OpEdit, auID("u2"), auStr(""), nil, idle)
	auCode(t, err, sessionlog.CodeEmptyMessage)
}

// S49: the copy keeps every other member of the live data and its source.
func TestS49_CopyKeepsOtherMembers(t *testing.T) {
	l := auLoad(t, "f.jsonl", 15)
	auAppend(t, l, `{"type":"user/message","data":{"id":"u2","role":"user","content":[{"type":"text","text":"q"}],"source":{"kind":"user","rpcId":"r7"},"meta":{"k":[1,"x"]}},"surfaceOp":"append"}`)
	p := auApply(t, l, sessionlog.OpEdit, auID("u2"), auStr("Q"), nil, idle)
	auEq(t, auField(t, p.Event, "data"), `{"id":"u2","role":"user","content":[{"type":"text","text":"Q"}],"source":{"kind":"user","rpcId":"r7","messageEdit":{"originalEventSeq":15,"action":"edit"}},"meta":{"k":[1,"x"]}}`)
}

// ---- regenerate / undo (S60, S75) ----

// S60: regenerate has no unchanged short-cut: text equal to E(L) still
// writes, with the S45 rewrite (text blocks merged).
func TestS60_RegenerateAlwaysWrites(t *testing.T) {
	l := auF(t)
	p, err := auPlan(t, l, sessionlog.OpRegenerate, auID("u2"), auStr("q2\nmore"), nil, idle)
	if err != nil || p.Unchanged || p.Event == nil {
		t.Fatalf("%+v %v", p, err)
	}
	auEq(t, auContent(t, p.Event), `[{"type":"text","text":"q2\nmore"},`+auIA+`,`+auFB+`]`)
	if !p.Wake {
		t.Fatal("no wake")
	}
}

// S75: undoable means the live content differs from the original: an edit
// back to the original text leaves nothing to undo.
func TestS75_EditBackToOriginalHasNothingToUndo(t *testing.T) {
	l := auF(t)
	auApply(t, l, sessionlog.OpEdit, auID("u1"), auStr("q1*"), nil, idle)
	auApply(t, l, sessionlog.OpEdit, auID("u1"), auStr("q1"), nil, idle)
	if r := l.Overlay(idle).UserRows[0]; r.Edited || r.Undoable || r.LiveSeq != 21 {
		t.Fatalf("%+v", r)
	}
	_, err := auPlan(t, l, sessionlog.OpUndo, auID("u1"), nil, nil, idle)
	auCode(t, err, sessionlog.CodeNothingToUndo)
}

// S75: once any editor copy of the original has action regenerate, later
// cold edits are not undoable either.
func TestS75_RegenerateAnywhereInTheChainBlocksUndo(t *testing.T) {
	l := auF(t)
	auApply(t, l, sessionlog.OpRegenerate, auID("u2"), auStr("Q2"), nil, idle)
	auApply(t, l, sessionlog.OpEdit, auID("u2"), auStr("Q3"), nil, idle)
	r := l.Overlay(idle).UserRows[1]
	if !r.Edited || r.Undoable || r.LiveSeq != 21 {
		t.Fatalf("%+v", r)
	}
	_, err := auPlan(t, l, sessionlog.OpUndo, auID("u2"), nil, nil, idle)
	auCode(t, err, sessionlog.CodeNothingToUndo)
}

// ---- compaction lock (S77) ----

// S77: an end-seed only releases a start it comes after; a start after the
// end-seed holds the lock.
func TestS77_EndSeedBeforeStartDoesNotRelease(t *testing.T) {
	l := auF(t)
	auAppend(t, l, `{"type":"session/end-seed","data":{}}`)
	auAppend(t, l, `{"type":"compaction/start","data":{"compactionId":"k1","turn":null}}`)
	if !l.CompactionOpen() {
		t.Fatal("lock not held")
	}
	_, err := auPlan(t, l, sessionlog.OpEdit, auID("u2"), auStr("Q"), nil, idle)
	auCode(t, err, sessionlog.CodeCompactionOpen)
}

// ---- precedence (S79) ----

func TestS79_PrecedencePairs(t *testing.T) {
	locked := auF(t)
	auAppend(t, locked, `{"type":"compaction/start","data":{"compactionId":"k1","turn":null}}`)
	// step 3 (not-user-message) before step 4 (compaction-open).
	_, err := auPlan(t, locked, sessionlog.OpEdit, auID("rc1"), auStr("x"), nil, idle)
	auCode(t, err, sessionlog.CodeNotUserMessage)

	// compaction-open before target-shadowed; agent-busy before target-shadowed.
	fk := auLoad(t, "compaction.jsonl", 0)
	_, err = auPlan(t, fk, sessionlog.OpRegenerate, auID("a2"), nil, nil, sessionlog.Env{AgentRunning: true})
	auCode(t, err, sessionlog.CodeAgentBusy)
	_, err = auPlan(t, fk, sessionlog.OpRegenerate, auID("u1"), nil, nil, sessionlog.Env{WakePending: true})
	auCode(t, err, sessionlog.CodeAgentBusy)
	auAppend(t, fk, `{"type":"compaction/start","data":{"compactionId":"k2","turn":null}}`)
	_, err = auPlan(t, fk, sessionlog.OpEdit, auID("u1"), auStr("y"), nil, idle)
	auCode(t, err, sessionlog.CodeCompactionOpen)

	// step 4 (regenerate-not-last) before step 5 (unknown attachment, empty).
	f := auF(t)
	_, err = auPlan(t, f, sessionlog.OpRegenerate, auID("u1"), nil, []string{"img-Z"}, idle)
	auCode(t, err, sessionlog.CodeRegenerateNotLast)
	_, err = auPlan(t, f, sessionlog.OpRegenerate, auID("u1"), auStr(""), nil, idle)
	auCode(t, err, sessionlog.CodeRegenerateNotLast)
	// target-shadowed before an unknown attachment.
	fk = auLoad(t, "compaction.jsonl", 0)
	_, err = auPlan(t, fk, sessionlog.OpEdit, auID("u1"), auStr("y"), []string{"img-Z"}, idle)
	auCode(t, err, sessionlog.CodeTargetShadowed)
}

// ---- route ----

const (
	auOrigin  = "http://127.0.0.1:4000"
	auVersion = "1.3.0"
)

type auSession struct {
	mu        sync.Mutex
	log       *sessionlog.Log
	version   int
	agent     *auAgent
	noAgent   bool
	flushErr  error
	calls     []string
	eventsHit chan struct{} // when set, signalled on every Events
}

func (s *auSession) HeaderVersion() (int, error) { return s.version, nil }
func (s *auSession) Events() ([]json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "events")
	if s.eventsHit != nil {
		select {
		case s.eventsHit <- struct{}{}:
		default:
		}
	}
	out := []json.RawMessage{}
	for _, e := range s.log.Events {
		b, err := e.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
func (s *auSession) Append(typ string, data, surfaceOp json.RawMessage, src []int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "append")
	env := map[string]any{"type": typ, "seq": s.log.Len(), "time": 1, "data": data, "surfaceOp": surfaceOp}
	if src != nil {
		env["sourceEventSeqs"] = src
	}
	b, _ := json.Marshal(env)
	ev, err := sessionlog.ParseEvent(b, s.log.Len())
	if err == nil {
		err = s.log.Append(ev)
	}
	if err != nil {
		return 0, err
	}
	return ev.Seq, nil
}
func (s *auSession) Agent() (route.Agent, bool) {
	if s.noAgent {
		return nil, false
	}
	return s.agent, true
}
func (s *auSession) record(c string) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}
func (s *auSession) length() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Len()
}

type auFlushing struct{ *auSession }

func (f auFlushing) Flush() error { f.record("flush"); return f.flushErr }

type auAgent struct {
	s      *auSession
	status string
	err    error
	hold   chan struct{}
	mu     sync.Mutex
	n      int
}

func (a *auAgent) Status() string { return a.status }
func (a *auAgent) Followup(json.RawMessage) error {
	if a.s != nil {
		a.s.record("followup")
	}
	if a.hold != nil {
		<-a.hold
	}
	a.mu.Lock()
	a.n++
	a.mu.Unlock()
	return a.err
}
func (a *auAgent) count() int { a.mu.Lock(); defer a.mu.Unlock(); return a.n }

type auPort struct {
	sessions map[string]route.Session
	deny     bool
}

func (p *auPort) Session(id string) (route.Session, bool) { s, ok := p.sessions[id]; return s, ok }
func (p *auPort) Authorize(*http.Request) bool            { return !p.deny }
func (p *auPort) Origin() string                          { return auOrigin }
func (p *auPort) Version() string                         { return auVersion }

type auRig struct {
	h    *route.Handler
	port *auPort
	s    *auSession
	a    *auAgent
}

func auNewSession(t *testing.T, l *sessionlog.Log) *auSession {
	s := &auSession{log: l, version: 4}
	s.agent = &auAgent{s: s, status: "idle"}
	return s
}

func auSetup(t *testing.T) *auRig {
	s := auNewSession(t, auF(t))
	p := &auPort{sessions: map[string]route.Session{"sF": s}}
	return &auRig{h: route.New(p), port: p, s: s, a: s.agent}
}

type auEnvelope struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func auReq(method, path, body string, mutate ...func(*http.Request)) *http.Request {
	r := httptest.NewRequest(method, auOrigin+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(route.VersionHeader, auVersion)
	for _, m := range mutate {
		m(r)
	}
	return r
}

func (g *auRig) do(t *testing.T, method, path, body string, mutate ...func(*http.Request)) (int, auEnvelope) {
	t.Helper()
	w := httptest.NewRecorder()
	g.h.ServeHTTP(w, auReq(method, path, body, mutate...))
	var env auEnvelope
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatalf("non-JSON answer %d: %s", w.Code, w.Body.String())
	}
	return w.Code, env
}

func auFail(t *testing.T, status int, env auEnvelope, wantStatus int, code string) {
	t.Helper()
	if status != wantStatus || env.OK || env.Error.Code != code {
		t.Fatalf("want %d %s, got %d %+v", wantStatus, code, status, env)
	}
}

// S85: the transport checks run in their order: host/origin, auth, method,
// version header, body size, then JSON shape.
func TestS85_TransportCheckOrder(t *testing.T) {
	g := auSetup(t)
	body := `{"session":"sF","target":{"messageId":"u1"},"text":"x"}`
	evil := func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }
	noVersion := func(r *http.Request) { r.Header.Del(route.VersionHeader) }
	skew := func(r *http.Request) { r.Header.Set(route.VersionHeader, "1.2.0") }
	huge := func(r *http.Request) { r.ContentLength = 70000 }
	// 1 before 2
	g.port.deny = true
	st, env := g.do(t, "POST", route.PathEdit, body, evil)
	auFail(t, st, env, 403, "forbidden")
	// 2 before 3
	st, env = g.do(t, "GET", route.PathEdit, "")
	auFail(t, st, env, 401, "unauthorized")
	g.port.deny = false
	// 3 before 4
	st, env = g.do(t, "GET", route.PathEdit, "", noVersion)
	auFail(t, st, env, 405, "method-not-allowed")
	// 4 before 5
	st, env = g.do(t, "POST", route.PathEdit, "{}", skew, huge)
	auFail(t, st, env, 409, "version-skew")
	st, env = g.do(t, "POST", route.PathEdit, "{}", noVersion, huge)
	auFail(t, st, env, 400, "bad-request")
	// 5 before 6: an oversized body that is not even JSON.
	st, env = g.do(t, "POST", route.PathEdit, strings.Repeat("x", route.MaxBody+1), func(r *http.Request) { r.ContentLength = -1 })
	auFail(t, st, env, 413, "too-large")
	// Transport (6) before session-not-loaded (S79.1).
	st, env = g.do(t, "POST", route.PathEdit, `{"session":"sX","target":{"messageId":"u1"},"text":"x","removeAttachments":"a"}`)
	auFail(t, st, env, 400, "bad-request")
	if g.s.length() != 20 {
		t.Fatal("refusal wrote")
	}
}

// countingReader serves n bytes of a JSON string body and counts reads.
type countingReader struct {
	n, read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(len(p), c.n-c.read)
	for i := 0; i < k; i++ {
		p[i] = 'x'
	}
	c.read += k
	return k, nil
}

// S85.5: without a Content-Length the body is read through the limit: more
// than 65,536 bytes is too-large, and the reader is never drained.
func TestS85_BodyReadThroughLimit(t *testing.T) {
	g := auSetup(t)
	prefix, suffix := `{"session":"sF","target":{"messageId":"u1"},"text":"`, `"}`
	body := prefix + strings.Repeat("x", route.MaxBody+1-len(prefix)-len(suffix)) + suffix
	st, env := g.do(t, "POST", route.PathEdit, body, func(r *http.Request) { r.ContentLength = -1 })
	auFail(t, st, env, 413, "too-large")
	if g.s.length() != 20 {
		t.Fatal("oversized body wrote")
	}
	cr := &countingReader{n: 10 << 20}
	r := auReq("POST", route.PathEdit, "")
	r.Body, r.ContentLength = io.NopCloser(cr), -1
	w := httptest.NewRecorder()
	g.h.ServeHTTP(w, r)
	if w.Code != 413 {
		t.Fatalf("status %d", w.Code)
	}
	if cr.read > 2*route.MaxBody {
		t.Fatalf("read %d bytes of an endless body", cr.read)
	}
}

// S79.1: session-not-loaded comes before unsupported-format.
func TestS79_NotLoadedBeforeUnsupportedFormat(t *testing.T) {
	g := auSetup(t)
	g.s.version, g.s.noAgent = 9, true
	st, env := g.do(t, "POST", route.PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"x"}`)
	auFail(t, st, env, 409, "session-not-loaded")
}

// S83: undo takes no removeAttachments; removeAttachments must be strings;
// target.seq must be an integer; text must be a string or absent.
func TestS83_IllTypedFields(t *testing.T) {
	g := auSetup(t)
	for _, c := range []struct{ path, body string }{
		{route.PathUndo, `{"session":"sF","target":{"messageId":"u1"},"removeAttachments":[]}`},
		{route.PathEdit, `{"session":"sF","target":{"messageId":"u2"},"text":"x","removeAttachments":[1]}`},
		{route.PathEdit, `{"session":"sF","target":{"seq":2.5},"text":"x"}`},
		{route.PathRegenerate, `{"session":"sF","target":{"messageId":"u2"},"text":null}`},
		{route.PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":7}`},
		{route.PathEdit, `{"session":"","target":{"messageId":"u1"},"text":"x"}`},
	} {
		st, env := g.do(t, "POST", c.path, c.body)
		if st != 400 || env.Error.Code != "bad-request" {
			t.Fatalf("%s %s: %d %+v", c.path, c.body, st, env)
		}
	}
	if g.s.length() != 20 || g.a.count() != 0 {
		t.Fatal("refusal wrote or woke")
	}
}

// S86: statuses of the planner refusals not otherwise seen through the
// route: target-shadowed, no-prompt, regenerate-not-last are 409.
func TestS86_PlannerRefusalStatuses(t *testing.T) {
	g := auSetup(t)
	st, env := g.do(t, "POST", route.PathRegenerate, `{"session":"sF","target":{"messageId":"u1"}}`)
	auFail(t, st, env, 409, "regenerate-not-last")
	fk := auNewSession(t, auLoad(t, "compaction.jsonl", 0))
	g.port.sessions["sK"] = fk
	st, env = g.do(t, "POST", route.PathEdit, `{"session":"sK","target":{"messageId":"u1"},"text":"x"}`)
	auFail(t, st, env, 409, "target-shadowed")
	l := auF(t)
	auAppend(t, l, `{"type":"user/message","data":{"id":"u2","role":"user","content":[{"type":"text","text":"x"}],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":15,"endSeq":15},"sourceEventSeqs":[15]}`)
	g.port.sessions["sN"] = auNewSession(t, l)
	st, env = g.do(t, "POST", route.PathRegenerate, `{"session":"sN","target":{"messageId":"a3"}}`)
	auFail(t, st, env, 409, "no-prompt")
	if g.s.length() != 20 || fk.length() != 24 || g.a.count() != 0 {
		t.Fatal("refusal wrote or woke")
	}
}

// S52, S64: the flush comes after the append and before the wake; a failed
// flush answers internal (unconfirmed) and wakes nobody, leaving no wake
// pending.
func TestS64_FlushBeforeFollowup(t *testing.T) {
	g := auSetup(t)
	g.port.sessions["sF"] = auFlushing{g.s}
	st, env := g.do(t, "POST", route.PathRegenerate, `{"session":"sF","target":{"messageId":"u2"},"text":"Q2"}`)
	if st != 200 || !env.OK {
		t.Fatalf("%d %+v", st, env)
	}
	if got := strings.Join(g.s.calls, ","); got != "events,append,flush,followup" {
		t.Fatalf("calls %s", got)
	}

	g = auSetup(t)
	g.s.flushErr = errors.New("disk full")
	g.port.sessions["sF"] = auFlushing{g.s}
	st, env = g.do(t, "POST", route.PathRegenerate, `{"session":"sF","target":{"messageId":"u2"},"text":"Q2"}`)
	auFail(t, st, env, 500, "internal")
	if !strings.Contains(env.Error.Message, "unconfirmed") || g.a.count() != 0 || g.s.length() != 21 {
		t.Fatalf("%+v followups %d", env, g.a.count())
	}
}

// S65, S68: a wake is pending only after a successful followup: after a
// failed one the next regenerate is not agent-busy.
func TestS65_FailedFollowupLeavesNoWakePending(t *testing.T) {
	g := auSetup(t)
	g.a.err = errors.New("agent gone")
	st, env := g.do(t, "POST", route.PathRegenerate, `{"session":"sF","target":{"messageId":"u2"},"text":"Q2"}`)
	auFail(t, st, env, 500, "internal")
	_, env = g.do(t, "GET", route.PathState+"?session=sF", "")
	if !strings.Contains(string(env.Value), `"wakePending":false`) {
		t.Fatal(string(env.Value))
	}
	g.a.err = nil
	st, env = g.do(t, "POST", route.PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	if st != 200 {
		t.Fatalf("%d %+v", st, env)
	}
}

// S65: the pending wake belongs to its session; another session's
// regenerate is not busy.
func TestS65_WakePendingIsPerSession(t *testing.T) {
	g := auSetup(t)
	other := auNewSession(t, auF(t))
	g.port.sessions["sG"] = other
	st, _ := g.do(t, "POST", route.PathRegenerate, `{"session":"sF","target":{"messageId":"u2"}}`)
	if st != 200 {
		t.Fatal(st)
	}
	st, env := g.do(t, "POST", route.PathRegenerate, `{"session":"sG","target":{"messageId":"u2"}}`)
	if st != 200 {
		t.Fatalf("%d %+v", st, env)
	}
	_, env = g.do(t, "GET", route.PathState+"?session=sG", "")
	if !strings.Contains(string(env.Value), `"wakePending":true`) {
		t.Fatal(string(env.Value))
	}
}

// S80: the lock covers followup: a second operation on the session does not
// read its snapshot until the regenerate's followup has returned. A state
// read takes no lock and answers meanwhile.
func TestS80_LockCoversFollowupStateTakesNone(t *testing.T) {
	g := auSetup(t)
	g.a.hold = make(chan struct{})
	g.s.eventsHit = make(chan struct{}, 8)
	done := make(chan int, 2)
	go func() {
		w := httptest.NewRecorder()
		g.h.ServeHTTP(w, auReq("POST", route.PathRegenerate, `{"session":"sF","target":{"messageId":"u2"},"text":"Q2"}`))
		done <- w.Code
	}()
	<-g.s.eventsHit // the regenerate read its snapshot
	for {           // and is now inside followup
		g.s.mu.Lock()
		in := slices.Contains(g.s.calls, "followup")
		g.s.mu.Unlock()
		if in {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// A state read answers while the operation holds the lock.
	stateDone := make(chan int, 1)
	go func() {
		w := httptest.NewRecorder()
		g.h.ServeHTTP(w, auReq("GET", route.PathState+"?session=sF", ""))
		stateDone <- w.Code
	}()
	select {
	case code := <-stateDone:
		if code != 200 {
			t.Fatalf("state %d", code)
		}
	case <-time.After(10 * time.Second):
		close(g.a.hold)
		t.Fatal("state read blocked behind the operation lock")
	}
	<-g.s.eventsHit // the state read's snapshot
	go func() {
		w := httptest.NewRecorder()
		g.h.ServeHTTP(w, auReq("POST", route.PathEdit, `{"session":"sF","target":{"messageId":"u1"},"text":"q1*"}`))
		done <- w.Code
	}()
	select {
	case <-g.s.eventsHit:
		close(g.a.hold)
		t.Fatal("a second operation read the snapshot while followup was running")
	case <-time.After(100 * time.Millisecond):
	}
	close(g.a.hold)
	if a, b := <-done, <-done; a != 200 || b != 200 {
		t.Fatalf("%d %d", a, b)
	}
}

// S87: state reports agentRunning and compactionOpen from the live session.
func TestS87_StateReportsRunningAndLock(t *testing.T) {
	g := auSetup(t)
	g.a.status = "running"
	g.s.log = func() *sessionlog.Log {
		l := auF(t)
		auAppend(t, l, `{"type":"compaction/start","data":{"compactionId":"k1","turn":null}}`)
		return l
	}()
	st, env := g.do(t, "GET", route.PathState+"?session=sF", "")
	if st != 200 {
		t.Fatal(st)
	}
	var v map[string]any
	json.Unmarshal(env.Value, &v)
	if v["agentRunning"] != true || v["compactionOpen"] != true || v["wakePending"] != false {
		t.Fatalf("%v", v)
	}
}
