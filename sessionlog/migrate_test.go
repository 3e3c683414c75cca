package sessionlog

import (
	"strings"
	"testing"
)

// S107 (issue 15, item 2): a v0 log in the older shapes — pre-identity
// user, assistant and tool-result messages, a flattened tool-result
// replacement, steering/message events, turn/start triggers and old
// turn/end reasons — folds to exactly the messages the harness (0.1.1)
// derives for it; the expected values were recorded from the harness.
func TestS107_LegacyShapesMigrateAsTheHarnessDoes(t *testing.T) {
	l := load(t, "legacy-flat-v0.jsonl", 0)
	wantSurface(t, l, 1, 4, 7, 8, 9, 13)
	jsonEq(t, l.Messages(), `[
	 {"content":[{"type":"text","text":"hi, read notes.txt"}],"source":{"kind":"user"},"id":"legacy-message:sLeg:1","role":"user"},
	 {"id":"legacy-message:sLeg:4","role":"assistant","content":[{"type":"tool-call","id":"c1","name":"read","arguments":"{\"path\":\"notes.txt\"}"}],"source":{"provider":"p","model":"m","kind":"model"}},
	 {"id":"legacy-message:sLeg:6","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"[pruned]"}],"isError":false}],"source":{"kind":"tool","callId":"c1"}},
	 {"content":[{"type":"text","text":"and be brief"}],"source":{"kind":"user"},"id":"legacy-message:sLeg:8","role":"user"},
	 {"id":"legacy-message:sLeg:9","role":"assistant","content":[{"type":"text","text":"The notes say hello."}],"source":{"provider":"p","model":"m","replayState":{"blocks":[{"type":"text"}]},"kind":"model"}},
	 {"id":"st2","role":"user","content":[{"type":"text","text":"wrapped steering"}],"source":{"kind":"user"}}]`)
	// Never a null message: every node derives an object.
	for i, m := range l.Messages() {
		if asMap(m) == nil {
			t.Fatalf("message %d is %v", i, m)
		}
	}
	// The migrated events are the current shapes; the file is untouched.
	if l.Events[8].Type != "user/message" || l.Events[13].Type != "user/message" {
		t.Fatal("steering/message not migrated")
	}
	jsonEq(t, l.Events[0].Data(), `{"turn":1}`)
	jsonEq(t, l.Events[11].Data(), `{"turn":1,"reason":{"kind":"error","error":{"message":"old thrown value","code":"UNKNOWN"}}}`)
	jsonEq(t, l.Events[14].Data(), `{"turn":2,"reason":{"kind":"aborted","reason":{"kind":"legacy"}}}`)
	jsonEq(t, l.Events[16].Data(), `{"turn":3,"reason":{"kind":"aborted","reason":{"kind":"disposed"}}}`)
	jsonEq(t, l.Events[18].Data(), `{"turn":4,"reason":{"kind":"error","error":{"message":"rate limited","code":"RATE_LIMIT","status":429,"providerRetryAfterMs":1000,"requestId":"r1"}}}`)
	rows := l.Transcript()
	if len(rows) != 6 || rows[0].ID != "legacy-message:sLeg:1" || rows[3].Kind != RowUser {
		t.Fatalf("rows %v", rows)
	}
}

// S107: an edit of a migrated message is planned against the migrated
// shape (the id the harness gave it), and the fold accepts the plan.
func TestS107_EditOfAMigratedMessage(t *testing.T) {
	l := load(t, "legacy-flat-v0.jsonl", 0)
	p, err := l.Plan(Request{Op: OpEdit, Target: byID("legacy-message:sLeg:1"), Text: ptr("hi, read todo.txt")}, Env{Time: 1})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, p.Event.Fields(), `{"type":"user/message","seq":19,"time":1,
	 "data":{"content":[{"type":"text","text":"hi, read todo.txt"}],"source":{"kind":"user","messageEdit":{"originalEventSeq":1,"action":"edit"}},"id":"legacy-message:sLeg:1","role":"user"},
	 "surfaceOp":{"op":"replace","start":1,"end":1},"sourceEventSeqs":[1]}`)
	if err := l.Append(p.Event); err != nil {
		t.Fatal(err)
	}
	wantSurface(t, l, 19, 4, 7, 8, 9, 13)
}

// S107: in v1–v4 the flattened reply and tool-result shapes are refused,
// naming the first such event, instead of folding to no message.
func TestS107_FlattenedShapesRefusedAfterV0(t *testing.T) {
	for _, v := range []string{"1", "2", "4"} {
		head := `{"type":"session","version":` + v + `,"id":"s","createdAt":0}` + "\n"
		log := head +
			`{"type":"user/message","seq":0,"time":0,"data":{"id":"u","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append"}` + "\n" +
			`{"type":"assistant/message","seq":1,"time":0,"data":{"turn":1,"step":1,"content":[{"type":"text","text":"x"}],"provenance":{"provider":"p","model":"m"}},"surfaceOp":"append"}` + "\n"
		_, err := DecodeBytes([]byte(log), DecodeOptions{})
		e := wantCode(t, err, CodeInvalidLog)
		if e.Seq != 1 || e.Rule != "S107" || !strings.Contains(e.Message, `"assistant/message" at seq 1 is in the older flattened message shape`) {
			t.Fatalf("v%s: %+v", v, e)
		}
		tool := head + `{"type":"tool/result","seq":0,"time":0,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":false},"surfaceOp":"append","sourceEventSeqs":[]}` + "\n"
		if v == "4" {
			tool = strings.Replace(tool, `,"sourceEventSeqs":[]`, "", 1)
		}
		_, err = DecodeBytes([]byte(tool), DecodeOptions{})
		if e := wantCode(t, err, CodeInvalidLog); e.Rule != "S107" {
			t.Fatalf("v%s tool: %+v", v, e)
		}
	}
}

// S107, S28: whatever a node holds, the fold never derives a null message
// (a live snapshot is not refused for its shapes, S14, so this is where it
// matters).
func TestS107_NoNullMessages(t *testing.T) {
	l := NewLog(Header{Version: 4}, true)
	mustAppend(t, l, `{"type":"user/message","data":null,"surfaceOp":"append"}`)
	mustAppend(t, l, `{"type":"assistant/message","data":{"turn":1,"step":1,"content":[{"type":"text","text":"x"}]},"surfaceOp":"append"}`)
	mustAppend(t, l, `{"type":"tool/result","data":{"callId":"c"},"surfaceOp":"append","sourceEventSeqs":[1]}`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"u","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	wantSurface(t, l, 0, 1, 2, 3)
	jsonEq(t, l.Messages(), `[{"id":"u","role":"user","content":[],"source":{"kind":"user"}}]`)
	b, _ := l.AppendFoldJSON(nil)
	jsonEq(t, string(b), `{"version":4,"surface":[0,1,2,3],"messages":[{"id":"u","role":"user","content":[],"source":{"kind":"user"}}],"length":4}`)
}
