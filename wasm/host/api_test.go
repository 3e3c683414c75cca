package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/sessionlog/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func callJSON(t *testing.T, tb *logs, name string, id int, input []byte, args string) map[string]any {
	t.Helper()
	v, err := tb.call(name, id, input, []byte(args))
	var out map[string]any
	if err := json.Unmarshal(envelope(v, err), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// C21 through the host API: plan answers the exact event the route appends.
func TestAPIPlanC21(t *testing.T) {
	var tb logs
	out := callJSON(t, &tb, "plan", 0, fixture(t, "f.jsonl"), `{"request":{"op":"edit","target":{"messageId":"u1"},"text":"q1*","time":1}}`)
	if out["ok"] != true {
		t.Fatalf("plan failed: %v", out)
	}
	ev := out["value"].(map[string]any)["events"].([]any)[0].(map[string]any)
	if ev["seq"] != 20.0 || ev["type"] != "user/message" {
		t.Fatalf("event = %v", ev)
	}
}

// S53 code and exact message survive the envelope; unknown arguments are
// bad-request rather than ignored.
func TestAPIErrors(t *testing.T) {
	var tb logs
	out := callJSON(t, &tb, "plan", 0, fixture(t, "f.jsonl"), `{"request":{"op":"edit","target":{"messageId":"a1"},"text":"x"}}`)
	e := out["error"].(map[string]any)
	if e["code"] != "assistant-immutable" || !strings.HasPrefix(e["message"].(string), "Model replies cannot be rewritten") {
		t.Fatalf("error = %v", e)
	}
	out = callJSON(t, &tb, "fold", 0, fixture(t, "f.jsonl"), `{"options":{"bogus":true}}`)
	if out["error"].(map[string]any)["code"] != "bad-request" {
		t.Fatalf("unknown option accepted: %v", out)
	}
}

// S44 S4: an edit's text with a lone surrogate is refused, not planned as
// U+FFFD (encoding/json's reading of the escape); a pair is kept.
func TestAPIPlanLoneSurrogateRefused(t *testing.T) {
	var tb logs
	out := callJSON(t, &tb, "plan", 0, fixture(t, "f.jsonl"), `{"request":{"op":"edit","target":{"messageId":"u1"},"text":"a\ud800b","time":1}}`)
	e, _ := out["error"].(map[string]any)
	if e == nil || e["code"] != "bad-request" || !strings.Contains(e["message"].(string), `lone surrogate, \ud800`) {
		t.Fatalf("lone surrogate planned: %v", out)
	}
	id := callJSON(t, &tb, "open", 0, fixture(t, "f.jsonl"), "")["value"].(map[string]any)["id"].(float64)
	out = callJSON(t, &tb, "log.plan", int(id), nil, `{"op":"edit","target":{"messageId":"u1"},"text":"\udfffx","time":1}`)
	if e, _ := out["error"].(map[string]any); e == nil || e["code"] != "bad-request" {
		t.Fatalf("lone surrogate planned through a handle: %v", out)
	}
	out = callJSON(t, &tb, "plan", 0, fixture(t, "f.jsonl"), `{"request":{"op":"edit","target":{"messageId":"u1"},"text":"\ud83d\ude00","time":1}}`)
	if out["ok"] != true {
		t.Fatalf("a surrogate pair refused: %v", out)
	}
}

// S22 through a handle: a refused append leaves the log as it was.
func TestAPIHandleAppendAllOrNothing(t *testing.T) {
	var tb logs
	out := callJSON(t, &tb, "open", 0, fixture(t, "f.jsonl"), "")
	id := int(out["value"].(map[string]any)["id"].(float64))
	out = callJSON(t, &tb, "log.append", id, []byte(`{"type":"user/message","seq":20,"time":1,"data":{"id":"x","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append","sourceEventSeqs":[]}`), "")
	if e := out["error"].(map[string]any); e["message"] != "sourceEventSeqs must not be empty" || e["rule"] != "V10" {
		t.Fatalf("error = %v", e)
	}
	out = callJSON(t, &tb, "log.info", id, nil, "")
	if out["value"].(map[string]any)["length"] != 20.0 {
		t.Fatalf("refused append changed the log: %v", out)
	}
	callJSON(t, &tb, "log.close", id, nil, "")
	if out = callJSON(t, &tb, "log.info", id, nil, ""); out["ok"] != false {
		t.Fatal("closed handle still answers")
	}
}
