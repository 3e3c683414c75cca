package sessionlog

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// C01, S25, S28: fold F and derive its messages.
func TestC01_FoldF(t *testing.T) {
	l := loadF(t)
	wantSurface(t, l, 1, 2, 3, 6, 8, 11, 15, 17)
	if l.Len() != 20 {
		t.Fatalf("len %d", l.Len())
	}
	msgs := l.Messages()
	var ids []string
	for _, m := range msgs {
		ids = append(ids, asString(asMap(m)["id"]))
	}
	if got := strings.Join(ids, ","); got != "s,u1,rc1,a1,t1,a2,u2,a3" {
		t.Fatalf("ids %s", got)
	}
	// S28: user/message yields data itself, others data.message.
	if asMap(msgs[1])["role"] != "user" || asMap(msgs[3])["role"] != "assistant" {
		t.Fatal("derived message shapes wrong")
	}
}

// C02, V1, S7
func TestC02_V1_Contiguity(t *testing.T) {
	l := loadF(t)
	err := l.ValidateCandidate(ev(t, l, `{"type":"turn/start","seq":21,"data":{"turn":3}}`))
	wantErr(t, err, "session event seq 21 is not contiguous; expected 20")
	if e := err.(*Error); e.Rule != "V1" || e.Seq != 20 {
		t.Fatalf("rule/seq %+v", e)
	}
	// S8: a non-integer or missing seq is not contiguous either.
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"turn/start","seq":20.5,"data":{}}`)), "session event seq 20.5 is not contiguous; expected 20")
}

// S8: seq-valued fields must be safe non-negative integers; v3+ rejects -0.
func TestS8_SeqValues(t *testing.T) {
	l := load(t, "f.jsonl", 1) // one event: seq 0 is next... len 1
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{"id":"x","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append","sourceEventSeqs":[9007199254740992]}`)),
		`session event "user/message" sourceEventSeqs must densely contain non-negative safe integers`)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":"append","sourceEventSeqs":[-0]}`)),
		`session event "user/message" sourceEventSeqs must densely contain non-negative safe integers`)
	// v0 accepts -0 as 0.
	l0 := load(t, "legacy-v0.jsonl", 1)
	if err := l0.ValidateCandidate(ev(t, l0, `{"type":"user/message","data":{},"surfaceOp":"append","sourceEventSeqs":[-0]}`)); err != nil {
		t.Fatal(err)
	}
	// v3+: a replace endpoint of -0 is an invalid replace op.
	f := loadF(t)
	wantErr(t, f.ValidateCandidate(ev(t, f, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":-0,"endSeq":2},"sourceEventSeqs":[2]}`)),
		`session event "user/message" carries an invalid replace surfaceOp`)
	// 1e0 and 2.0 are integers to a JavaScript reader.
	if err := f.ValidateCandidate(ev(t, f, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":2.0,"endSeq":2e0},"sourceEventSeqs":[2]}`)); err != nil {
		t.Fatal(err)
	}
}

// C03, V6, S10
func TestC03_V6_ReplaceSpelling(t *testing.T) {
	l := loadF(t)
	const msg = `session event "user/message" carries an invalid replace surfaceOp`
	for _, op := range []string{
		`{"op":"replace","start":2,"end":2}`,
		`{"op":"replace","startSeq":2,"end":2}`,
		`{"op":"replace","startSeq":2,"endSeq":2,"note":"x"}`,
		`{"op":"append","startSeq":2,"endSeq":2}`,
		`{"op":"replace","startSeq":"2","endSeq":2}`,
	} {
		wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":`+op+`,"sourceEventSeqs":[2]}`)), msg)
	}
}

// C04, V2, V3
func TestC04_V2V3_NotEligible(t *testing.T) {
	l := loadF(t)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"turn/start","data":{"turn":3},"surfaceOp":"append"}`)),
		`session event "turn/start" is not surface-eligible and cannot carry surfaceOp`)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"tool/call","data":{},"sourceEventSeqs":[6]}`)),
		`session event "tool/call" is not surface-eligible and cannot carry sourceEventSeqs`)
}

// C05, V4, V5
func TestC05_V4V5_Marker(t *testing.T) {
	l := loadF(t)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{}}`)),
		`session event "user/message" is surface-eligible and requires a surfaceOp marker`)
	for _, op := range []string{`"prepend"`, `null`, `[]`, `3`} {
		wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":`+op+`}`)),
			`session event "user/message" carries an invalid surfaceOp`)
	}
}

// C06, V7
func TestC06_V7_EarlierEndpoints(t *testing.T) {
	l := loadF(t)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":20},"sourceEventSeqs":[2]}`)),
		"surface replace at seq 20: startSeq and endSeq must reference earlier events")
}

// C07, V9–V13
func TestC07_V9toV13_Sources(t *testing.T) {
	l := loadF(t)
	base := `{"type":"user/message","data":{"id":"x","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append","sourceEventSeqs":`
	cases := map[string]string{
		`[]`:        "sourceEventSeqs must not be empty",
		`[2,2]`:     "sourceEventSeqs must not contain duplicates",
		`[20]`:      "sourceEventSeqs must reference earlier events: 20 >= current seq 20",
		`[-1]`:      `session event "user/message" sourceEventSeqs must densely contain non-negative safe integers`,
		`2`:         "sourceEventSeqs on event at seq 20 must be an array when present",
		`null`:      "sourceEventSeqs on event at seq 20 must be an array when present",
		`[1.5]`:     `session event "user/message" sourceEventSeqs must densely contain non-negative safe integers`,
		`[3,25,21]`: "sourceEventSeqs must reference earlier events: 25 >= current seq 20",
	}
	for src, msg := range cases {
		wantErr(t, l.ValidateCandidate(ev(t, l, base+src+`}`)), msg)
	}
}

// C08, V8, V17
func TestC08_V8_AssistantSources(t *testing.T) {
	l := loadF(t)
	a1 := canon(t, l.Events[6].Data())
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"assistant/message","data":`+a1+`,"surfaceOp":{"op":"replace","startSeq":6,"endSeq":6},"sourceEventSeqs":[6]}`)),
		"assistant/message embeds its source stream and cannot carry sourceEventSeqs")
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"assistant/message","data":`+a1+`,"surfaceOp":{"op":"replace","startSeq":6,"endSeq":6}}`)),
		"surface replace: sourceEventSeqs must include every shadowed surface node; missing 6")
}

// C09, V17, S11 (supersets allowed)
func TestC09_V17_Coverage(t *testing.T) {
	l := loadF(t)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":6,"endSeq":11},"sourceEventSeqs":[6,8]}`)),
		"surface replace: sourceEventSeqs must include every shadowed surface node; missing 11")
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":11}}`)),
		"surface replace: sourceEventSeqs must include every shadowed surface node; missing 2, 3, 6, 8, 11")
	mustAppend(t, l, `{"type":"user/message","data":{"id":"u1","role":"user","content":[`+tq1+`],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[1,2]}`)
	wantSurface(t, l, 1, 20, 3, 6, 8, 11, 15, 17)
}

// C10, V14–V16, S26
func TestC10_V14toV16_Range(t *testing.T) {
	l := loadF(t)
	rep := func(a, b string) *Event {
		return ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":`+a+`,"endSeq":`+b+`},"sourceEventSeqs":[2,3,6,8]}`)
	}
	wantErr(t, l.ValidateCandidate(rep("8", "2")), "surface replace: start seq 8 (index 4) is after end seq 2 (index 1)")
	wantErr(t, l.ValidateCandidate(rep("4", "4")), "surface replace: start seq 4 not found in surface")
	wantErr(t, l.ValidateCandidate(rep("2", "5")), "surface replace: end seq 5 not found in surface")
}

// C11, S26, S27: ranges are positional; a shadowed seq never returns.
func TestC11_PositionalRange(t *testing.T) {
	l := loadF(t)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"u1","role":"user","content":[{"type":"text","text":"q1*"}],"source":{"kind":"user","messageEdit":{"originalEventSeq":2,"action":"edit"}}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`)
	// start 20 is numerically greater than end 3 but earlier on the surface.
	mustAppend(t, l, `{"type":"user/message","data":{"id":"x","role":"user","content":[{"type":"text","text":"x"}],"source":{"kind":"plugin:test"}},"surfaceOp":{"op":"replace","startSeq":20,"endSeq":3},"sourceEventSeqs":[20,3]}`)
	wantSurface(t, l, 1, 21, 6, 8, 11, 15, 17)
	// S27: naming 2 again fails.
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`)),
		"surface replace: start seq 2 not found in surface")
	if l.Generation() != 2 {
		t.Fatalf("generation %d", l.Generation())
	}
}

// S26: numerically-between nodes that are not positionally between are untouched.
func TestS26_NumericRangeIgnored(t *testing.T) {
	l := loadF(t)
	// Move u1 to the tail position? Instead: replace rc1 (3) by 20, then 20..6 covers only [20,6].
	mustAppend(t, l, `{"type":"user/message","data":{"id":"rc1","role":"user","content":[],"source":{"kind":"runtime-context"}},"surfaceOp":{"op":"replace","startSeq":3,"endSeq":3},"sourceEventSeqs":[3]}`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"y","role":"user","content":[],"source":{"kind":"plugin:test"}},"surfaceOp":{"op":"replace","startSeq":20,"endSeq":6},"sourceEventSeqs":[20,6]}`)
	wantSurface(t, l, 1, 2, 21, 8, 11, 15, 17)
}

// C12, V18–V20, S12
func TestC12_ToolResultReplacement(t *testing.T) {
	l := loadF(t)
	tr := func(toolCallID string, a, b int, src string) *Event {
		return ev(t, l, `{"type":"tool/result","data":{"turn":1,"step":1,"message":{"id":"t1","role":"tool","toolCallId":"`+toolCallID+`","isError":false,"content":[{"type":"text","text":"cut"}],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":{"op":"replace","startSeq":`+itoa(a)+`,"endSeq":`+itoa(b)+`},"sourceEventSeqs":`+src+`}`)
	}
	wantErr(t, l.ValidateCandidate(tr("c9", 8, 8, "[8]")), "tool/result surface replacement may change only content")
	wantErr(t, l.ValidateCandidate(tr("c1", 6, 8, "[6,8]")), "tool/result surface replacement must rewrite exactly one current node")
	wantErr(t, l.ValidateCandidate(tr("c1", 2, 2, "[2]")), "tool/result surface replacement must target a current tool/result")
	if err := l.Append(tr("c1", 8, 8, "[8]")); err != nil {
		t.Fatal(err)
	}
	wantSurface(t, l, 1, 2, 3, 6, 20, 11, 15, 17)
}

// C13, V21, S13
func TestC13_V21_SystemHead(t *testing.T) {
	l := loadF(t)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":1},"sourceEventSeqs":[1]}`)),
		"surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node")
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"text","text":"SYS2"}],"source":{"kind":"system-prompt"}}},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":2},"sourceEventSeqs":[1,2]}`)),
		"surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node")
	mustAppend(t, l, `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"text","text":"SYS2"}],"source":{"kind":"system-prompt"}}},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":1},"sourceEventSeqs":[1]}`)
	wantSurface(t, l, 20, 2, 3, 6, 8, 11, 15, 17)
	// System nodes at later positions have no protection.
	mustAppend(t, l, `{"type":"system/message","data":{"turn":2,"step":2,"message":{"id":"s3","role":"system","content":[{"type":"text","text":"late"}],"source":{"kind":"system-prompt"}}},"surfaceOp":"append"}`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"z","role":"user","content":[],"source":{"kind":"plugin:test"}},"surfaceOp":{"op":"replace","startSeq":21,"endSeq":21},"sourceEventSeqs":[21]}`)
}

// C14, S28: an empty assistant keeps its node but yields no message.
func TestC14_EmptyAssistant(t *testing.T) {
	l := loadF(t)
	mustAppend(t, l, `{"type":"assistant/message","data":{"turn":2,"step":2,"message":{"id":"a9","role":"assistant","content":[],"source":{"kind":"model","provider":"p","model":"m"}},"stream":[]},"surfaceOp":"append"}`)
	wantSurface(t, l, 1, 2, 3, 6, 8, 11, 15, 17, 20)
	if n := len(l.Messages()); n != 8 {
		t.Fatalf("messages %d", n)
	}
}

// C15, V22, S14
func TestC15_UnknownTypes(t *testing.T) {
	f, _ := os.ReadFile(fixturePath("f.jsonl"))
	_, err := DecodeBytes(append(bytes.Clone(f), `{"type":"x/custom","seq":20,"time":1,"data":{}}`+"\n"...), DecodeOptions{})
	wantErr(t, err, `session event "x/custom" has an unknown type and is not marked ignorable`)
	if e := err.(*Error); e.Rule != "V22" || e.Line != 22 {
		t.Fatalf("%+v", e)
	}
	l, err := DecodeBytes(append(bytes.Clone(f), `{"type":"x/custom","seq":20,"time":1,"data":{},"ignorable":true,"surfaceOp":"append"}`+"\n"...), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantSurface(t, l, 1, 2, 3, 6, 8, 11, 15, 17)
	// Live snapshot fold: non-ignorable unknown is log-only.
	l, err = DecodeBytes(append(bytes.Clone(f), `{"type":"x/custom","seq":20,"time":1,"data":{}}`+"\n"...), DecodeOptions{Live: true})
	if err != nil {
		t.Fatal(err)
	}
	wantSurface(t, l, 1, 2, 3, 6, 8, 11, 15, 17)
	// In v0 unknown rows are log-only.
	l0 := load(t, "legacy-v0.jsonl", 0)
	mustAppend(t, l0, `{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`)
	wantSurface(t, l0, 0, 1, 7, 9)
}

// C16, V23, S5
func TestC16_HeaderVersion(t *testing.T) {
	_, err := DecodeBytes([]byte(`{"type":"session","version":7,"id":"x","createdAt":0}`+"\n"), DecodeOptions{})
	wantErr(t, err, "unsupported session format version 7")
	_, err = DecodeBytes([]byte(`{"type":"session","id":"x","createdAt":0}`+"\n"+`{"type":"user/message","seq":0,"time":0,"data":{"id":"u","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append","sourceEventSeqs":[]}`+"\n"), DecodeOptions{})
	if err == nil {
		t.Fatal("v0 user/message with empty sources must fail")
	}
	wantErr(t, err, "sourceEventSeqs must not be empty except on assistant/message")
	l, err := DecodeBytes([]byte(`{"type":"session","id":"x","createdAt":0}`+"\n"), DecodeOptions{})
	if err != nil || l.Version() != 0 {
		t.Fatalf("headerless version: %v", err)
	}
	_, err = DecodeBytes([]byte(`{"type":"event"}`+"\n"), DecodeOptions{})
	wantCode(t, err, CodeInvalidLog)
	_, err = DecodeBytes(nil, DecodeOptions{})
	wantCode(t, err, CodeInvalidLog)
}

// S9: eligibility depends on the header version.
func TestS9_EligibilityByVersion(t *testing.T) {
	for v, want := range map[int]string{
		2: `session event "system/message" is not surface-eligible and cannot carry surfaceOp`,
		3: `session event "developer/message" is not surface-eligible and cannot carry surfaceOp`,
	} {
		l := NewLog(Header{Version: v}, false)
		typ := "system/message"
		if v == 3 {
			typ = "developer/message"
		}
		wantErr(t, l.Append(ev(t, l, `{"type":"`+typ+`","data":{},"surfaceOp":"append"}`)), want)
	}
	l := NewLog(Header{Version: 4}, false)
	mustAppend(t, l, `{"type":"developer/message","data":{"turn":1,"step":1,"message":{"id":"d","role":"developer","content":[{"type":"tool-addition"}],"source":{"kind":"x"}}},"surfaceOp":"append"}`)
	wantSurface(t, l, 0)
}

// S21: order of checks; in v0–v2 a replacement's sources are checked after
// the range lookup, and V7/V8 do not exist.
func TestS21_CheckOrder(t *testing.T) {
	f := loadF(t)
	// v4: sources (V13) before range lookup (V14).
	wantErr(t, f.ValidateCandidate(ev(t, f, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":4,"endSeq":4},"sourceEventSeqs":[30]}`)),
		"sourceEventSeqs must reference earlier events: 30 >= current seq 20")
	l := load(t, "legacy-v0.jsonl", 0)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","start":4,"end":4},"sourceEventSeqs":[30]}`)),
		"surface replace: start seq 4 not found in surface")
	// v0: no V7 — endpoints past the event still only fail lookup.
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","start":0,"end":40},"sourceEventSeqs":[0]}`)),
		"surface replace: end seq 40 not found in surface")
}

// S22: a failed candidate leaves the log untouched.
func TestS22_NoPartialState(t *testing.T) {
	l := loadF(t)
	before := l.Surface()
	bad := ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":6,"endSeq":11},"sourceEventSeqs":[6,8]}`)
	if err := l.Append(bad); err == nil {
		t.Fatal("want error")
	}
	if l.Len() != 20 || l.Generation() != 0 {
		t.Fatal("log changed")
	}
	wantSurface(t, l, before...)
}

// L1, S17: the v0 fixture folds.
func TestL1_FoldLegacy(t *testing.T) {
	l := load(t, "legacy-v0.jsonl", 0)
	wantSurface(t, l, 0, 1, 7, 9)
	if n := len(l.Messages()); n != 4 {
		t.Fatalf("messages %d", n)
	}
	var got []string
	for _, r := range l.Transcript() {
		got = append(got, r.Kind+" "+itoa(r.Seq))
	}
	if s := strings.Join(got, ","); s != "user 0,context 1,assistant 7,tool 9" {
		t.Fatal(s)
	}
}

// L2 (validator part): a v3 spelling on a v0 log is invalid.
func TestL2_LegacySpelling(t *testing.T) {
	l := load(t, "legacy-v0.jsonl", 0)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":0},"sourceEventSeqs":[0]}`)),
		`session event "user/message" carries an invalid replace surfaceOp`)
}

// L3, V10 legacy wording.
func TestL3_LegacyEmptySources(t *testing.T) {
	l := load(t, "legacy-v0.jsonl", 0)
	if err := l.ValidateCandidate(ev(t, l, `{"type":"assistant/message","data":{"turn":1,"step":2,"message":{"id":"x","role":"assistant","content":[],"source":{"kind":"model"}}},"surfaceOp":"append","sourceEventSeqs":[]}`)); err != nil {
		t.Fatal(err)
	}
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":"append","sourceEventSeqs":[]}`)),
		"sourceEventSeqs must not be empty except on assistant/message")
}

// S104 wording and S103: parse errors name the line; snapshots need the import option.
func TestS103_ImportSnapshot(t *testing.T) {
	log := `{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w"}
{"type":"user/message","data":{"id":"u","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append"}
`
	_, err := DecodeBytes([]byte(log), DecodeOptions{})
	wantErr(t, err, "session event seq undefined is not contiguous; expected 0")
	l, err := DecodeBytes([]byte(log), DecodeOptions{ImportSnapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	if canon(t, l.Events[0].Fields()["time"]) != "0" {
		t.Fatal("time not defaulted")
	}
	_, err = DecodeBytes([]byte(log+"{nope\n"), DecodeOptions{ImportSnapshot: true})
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: ") {
		t.Fatalf("got %v", err)
	}
}

// S6: unknown fields and unknown blocks survive a round-trip.
func TestS6_Lossless(t *testing.T) {
	src := `{"type":"session","version":4,"id":"s","createdAt":1,"extra":{"k":[1,2.50,1e3]}}
{"type":"user/message","seq":0,"time":5,"data":{"id":"u","role":"user","content":[{"type":"mystery","x":12345678901234567890}],"source":{"kind":"user"},"zz":null},"surfaceOp":"append","future":true}
`
	l, err := DecodeBytes([]byte(src), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := l.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	src2 := strings.Split(strings.TrimSpace(src), "\n")
	for i := range lines {
		jsonEq(t, lines[i], src2[i])
	}
	if !strings.Contains(buf.String(), "12345678901234567890") || !strings.Contains(buf.String(), "2.50") {
		t.Fatal("number text not preserved")
	}
}

// All real v0 logs load, validate and fold (S17). session.expected.jsonl
// files are the harness's own expected snapshots for a test whose
// session.jsonl is the seed it starts from (a header-only log where both
// exist), so both are ordinary logs here.
func TestS17_RealLogs(t *testing.T) {
	root := realLogsRoot(t)
	n, replaces, markers := 0, 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if l, err := DecodeBytes(b, DecodeOptions{}); err == nil && l.Len() > 0 {
			t.Errorf("%s: loads without --import-snapshot although events lack seq", p)
		}
		l, err := DecodeBytes(b, DecodeOptions{ImportSnapshot: true})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if l.Version() != 0 {
			t.Errorf("%s: version %d", p, l.Version())
		}
		replaces += l.Generation()
		msgs := l.Messages()
		if len(msgs) > len(l.Surface()) {
			t.Errorf("%s: more messages than nodes", p)
		}
		for _, r := range l.Transcript() {
			if r.Kind == RowCompaction {
				markers++
			}
		}
		_ = l.Overlay(Env{})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 128 {
		t.Errorf("found %d logs, want 128", n)
	}
	// compaction-recovery and agent-instructions hold the set's two replaces.
	if replaces != 2 || markers != 2 {
		t.Errorf("replaces %d markers %d", replaces, markers)
	}
}

// S17: the compaction-recovery log's checkpoint shadows the prompt; its
// marker sits after the prompt's row (C19 placement).
func TestS17_RealCompaction(t *testing.T) {
	p := filepath.Join("..", "..", "shared", "data", "dsh-logs", "examples", "headless-agent", "tests", "snapshots", "compaction-recovery", "session.jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("real logs not available: %v", err)
	}
	l, err := DecodeBytes(b, DecodeOptions{ImportSnapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	wantSurface(t, l, 21, 13, 15, 28)
	rows := l.Transcript()
	if rows[0].Seq != 4 || rows[1].Kind != RowCompaction || rows[1].Seq != 21 {
		t.Fatalf("rows %v", rows)
	}
	if l.CompactionOpen() {
		t.Fatal("lock held after end")
	}
}

// S18: the v3 generation — startSeq/endSeq, no sources on assistant/message,
// system/message on the surface, unknown types must be ignorable.
func TestS18_V3Rules(t *testing.T) {
	l := NewLog(Header{Version: 3}, false)
	mustAppend(t, l, `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"text","text":"S"}],"source":{"kind":"system-prompt"}}},"surfaceOp":"append"}`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"u","role":"user","content":[{"type":"text","text":"q"}],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"assistant/message","data":{},"surfaceOp":"append","sourceEventSeqs":[1]}`)),
		"assistant/message embeds its source stream and cannot carry sourceEventSeqs")
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"user/message","data":{},"surfaceOp":{"op":"replace","start":1,"end":1},"sourceEventSeqs":[1]}`)),
		`session event "user/message" carries an invalid replace surfaceOp`)
	wantErr(t, l.ValidateCandidate(ev(t, l, `{"type":"mystery","data":{}}`)),
		`session event "mystery" has an unknown type and is not marked ignorable`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"u","role":"user","content":[{"type":"text","text":"q2"}],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":1},"sourceEventSeqs":[1]}`)
	wantSurface(t, l, 0, 2)
	// v3 checkpoints still use the plugin wrapper (Terms).
	mustAppend(t, l, `{"type":"user/message","data":{"id":"ck","role":"user","content":[],"source":{"kind":"plugin","plugin":"compact"}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`)
	if !l.isCheckpoint(3) {
		t.Fatal("v3 checkpoint not recognised")
	}
}

// S15: where each type keeps its message and id.
func TestS15_Shapes(t *testing.T) {
	l := loadF(t)
	for seq, id := range map[int]string{1: "s", 2: "u1", 3: "rc1", 6: "a1", 8: "t1"} {
		if got := messageID(l.Events[seq]); got != id {
			t.Fatalf("seq %d id %q", seq, got)
		}
	}
	// A user/message may appear outside any turn.
	mustAppend(t, l, `{"type":"user/message","data":{"id":"late","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	if r := l.Transcript(); r[len(r)-1].ID != "late" {
		t.Fatal("outside-turn prompt has no row")
	}
}

// V20, S12 (issue 15, item 4): on a v0–v3 tool/result replacement the
// tool-result block around the content is compared too, as the harness
// compares it: its toolCallId, isError, extra keys and type, and emptying
// the content, are changes; only the block's own content may differ. The
// verdicts were recorded from the harness (0.1.1) appending the same
// candidates to fixture L. The v4 rule (message.content ignored) stays.
func TestV20_ToolResultBlockInLegacyLogs(t *testing.T) {
	const v20 = "tool/result surface replacement may change only content"
	orig := `{"turn":1,"step":1,"message":{"id":"lt1","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"out"}],"isError":false}],"source":{"kind":"tool","callId":"c1"}}}`
	for _, c := range []struct {
		name, data, err string
	}{
		{"only the content", strings.Replace(orig, `[{"type":"text","text":"out"}]`, `[{"type":"text","text":"cut"}]`, 1), ""},
		{"nothing", orig, ""},
		{"toolCallId", strings.Replace(orig, `"toolCallId":"c1"`, `"toolCallId":"c9"`, 1), v20},
		{"isError", strings.Replace(orig, `"isError":false`, `"isError":true`, 1), v20},
		{"isError removed", strings.Replace(orig, `,"isError":false`, ``, 1), v20},
		{"extra block key", strings.Replace(orig, `"isError":false`, `"isError":false,"x":1`, 1), v20},
		{"emptied", strings.Replace(orig, `[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"out"}],"isError":false}]`, `[]`, 1), v20},
		{"type changed", strings.Replace(orig, `"type":"tool-result"`, `"type":"text"`, 1), v20},
		{"a second block", strings.Replace(orig, `"isError":false}]`, `"isError":false},{"type":"text","text":"more"}]`, 1), ""},
		{"message id", strings.Replace(orig, `"id":"lt1"`, `"id":"other"`, 1), v20},
		{"data key", strings.Replace(orig, `{"turn":1,`, `{"x":1,"turn":1,`, 1), v20},
		{"content a string", strings.Replace(orig, `[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"out"}],"isError":false}]`, `"out"`, 1), v20},
		{"block content removed", strings.Replace(orig, `"content":[{"type":"text","text":"out"}],`, ``, 1), ""},
		{"message removed", `{"turn":1,"step":1}`, v20},
		{"content null", strings.Replace(orig, `[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"out"}],"isError":false}]`, `null`, 1), v20},
	} {
		for _, v := range []int{0, 1, 2, 3} {
			l := load(t, "legacy-v0.jsonl", 0)
			l.Header.Version = v
			op := `{"op":"replace","start":9,"end":9}`
			if v == 3 {
				op = `{"op":"replace","startSeq":9,"endSeq":9}`
			}
			err := l.ValidateCandidate(ev(t, l, `{"type":"tool/result","data":`+c.data+`,"surfaceOp":`+op+`,"sourceEventSeqs":[9]}`))
			if c.err == "" && err != nil {
				t.Errorf("v%d %s: refused: %v", v, c.name, err)
			}
			if c.err != "" && (err == nil || err.Error() != c.err) {
				t.Errorf("v%d %s: got %v, want %q", v, c.name, err, c.err)
			}
		}
	}
	// v4 keeps its rule: message.content is free, the rest of data is not.
	l := loadF(t)
	tr := `{"turn":1,"step":1,"message":{"id":"t1","role":"tool","toolCallId":"c1","isError":false,"content":[],"source":{"kind":"tool","callId":"c1"}}}`
	if err := l.ValidateCandidate(ev(t, l, `{"type":"tool/result","data":`+tr+`,"surfaceOp":{"op":"replace","startSeq":8,"endSeq":8},"sourceEventSeqs":[8]}`)); err != nil {
		t.Fatal(err)
	}
}

// S111 (issue 15, item 5): an append carries no negative zero in its data
// or surface metadata, and a v0 append no retired request-header
// vocabulary, as the harness's append refuses; a stored -0 still loads.
func TestS111_AppendIsLossless(t *testing.T) {
	for _, c := range []struct {
		js  string
		bad bool
	}{
		{`{"type":"turn/start","data":{"turn":1,"x":-0}}`, true},
		{`{"type":"turn/start","data":{"turn":1,"x":-0.0e7}}`, true},
		{`{"type":"turn/start","data":{"turn":1,"x":[1,{"y":-0.000}]}}`, true},
		{`{"type":"turn/start","data":{"turn":1,"x":"-0"}}`, false},
		{`{"type":"turn/start","data":{"turn":1,"x":-0.5}}`, false},
		{`{"type":"turn/start","data":{"turn":1,"x":1e-0}}`, false},
		{`{"type":"turn/start","data":{"turn":1,"x":-10}}`, false},
		{`{"type":"request/header-delta","data":{}}`, true},
		{`{"type":"request/header","data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"fallback"}}`, true},
		{`{"type":"user/message","data":{"id":"u","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","start":0,"end":-0},"sourceEventSeqs":[0]}`, true},
	} {
		l := load(t, "legacy-v0.jsonl", 0)
		e, err := ParseEvent([]byte(strings.Replace(c.js, `{"type"`, `{"seq":12,"time":1,"type"`, 1)), 12)
		if err != nil {
			t.Fatal(err)
		}
		err = l.CheckAppend(e)
		if c.bad != (err != nil) {
			t.Errorf("%s: %v", c.js, err)
		}
	}
	head := `{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w","delegationDepth":0}` + "\n"
	if _, err := DecodeBytes([]byte(head+`{"type":"turn/start","seq":0,"time":0,"data":{"turn":1,"x":-0}}`+"\n"), DecodeOptions{}); err != nil {
		t.Fatalf("stored -0 refused: %v", err)
	}
}

// S6, S103: an event of a v1–v4 log carries an epoch-milliseconds time and
// data; without them the log is invalid, unless imported as a snapshot
// (time 0). Stored v0 files had the harness's own check already (S108).
func TestS6_EnvelopeTimeAndData(t *testing.T) {
	const head = `{"type":"session","version":4,"id":"s","createdAt":1}` + "\n"
	const user = `"type":"user/message","seq":0,"surfaceOp":"append","data":{"id":"u","role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}}`
	for _, c := range []struct{ line, msg string }{
		{`{` + user + `}`, "session event at seq 0 has an invalid event envelope: time must be epoch milliseconds (a safe integer), not none"},
		{`{` + user + `,"time":"now"}`, `session event at seq 0 has an invalid event envelope: time must be epoch milliseconds (a safe integer), not "now"`},
		{`{` + user + `,"time":1.5}`, "session event at seq 0 has an invalid event envelope: time must be epoch milliseconds (a safe integer), not 1.5"},
		{`{` + user + `,"time":null}`, "session event at seq 0 has an invalid event envelope: time must be epoch milliseconds (a safe integer), not null"},
		{`{"type":"turn/start","seq":0,"time":5}`, "session event at seq 0 has an invalid event envelope: it has no data"},
	} {
		_, err := DecodeBytes([]byte(head+c.line+"\n"), DecodeOptions{})
		wantErr(t, err, c.msg)
		if e := err.(*Error); e.Rule != "S6" || e.Seq != 0 || e.Code != CodeInvalidLog {
			t.Fatalf("%s: %+v", c.line, e)
		}
		// A live snapshot keeps the rule: the harness never writes one.
		if _, err := DecodeBytes([]byte(head+c.line+"\n"), DecodeOptions{Live: true}); err == nil {
			t.Fatalf("live: %s accepted", c.line)
		}
	}
	// Valid: an integer time (negative too, as the harness's check reads
	// it), data null; and a snapshot import's missing time is 0.
	for _, line := range []string{`{` + user + `,"time":-5}`, `{"type":"turn/start","seq":0,"time":0,"data":null}`} {
		if _, err := DecodeBytes([]byte(head+line+"\n"), DecodeOptions{}); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	if _, err := DecodeBytes([]byte(head+`{`+user+`}`+"\n"), DecodeOptions{ImportSnapshot: true}); err != nil {
		t.Fatalf("snapshot import: %v", err)
	}
	// A candidate through the append path is checked the same way.
	l, err := DecodeBytes([]byte(head), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, perr := ParseEvent([]byte(`{`+user+`}`), 0)
	if perr != nil {
		t.Fatal(perr)
	}
	wantErr(t, l.CheckAppend(e), "session event at seq 0 has an invalid event envelope: time must be epoch milliseconds (a safe integer), not none")
}
