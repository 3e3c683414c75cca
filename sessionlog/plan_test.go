package sessionlog

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func byID(id string) Target { return Target{MessageID: &id} }
func bySeq(s int) Target    { return Target{Seq: &s} }

func doPlan(t *testing.T, l *Log, op Op, tg Target, text *string, remove []string, env Env) (*Plan, error) {
	t.Helper()
	n, surf := l.Len(), l.Surface()
	p, err := l.Plan(Request{Op: op, Target: tg, Text: text, RemoveAttachments: remove}, env)
	if l.Len() != n || !slices.Equal(surf, l.Surface()) {
		t.Fatal("planning changed the log")
	}
	if err != nil {
		if p != nil {
			t.Fatal("plan returned with an error")
		}
		if codeOf(err) == CodeInternal {
			t.Fatalf("S23: planner produced an invalid event: %v", err)
		}
	}
	return p, err
}

// apply plans and appends, failing the test on any refusal.
func apply(t *testing.T, l *Log, op Op, tg Target, text *string, remove []string, env Env) *Plan {
	t.Helper()
	p, err := doPlan(t, l, op, tg, text, remove, env)
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

// eventJSON drops time, which the harness stamps.
func eventJSON(t *testing.T, e *Event) string {
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	delete(m, "time")
	return canon(t, m)
}

const (
	me2edit = `"messageEdit":{"originalEventSeq":2,"action":"edit"}`
)

// C21, S49, S50, S52, S29, S99: cold edit of u1; the next fold sees it and
// no "edited" note is added to the messages.
func TestC21_ColdEdit(t *testing.T) {
	l := loadF(t)
	p := apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	jsonEq(t, eventJSON(t, p.Event), `{"type":"user/message","seq":20,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"q1*"}],"source":{"kind":"user",`+me2edit+`}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`)
	if p.ReplacedSeq != 2 || p.InFlight || p.Wake || p.Unchanged {
		t.Fatalf("%+v", p)
	}
	wantSurface(t, l, 1, 20, 3, 6, 8, 11, 15, 17)
	msgs := l.Messages()
	jsonEq(t, asMap(msgs[1])["content"], `[{"type":"text","text":"q1*"}]`)
	f := loadF(t).Messages()
	for i := range msgs {
		if i != 1 && !deepEqual(msgs[i], f[i]) {
			t.Fatalf("message %d changed", i)
		}
	}
}

// C22, S31, S32: the transcript keeps the original; the overlay shows the edit.
func TestC22_OverlayAfterEdit(t *testing.T) {
	l := loadF(t)
	apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	if got := rowsString(l.Transcript()); got != "user 2,context 3,assistant 6,tool 8,assistant 11,user 15,assistant 17" {
		t.Fatal(got)
	}
	r := l.Overlay(Env{}).UserRows[0]
	if r.LiveSeq != 20 || r.Text != "q1*" || !r.Edited || !r.Undoable {
		t.Fatalf("%+v", r)
	}
}

// C23, S42, S43, S41: a second edit names the live node, never the original
// again, and the new messageEdit replaces the old one without nesting.
func TestC23_EditChains(t *testing.T) {
	l := loadF(t)
	apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	p := apply(t, l, OpEdit, bySeq(2), ptr("q1**"), nil, Env{})
	jsonEq(t, eventJSON(t, p.Event), `{"type":"user/message","seq":21,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"q1**"}],"source":{"kind":"user",`+me2edit+`}},"surfaceOp":{"op":"replace","startSeq":20,"endSeq":20},"sourceEventSeqs":[20]}`)
	wantSurface(t, l, 1, 21, 3, 6, 8, 11, 15, 17)
}

// C24, S44, S48: text is stored verbatim; a trailing space is a change.
func TestC24_Unchanged(t *testing.T) {
	l := loadF(t)
	apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	p, err := doPlan(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	if err != nil || !p.Unchanged || p.Event != nil {
		t.Fatalf("%+v %v", p, err)
	}
	apply(t, l, OpEdit, byID("u1"), ptr("q1* "), nil, Env{})
	if l.Len() != 22 {
		t.Fatal(l.Len())
	}
}

// C25, S45
func TestC25_EditMergesText(t *testing.T) {
	l := loadF(t)
	p := apply(t, l, OpEdit, byID("u2"), ptr("Q"), nil, Env{})
	jsonEq(t, eventJSON(t, p.Event), `{"type":"user/message","seq":20,"data":{"id":"u2","role":"user","content":[{"type":"text","text":"Q"},`+bIA+`,`+bFB+`],"source":{"kind":"user","messageEdit":{"originalEventSeq":15,"action":"edit"}}},"surfaceOp":{"op":"replace","startSeq":15,"endSeq":15},"sourceEventSeqs":[15]}`)
}

// C26, S48: unchanged even though a save would merge the blocks.
func TestC26_UnchangedMultiText(t *testing.T) {
	l := loadF(t)
	p, err := doPlan(t, l, OpEdit, byID("u2"), ptr("q2\nmore"), nil, Env{})
	if err != nil || !p.Unchanged {
		t.Fatalf("%+v %v", p, err)
	}
	p, err = doPlan(t, l, OpEdit, byID("u2"), ptr("q2\nmore"), []string{}, Env{})
	if err != nil || !p.Unchanged {
		t.Fatalf("empty removal list: %+v %v", p, err)
	}
}

// C27, S45, S69, S70: attachments can only be removed.
func TestC27_RemoveAttachment(t *testing.T) {
	l := loadF(t)
	p, err := doPlan(t, l, OpEdit, byID("u2"), ptr("q2\nmore"), []string{"img-A"}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[{"type":"text","text":"q2\nmore"},`+bFB+`]`)
	p, err = doPlan(t, l, OpEdit, byID("u2"), ptr(""), []string{"img-A"}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[`+bFB+`]`)
}

// C28, S47
func TestC28_EmptyMessage(t *testing.T) {
	l := loadF(t)
	_, err := doPlan(t, l, OpEdit, byID("u2"), ptr("  "), []string{"img-A", "file-B"}, Env{})
	wantCode(t, err, CodeEmptyMessage)
	_, err = doPlan(t, l, OpEdit, byID("u1"), ptr(""), nil, Env{})
	wantCode(t, err, CodeEmptyMessage)
	// S45.3: blank includes JavaScript's trim set (NBSP, BOM).
	_, err = doPlan(t, l, OpEdit, byID("u1"), ptr("\u00a0\ufeff\n"), nil, Env{})
	wantCode(t, err, CodeEmptyMessage)
}

// C29, S46
func TestC29_UnknownAttachment(t *testing.T) {
	_, err := doPlan(t, loadF(t), OpEdit, byID("u2"), ptr("q2"), []string{"img-Z"}, Env{})
	wantCode(t, err, CodeBadRequest)
}

// withU2 returns F with #15's content replaced.
func withU2(t *testing.T, content string) *Log {
	l := load(t, "f.jsonl", 15)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"u2","role":"user","content":`+content+`,"source":{"kind":"user"}},"surfaceOp":"append"}`)
	return l
}

// C30, S45.4, S71
func TestC30_TextPlacement(t *testing.T) {
	l := withU2(t, `[`+bIA+`]`)
	p := apply(t, l, OpEdit, byID("u2"), ptr("caption"), nil, Env{})
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[{"type":"text","text":"caption"},`+bIA+`]`)
	l = withU2(t, `[{"type":"reasoning","text":"note"},{"type":"text","text":"q2"},`+bIA+`]`)
	p = apply(t, l, OpEdit, byID("u2"), ptr("x"), nil, Env{})
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[{"type":"reasoning","text":"note"},{"type":"text","text":"x"},`+bIA+`]`)
	// Opaque blocks survive and keep order (S16, S71).
	l = withU2(t, `[{"type":"weird","k":[1]},{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"weird2"}]`)
	p = apply(t, l, OpEdit, byID("u2"), ptr("c"), nil, Env{})
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[{"type":"weird","k":[1]},{"type":"text","text":"c"},{"type":"weird2"}]`)
}

// C31, S51
func TestC31_EditWhileRunning(t *testing.T) {
	l := loadF(t)
	p := apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{AgentRunning: true})
	if !p.InFlight || p.Event.Seq != 20 || p.Wake {
		t.Fatalf("%+v", p)
	}
}

// C32, S38
func TestC32_NotUserMessage(t *testing.T) {
	l := loadF(t)
	for _, id := range []string{"rc1", "t1", "s"} {
		_, err := doPlan(t, l, OpEdit, byID(id), ptr("x"), nil, Env{})
		wantCode(t, err, CodeNotUserMessage)
	}
	l = afterC49(t)
	_, err := doPlan(t, l, OpEdit, byID(TriggerIDPrefix+"20"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeNotUserMessage)
}

// C33, S53, S54: the exact message; nothing planned, no carrier written.
func TestC33_AssistantImmutable(t *testing.T) {
	l := loadF(t)
	_, err := doPlan(t, l, OpEdit, byID("a1"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeAssistantImmutable)
	wantErr(t, err, AssistantImmutableMessage)
	_, err = doPlan(t, l, OpUndo, byID("a3"), nil, nil, Env{})
	wantErr(t, err, "Model replies cannot be rewritten in this session format: a surface replacement must list every node it shadows in sourceEventSeqs, and assistant/message refuses that field, so no valid write exists. Nothing was saved.")
}

// C34, S36, S37
func TestC34_NotFound(t *testing.T) {
	l := loadF(t)
	_, err := doPlan(t, l, OpEdit, byID("nope"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeMessageNotFound)
	for _, s := range []int{4, 999, -1} {
		_, err = doPlan(t, l, OpEdit, bySeq(s), ptr("x"), nil, Env{})
		wantCode(t, err, CodeMessageNotFound)
	}
	apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	_, err = doPlan(t, l, OpEdit, bySeq(20), ptr("x"), nil, Env{})
	wantCode(t, err, CodeMessageNotFound)
}

// C35, S35
func TestC35_TargetShape(t *testing.T) {
	l := loadF(t)
	id, s := "u1", 2
	_, err := doPlan(t, l, OpEdit, Target{MessageID: &id, Seq: &s}, ptr("x"), nil, Env{})
	wantCode(t, err, CodeBadRequest)
	_, err = doPlan(t, l, OpEdit, Target{}, ptr("x"), nil, Env{})
	wantCode(t, err, CodeBadRequest)
	_, err = doPlan(t, l, OpEdit, byID("u1"), nil, nil, Env{})
	wantCode(t, err, CodeBadRequest)
	_, err = doPlan(t, l, OpUndo, byID("u1"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeBadRequest)
}

// C36, S39, S40: another producer's same-id copy is not followed.
func TestC36_ForeignReplacement(t *testing.T) {
	l := loadF(t)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"u1","role":"user","content":[{"type":"text","text":"x"}],"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`)
	_, err := doPlan(t, l, OpEdit, byID("u1"), ptr("y"), nil, Env{})
	wantCode(t, err, CodeTargetShadowed)
}

// C37
func TestC37_EditUnderCompaction(t *testing.T) {
	l := load(t, "compaction.jsonl", 0)
	_, err := doPlan(t, l, OpEdit, byID("u1"), ptr("y"), nil, Env{})
	wantCode(t, err, CodeTargetShadowed)
	p := apply(t, l, OpEdit, byID("u2"), ptr("Q"), nil, Env{})
	if p.Event.Seq != 24 || p.ReplacedSeq != 15 {
		t.Fatalf("%+v", p)
	}
	jsonEq(t, p.Event.Fields()["surfaceOp"], `{"op":"replace","startSeq":15,"endSeq":15}`)
}

func withCompaction(t *testing.T, extra ...string) *Log {
	l := loadF(t)
	mustAppend(t, l, `{"type":"compaction/start","data":{"compactionId":"k1","turn":null}}`)
	for _, e := range extra {
		mustAppend(t, l, e)
	}
	return l
}

// C38, S77
func TestC38_CompactionLock(t *testing.T) {
	l := withCompaction(t)
	_, err := doPlan(t, l, OpEdit, byID("u2"), ptr("Q"), nil, Env{})
	wantCode(t, err, CodeCompactionOpen)
	if !l.Overlay(Env{}).CompactionOpen {
		t.Fatal("state.compactionOpen false")
	}
	if l.Overlay(Env{}).UserRows[1].Regenerable || l.Overlay(Env{}).AssistantRows[2].Regenerable {
		t.Fatal("regenerable while locked")
	}
	mustAppend(t, l, `{"type":"user/message","data":{"id":"n","role":"user","content":[{"type":"text","text":"n"}],"source":{"kind":"user"}},"surfaceOp":"append"}`)
	_, err = doPlan(t, l, OpUndo, byID("u2"), nil, nil, Env{})
	wantCode(t, err, CodeCompactionOpen)
	_, err = doPlan(t, l, OpRegenerate, byID("n"), nil, nil, Env{})
	wantCode(t, err, CodeCompactionOpen)
}

// C39, C40, C41, S77
func TestC39toC41_LockLifecycle(t *testing.T) {
	for name, c := range map[string]struct {
		extra []string
		open  bool
	}{
		"C39 end":        {[]string{`{"type":"compaction/end","data":{"compactionId":"k1","turn":null}}`}, false},
		"C39 end error":  {[]string{`{"type":"compaction/end","data":{"compactionId":"k1","turn":null,"error":{"message":"x"}}}`}, false},
		"C40 end-seed":   {[]string{`{"type":"session/end-seed","data":{}}`}, false},
		"C41 second run": {[]string{`{"type":"compaction/end","data":{"compactionId":"k1"}}`, `{"type":"compaction/start","data":{"compactionId":"k2"}}`}, true},
	} {
		l := withCompaction(t, c.extra...)
		_, err := doPlan(t, l, OpEdit, byID("u2"), ptr("Q"), nil, Env{})
		if c.open {
			wantCode(t, err, CodeCompactionOpen)
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// C42, S79: precedence.
func TestC42_Precedence(t *testing.T) {
	l := withCompaction(t)
	_, err := doPlan(t, l, OpEdit, byID("a1"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeAssistantImmutable)
	_, err = doPlan(t, l, OpRegenerate, byID("u2"), nil, nil, Env{AgentRunning: true})
	wantCode(t, err, CodeCompactionOpen)
	// Step 3 before step 4: not-found and kind checks beat the lock.
	_, err = doPlan(t, l, OpEdit, byID("nope"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeMessageNotFound)
	_, err = doPlan(t, l, OpRegenerate, byID("a3"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeBadRequest)
	// Step 4 before step 5: busy beats an unknown attachment.
	l = loadF(t)
	_, err = doPlan(t, l, OpRegenerate, byID("u2"), nil, []string{"img-Z"}, Env{AgentRunning: true})
	wantCode(t, err, CodeAgentBusy)
	// Unknown attachment beats empty-message.
	_, err = doPlan(t, l, OpEdit, byID("u2"), ptr(""), []string{"img-A", "file-B", "img-Z"}, Env{})
	wantCode(t, err, CodeBadRequest)
}

// C43, S72, S73: undo restores the original content.
func TestC43_Undo(t *testing.T) {
	l := loadF(t)
	before := l.Messages()
	apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	apply(t, l, OpEdit, byID("u1"), ptr("q1**"), nil, Env{})
	p := apply(t, l, OpUndo, byID("u1"), nil, nil, Env{AgentRunning: true})
	jsonEq(t, eventJSON(t, p.Event), `{"type":"user/message","seq":22,"data":{"id":"u1","role":"user","content":[{"type":"text","text":"q1"}],"source":{"kind":"user","messageEdit":{"originalEventSeq":2,"action":"undo"}}},"surfaceOp":{"op":"replace","startSeq":21,"endSeq":21},"sourceEventSeqs":[21]}`)
	if !p.InFlight || p.Wake { // S74
		t.Fatalf("%+v", p)
	}
	wantSurface(t, l, 1, 22, 3, 6, 8, 11, 15, 17)
	after := l.Messages()
	for i := range after {
		a := cloneValue(after[i]).(map[string]any)
		if src := asMap(a["source"]); src != nil {
			delete(src, "messageEdit")
		}
		if !deepEqual(a, before[i]) {
			t.Fatalf("message %d differs after undo", i)
		}
	}
	if l.Events[2].Type != "user/message" || l.Events[20] == nil || l.Events[21] == nil {
		t.Fatal("undone copies gone")
	}
	r := l.Overlay(Env{}).UserRows[0]
	if r.Edited || r.Undoable || r.LiveSeq != 22 {
		t.Fatalf("%+v", r)
	}
	// C44: repeating the undo.
	_, err := doPlan(t, l, OpUndo, byID("u1"), nil, nil, Env{})
	wantCode(t, err, CodeNothingToUndo)
}

// C44, S75
func TestC44_NothingToUndo(t *testing.T) {
	_, err := doPlan(t, loadF(t), OpUndo, byID("u2"), nil, nil, Env{})
	wantCode(t, err, CodeNothingToUndo)
}

// C45, S67, S75: a regenerated message has no undo.
func TestC45_NoUndoAfterRegenerate(t *testing.T) {
	l := loadF(t)
	apply(t, l, OpRegenerate, byID("u2"), ptr("Q2"), nil, Env{})
	_, err := doPlan(t, l, OpUndo, byID("u2"), nil, nil, Env{})
	wantCode(t, err, CodeNothingToUndo)
	// It says why: there was an edit ("no edit to undo" was false).
	if !strings.Contains(err.Error(), "was regenerated after its edit") {
		t.Fatalf("message %q", err.Error())
	}
	if l.Overlay(Env{}).UserRows[1].Undoable {
		t.Fatal("undoable after regenerate")
	}
}

// C46, S40
func TestC46_UndoUnderCompaction(t *testing.T) {
	l := loadF(t)
	apply(t, l, OpEdit, byID("u2"), ptr("Q"), nil, Env{})
	mustAppend(t, l, `{"type":"compaction/start","data":{"compactionId":"k2"}}`)
	mustAppend(t, l, `{"type":"compaction/summary","data":{"compactionId":"k2","summary":[]}}`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"ck2","role":"user","content":[{"type":"text","text":"S"}],"source":{"kind":"compact-checkpoint","compactionId":"k2"}},"surfaceOp":{"op":"replace","startSeq":20,"endSeq":20},"sourceEventSeqs":[21,22,20]}`)
	mustAppend(t, l, `{"type":"compaction/end","data":{"compactionId":"k2"}}`)
	_, err := doPlan(t, l, OpUndo, byID("u2"), nil, nil, Env{})
	wantCode(t, err, CodeTargetShadowed)
}

// C47, S63, S64
func TestC47_SaveAndRegenerate(t *testing.T) {
	l := loadF(t)
	p := apply(t, l, OpRegenerate, byID("u2"), ptr("Q2"), nil, Env{})
	jsonEq(t, eventJSON(t, p.Event), `{"type":"user/message","seq":20,"data":{"id":"u2","role":"user","content":[{"type":"text","text":"Q2"},`+bIA+`,`+bFB+`],"source":{"kind":"user","messageEdit":{"originalEventSeq":15,"action":"regenerate"}}},"surfaceOp":{"op":"replace","startSeq":15,"endSeq":17},"sourceEventSeqs":[15,17]}`)
	if !p.Wake || !slices.Equal(p.ShadowedSeqs, []int{15, 17}) {
		t.Fatalf("%+v", p)
	}
	wantSurface(t, l, 1, 2, 3, 6, 8, 11, 20)
	jsonEq(t, Trigger(20), `{"id":"tavern-core-message-editor:trigger:20","role":"user","content":[{"type":"text","text":"Please respond to the message above."}],"source":{"kind":"plugin:tavern-core-message-editor"}}`)
}

// C48, S65: a pending wake is busy even while the agent is idle.
func TestC48_WakePending(t *testing.T) {
	l := loadF(t)
	apply(t, l, OpRegenerate, byID("u2"), ptr("Q2"), nil, Env{})
	_, err := doPlan(t, l, OpRegenerate, byID("u2"), nil, nil, Env{WakePending: true})
	wantCode(t, err, CodeAgentBusy)
	if l.HasMessageID(TriggerIDPrefix + "20") {
		t.Fatal("trigger reported before it landed")
	}
}

// afterC49 is F after C47 plus the harness's turn for the trigger.
func afterC49(t *testing.T) *Log {
	l := loadF(t)
	apply(t, l, OpRegenerate, byID("u2"), ptr("Q2"), nil, Env{})
	trig := canon(t, Trigger(20))
	mustAppend(t, l, `{"type":"turn/start","data":{"turn":3}}`)
	mustAppend(t, l, `{"type":"user/message","data":`+trig+`,"surfaceOp":"append"}`)
	mustAppend(t, l, `{"type":"step/start","data":{"turn":3,"step":1}}`)
	mustAppend(t, l, `{"type":"assistant/message","data":{"turn":3,"step":1,"message":{"id":"a4","role":"assistant","content":[{"type":"text","text":"r2b"}],"source":{"kind":"model","provider":"p","model":"m"}},"stream":[]},"surfaceOp":"append"}`)
	mustAppend(t, l, `{"type":"step/end","data":{"turn":3,"step":1}}`)
	mustAppend(t, l, `{"type":"turn/end","data":{"turn":3,"reason":{"kind":"completed"}}}`)
	return l
}

// C49, S33: the trigger and the old answer are hidden; the prompt shows the edit.
func TestC49_AfterWake(t *testing.T) {
	l := afterC49(t)
	if !l.HasMessageID(TriggerIDPrefix + "20") {
		t.Fatal("trigger not found")
	}
	wantSurface(t, l, 1, 2, 3, 6, 8, 11, 20, 22, 24)
	ov := l.Overlay(Env{})
	if !slices.Equal(ov.HiddenSeqs, []int{17, 22}) {
		t.Fatalf("hidden %v", ov.HiddenSeqs)
	}
	r := ov.UserRows[1]
	if r.Seq != 15 || r.Text != "Q2" || !r.Edited || r.Undoable || !r.Regenerable {
		t.Fatalf("%+v", r)
	}
	last := ov.AssistantRows[len(ov.AssistantRows)-1]
	if last.Seq != 24 || !last.Regenerable {
		t.Fatalf("%+v", last)
	}
}

// C50, S66, S101: regenerate the reply a4; the range passes over (and
// shadows) the previous trigger.
func TestC50_RegenerateTurnOverTrigger(t *testing.T) {
	l := afterC49(t)
	p := apply(t, l, OpRegenerate, byID("a4"), nil, nil, Env{})
	jsonEq(t, eventJSON(t, p.Event), `{"type":"user/message","seq":27,"data":{"id":"u2","role":"user","content":[{"type":"text","text":"Q2"},`+bIA+`,`+bFB+`],"source":{"kind":"user","messageEdit":{"originalEventSeq":15,"action":"regenerate"}}},"surfaceOp":{"op":"replace","startSeq":20,"endSeq":24},"sourceEventSeqs":[20,22,24]}`)
	wantSurface(t, l, 1, 2, 3, 6, 8, 11, 27)
	if asString(Trigger(27)["id"]) != "tavern-core-message-editor:trigger:27" {
		t.Fatal("trigger id")
	}
	mustAppend(t, l, `{"type":"turn/start","data":{"turn":4}}`)
	mustAppend(t, l, `{"type":"user/message","data":`+canon(t, Trigger(27))+`,"surfaceOp":"append"}`)
	if h := l.Overlay(Env{}).HiddenSeqs; !slices.Equal(h, []int{17, 22, 24, 29}) {
		t.Fatalf("hidden %v", h)
	}
}

// C51, S60: without text the content is copied verbatim, no merge.
func TestC51_RegenerateVerbatim(t *testing.T) {
	l := loadF(t)
	p := apply(t, l, OpRegenerate, byID("a3"), nil, nil, Env{})
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[{"type":"text","text":"q2"},`+bIA+`,{"type":"text","text":"more"},`+bFB+`]`)
	jsonEq(t, p.Event.Fields()["surfaceOp"], `{"op":"replace","startSeq":15,"endSeq":17}`)
	jsonEq(t, p.Event.Fields()["sourceEventSeqs"], `[15,17]`)
	if !p.Wake {
		t.Fatal("no wake")
	}
}

// C52, S62
func TestC52_NotLast(t *testing.T) {
	l := loadF(t)
	for _, tg := range []Target{byID("u1"), byID("a1"), byID("a2")} {
		_, err := doPlan(t, l, OpRegenerate, tg, nil, nil, Env{})
		wantCode(t, err, CodeRegenerateNotLast)
	}
	if r := l.rangeFrom(2); !slices.Equal(r, []int{2, 3, 6, 8, 11}) {
		t.Fatalf("range %v", r)
	}
	apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
}

// C53, S61: the runtime-context node is swept into the range.
func TestC53_RegenerateSweepsContext(t *testing.T) {
	l := load(t, "f.jsonl", 14)
	p := apply(t, l, OpRegenerate, byID("u1"), nil, nil, Env{})
	if p.Event.Seq != 14 {
		t.Fatal(p.Event.Seq)
	}
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[`+tq1+`]`)
	jsonEq(t, p.Event.Fields()["surfaceOp"], `{"op":"replace","startSeq":2,"endSeq":11}`)
	jsonEq(t, p.Event.Fields()["sourceEventSeqs"], `[2,3,6,8,11]`)
	wantSurface(t, l, 1, 14)
}

// C54, S61, S66: steering stops a range and heads its own.
func TestC54_SteeringRanges(t *testing.T) {
	l := load(t, "steering.jsonl", 0)
	_, err := doPlan(t, l, OpRegenerate, byID("u1"), nil, nil, Env{})
	wantCode(t, err, CodeRegenerateNotLast)
	p, err := doPlan(t, l, OpRegenerate, byID("st"), ptr("also Y"), nil, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Event.Seq != 16 {
		t.Fatal(p.Event.Seq)
	}
	jsonEq(t, p.Event.Fields()["surfaceOp"], `{"op":"replace","startSeq":10,"endSeq":13}`)
	jsonEq(t, p.Event.Fields()["sourceEventSeqs"], `[10,13]`)
	p2, err := doPlan(t, l, OpRegenerate, bySeq(13), nil, nil, Env{})
	if err != nil || !slices.Equal(p2.ShadowedSeqs, []int{10, 13}) || p2.OriginalSeq != 10 {
		t.Fatalf("%+v %v", p2, err)
	}
	apply(t, l, OpEdit, byID("st"), ptr("also Z"), nil, Env{})
}

// C55, S61: a system or developer node after the reply stops the range.
func TestC55_SystemStopsRange(t *testing.T) {
	for _, typ := range []string{"system/message", "developer/message"} {
		l := loadF(t)
		role := map[string]string{"system/message": "system", "developer/message": "developer"}[typ]
		mustAppend(t, l, `{"type":"`+typ+`","data":{"turn":2,"step":2,"message":{"id":"s2","role":"`+role+`","content":[{"type":"text","text":"note"}],"source":{"kind":"system-prompt"}}},"surfaceOp":"append"}`)
		_, err := doPlan(t, l, OpRegenerate, byID("u2"), nil, nil, Env{})
		wantCode(t, err, CodeRegenerateNotLast)
	}
}

// C56: a prompt whose turn failed regenerates alone.
func TestC56_RegeneratePromptOnly(t *testing.T) {
	l := load(t, "f.jsonl", 16)
	mustAppend(t, l, `{"type":"turn/end","data":{"turn":2,"reason":{"kind":"error"}}}`)
	p := apply(t, l, OpRegenerate, byID("u2"), nil, nil, Env{})
	if p.Event.Seq != 17 || !p.Wake {
		t.Fatalf("%+v", p)
	}
	jsonEq(t, p.Event.Fields()["surfaceOp"], `{"op":"replace","startSeq":15,"endSeq":15}`)
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[{"type":"text","text":"q2"},`+bIA+`,{"type":"text","text":"more"},`+bFB+`]`)
}

// C57, S65
func TestC57_Running(t *testing.T) {
	_, err := doPlan(t, loadF(t), OpRegenerate, byID("u2"), nil, nil, Env{AgentRunning: true})
	wantCode(t, err, CodeAgentBusy)
}

// C58, S59
func TestC58_RegenerateRefusals(t *testing.T) {
	l := loadF(t)
	_, err := doPlan(t, l, OpRegenerate, byID("u2"), ptr(""), []string{"img-A", "file-B"}, Env{})
	wantCode(t, err, CodeEmptyMessage)
	l15 := withU2(t, `[`+bIA+`]`)
	_, err = doPlan(t, l15, OpRegenerate, byID("u2"), nil, []string{"img-A"}, Env{})
	wantCode(t, err, CodeEmptyMessage)
	_, err = doPlan(t, l, OpRegenerate, byID("a3"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeBadRequest)
	_, err = doPlan(t, l, OpRegenerate, byID("a3"), nil, []string{}, Env{})
	wantCode(t, err, CodeBadRequest)
	for _, id := range []string{"rc1", "t1"} {
		_, err = doPlan(t, l, OpRegenerate, byID(id), nil, nil, Env{})
		wantCode(t, err, CodeNotUserMessage)
	}
	// Removal without text still applies (S60).
	p := apply(t, l, OpRegenerate, byID("u2"), nil, []string{"img-A"}, Env{})
	jsonEq(t, p.Event.Data().(map[string]any)["content"], `[{"type":"text","text":"q2"},{"type":"text","text":"more"},`+bFB+`]`)
}

// C59, S66
func TestC59_RegenerateUnderCompaction(t *testing.T) {
	l := load(t, "compaction.jsonl", 0)
	_, err := doPlan(t, l, OpRegenerate, byID("a2"), nil, nil, Env{})
	wantCode(t, err, CodeTargetShadowed)
	p, err := doPlan(t, l, OpRegenerate, byID("a3"), nil, nil, Env{})
	if err != nil || !slices.Equal(p.ShadowedSeqs, []int{15, 17}) {
		t.Fatalf("%+v %v", p, err)
	}
	l = loadF(t)
	mustAppend(t, l, `{"type":"compaction/start","data":{"compactionId":"k3"}}`)
	mustAppend(t, l, `{"type":"compaction/summary","data":{"compactionId":"k3","summary":[]}}`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"ck","role":"user","content":[{"type":"text","text":"S"}],"source":{"kind":"compact-checkpoint","compactionId":"k3"}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":8},"sourceEventSeqs":[20,21,2,3,6,8]}`)
	mustAppend(t, l, `{"type":"compaction/end","data":{"compactionId":"k3"}}`)
	wantSurface(t, l, 1, 22, 11, 15, 17)
	_, err = doPlan(t, l, OpRegenerate, byID("a2"), nil, nil, Env{})
	wantCode(t, err, CodeNoPrompt)
}

// L2, S20: planners write the log's own spelling.
func TestL2_LegacyColdEdit(t *testing.T) {
	l := load(t, "legacy-v0.jsonl", 0)
	p := apply(t, l, OpEdit, byID("lu1"), ptr("hi"), nil, Env{})
	jsonEq(t, p.Event.Fields()["surfaceOp"], `{"op":"replace","start":0,"end":0}`)
	jsonEq(t, p.Event.Fields()["sourceEventSeqs"], `[0]`)
	wantSurface(t, l, 12, 1, 7, 9)
}

// L4, S55, S56, S57, S58
func TestL4_LegacyAssistant(t *testing.T) {
	l := load(t, "legacy-v0.jsonl", 0)
	p, err := l.PlanLegacyAssistantEdit(byID("la1"), "R", Env{})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, eventJSON(t, p.Event), `{"type":"assistant/message","seq":12,"data":{"turn":1,"step":1,"message":{"id":"la1","role":"assistant","content":[{"type":"reasoning","text":"th"},{"type":"text","text":"R"},`+cC1+`],"source":{"kind":"model","provider":"p","model":"m","messageEdit":{"originalEventSeq":7,"action":"edit"},`+
		`"replayState":{"response":{"kind":"pi-ai","version":2,"api":"openai-completions","provider":"p","model":"m","stopReason":"toolUse"},"blocks":[{"type":"reasoning","thinkingSignature":"S1"},{"type":"text"},{"type":"tool-call"}]}}}},"surfaceOp":{"op":"replace","start":7,"end":7},"sourceEventSeqs":[7]}`)
	if err := l.Append(p.Event); err != nil {
		t.Fatal(err)
	}
	wantSurface(t, l, 0, 1, 12, 9)
	// lt1 stays paired with c1: the call block survives.
	if asString(asMap(contentOf(message(l.Events[12]))[2])["id"]) != "c1" {
		t.Fatal("tool call lost")
	}
	// The general edit op routes v0 assistant targets to the same planner.
	l2 := load(t, "legacy-v0.jsonl", 0)
	p2 := apply(t, l2, OpEdit, byID("la1"), ptr("R"), nil, Env{})
	jsonEq(t, eventJSON(t, p2.Event), eventJSON(t, p.Event))
}

func withLa1(t *testing.T, content, blocks string) *Log {
	l := load(t, "legacy-v0.jsonl", 7)
	replay := ""
	if blocks != "" {
		replay = `,"replayState":{"response":{"kind":"pi-ai"},"blocks":` + blocks + `}`
	}
	mustAppend(t, l, `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"id":"la1","role":"assistant","content":`+content+`,"source":{"kind":"model","provider":"p","model":"m"`+replay+`}},"usage":{"inputTokens":9}},"surfaceOp":"append","sourceEventSeqs":[5,6]}`)
	return l
}

// L5: unchanged slots keep their signatures.
func TestL5_LegacyRealign(t *testing.T) {
	l := withLa1(t, `[{"type":"text","text":"a"},`+cC1+`,{"type":"text","text":"b"}]`, `[{"type":"text","textSignature":"x"},{"type":"tool-call"},{"type":"text","textSignature":"y"}]`)
	p, err := l.PlanLegacyAssistantEdit(byID("la1"), "a", Env{})
	if err != nil {
		t.Fatal(err)
	}
	msg := message(p.Event)
	jsonEq(t, msg["content"], `[{"type":"text","text":"a"},`+cC1+`]`)
	jsonEq(t, asMap(sourceOf(msg)["replayState"])["blocks"], `[{"type":"text","textSignature":"x"},{"type":"tool-call"}]`)
	if _, has := asMap(p.Event.Data())["usage"]; has {
		t.Fatal("usage kept")
	}
}

// L6: misaligned replay state is dropped.
func TestL6_LegacyMisaligned(t *testing.T) {
	l := withLa1(t, `[{"type":"reasoning","text":"th"},{"type":"text","text":"r"},`+cC1+`]`, `[{"type":"reasoning"},{"type":"text"}]`)
	p, err := l.PlanLegacyAssistantEdit(byID("la1"), "R", Env{})
	if err != nil {
		t.Fatal(err)
	}
	src := sourceOf(message(p.Event))
	if _, has := src["replayState"]; has {
		t.Fatal("replayState kept")
	}
	jsonEq(t, message(p.Event)["content"], `[{"type":"reasoning","text":"th"},{"type":"text","text":"R"},`+cC1+`]`)
	// Malformed replayState is dropped too.
	l = withLa1(t, `[{"type":"text","text":"r"}]`, `"nope"`)
	p, err = l.PlanLegacyAssistantEdit(byID("la1"), "R", Env{})
	if err != nil {
		t.Fatal(err)
	}
	if _, has := sourceOf(message(p.Event))["replayState"]; has {
		t.Fatal("malformed replayState kept")
	}
}

// L7, S56, S79.5
func TestL7_LegacyEmptyAndUnchanged(t *testing.T) {
	l := load(t, "legacy-v0.jsonl", 0)
	p, err := l.PlanLegacyAssistantEdit(byID("la1"), "", Env{})
	if err != nil {
		t.Fatal(err)
	}
	msg := message(p.Event)
	jsonEq(t, msg["content"], `[{"type":"reasoning","text":"th"},`+cC1+`]`)
	jsonEq(t, asMap(sourceOf(msg)["replayState"])["blocks"], `[{"type":"reasoning","thinkingSignature":"S1"},{"type":"tool-call"}]`)
	p, err = l.PlanLegacyAssistantEdit(byID("la1"), "r", Env{})
	if err != nil || !p.Unchanged {
		t.Fatalf("%+v %v", p, err)
	}
	l = withLa1(t, `[{"type":"reasoning","text":"th"}]`, "")
	_, err = l.PlanLegacyAssistantEdit(byID("la1"), "", Env{})
	wantCode(t, err, CodeEmptyMessage)
}

// L8, S53, S58
func TestL8_LegacyPlannerOnV4(t *testing.T) {
	l := loadF(t)
	p, err := l.PlanLegacyAssistantEdit(byID("a1"), "x", Env{})
	if p != nil {
		t.Fatal("candidate produced")
	}
	wantErr(t, err, AssistantImmutableMessage)
}

// L9: a v0 compaction shadows the prompt; no system-head rule in v0.
func TestL9_LegacyCompaction(t *testing.T) {
	l := load(t, "legacy-v0.jsonl", 0)
	mustAppend(t, l, `{"type":"compaction/start","data":{"compactionId":"k"}}`)
	mustAppend(t, l, `{"type":"compaction/summary","data":{"compactionId":"k","summary":[]}}`)
	mustAppend(t, l, `{"type":"user/message","data":{"id":"ck","role":"user","content":[{"type":"text","text":"S"}],"source":{"kind":"plugin","plugin":"compact","compactionId":"k"}},"surfaceOp":{"op":"replace","start":0,"end":0},"sourceEventSeqs":[12,13,0]}`)
	mustAppend(t, l, `{"type":"compaction/end","data":{"compactionId":"k"}}`)
	wantSurface(t, l, 14, 1, 7, 9)
	found := false
	for _, r := range l.Transcript() {
		found = found || (r.Kind == RowCompaction && r.Seq == 14)
	}
	if !found {
		t.Fatal("no marker")
	}
	_, err := doPlan(t, l, OpEdit, byID("lu1"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeTargetShadowed)
}

// S3: every operation writes at most one event and never touches earlier
// ones; the originals stay in the log for ever.
func TestS3_AppendOnly(t *testing.T) {
	l := loadF(t)
	orig := make([]string, l.Len())
	for i, e := range l.Events {
		orig[i] = canon(t, e)
	}
	apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	apply(t, l, OpUndo, byID("u1"), nil, nil, Env{})
	apply(t, l, OpRegenerate, byID("u2"), ptr("Q2"), []string{"img-A"}, Env{})
	if l.Len() != 23 {
		t.Fatalf("len %d", l.Len())
	}
	for i := range orig {
		if canon(t, l.Events[i]) != orig[i] {
			t.Fatalf("event %d modified", i)
		}
	}
}

// S19: the host writes v4 shapes and never a {kind:'plugin'} source.
func TestS19_WriterShapes(t *testing.T) {
	l := loadF(t)
	for _, p := range []*Plan{
		apply(t, l, OpEdit, byID("u2"), ptr("Q"), nil, Env{}),
		apply(t, l, OpRegenerate, byID("u2"), nil, nil, Env{}),
	} {
		op := asMap(p.Event.Fields()["surfaceOp"])
		if _, ok := op["startSeq"]; !ok || len(op) != 3 {
			t.Fatalf("surfaceOp %v", op)
		}
		if k := sourceKind(message(p.Event)); k == "plugin" {
			t.Fatal("plugin source written")
		}
	}
	if sourceKind(Trigger(1)) != "plugin:tavern-core-message-editor" {
		t.Fatal("trigger kind")
	}
}

// S72, S73: undo restores the original's content field as written. Found
// by FuzzUndo: an original without content came back with "content":[],
// and a flattened string content would have come back as a block array,
// so the fold after the undo differed from the fold before the edit.
func TestS73_UndoRestoresContentAsWritten(t *testing.T) {
	for name, msg := range map[string]string{
		"absent": `{"id":"u9","role":"user","source":{"kind":"user"}}`,
		"string": `{"id":"u9","role":"user","content":"plain","source":{"kind":"user"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			l := loadF(t)
			mustAppend(t, l, `{"type":"user/message","data":`+msg+`,"surfaceOp":"append"}`)
			before := l.Messages()
			apply(t, l, OpEdit, byID("u9"), ptr("x"), nil, Env{})
			apply(t, l, OpUndo, byID("u9"), nil, nil, Env{})
			after := l.Messages()
			last := asMap(cloneValue(after[len(after)-1]))
			delete(asMap(last["source"]), "messageEdit")
			after[len(after)-1] = last
			jsonEq(t, after, canon(t, before))
			r := l.Overlay(Env{}).UserRows[2]
			if r.Edited || r.Undoable {
				t.Fatalf("%+v", r)
			}
		})
	}
}

func loadLive(t *testing.T, name string) *Log {
	t.Helper()
	b, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	l, err := DecodeBytes(b, DecodeOptions{Live: true})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// S20 replaced, S53, S55: on a live session's snapshot the legacy assistant
// planner is never used — edit and undo of a model reply answer
// assistant-immutable on every version, with a reason true for the version
// — while the same v0 log read offline keeps the L4 planner.
func TestS20_LiveLogsKeepModelRepliesImmutable(t *testing.T) {
	l := loadLive(t, "legacy-v0.jsonl")
	for _, op := range []Op{OpEdit, OpUndo} {
		var text *string
		if op == OpEdit {
			text = ptr("R")
		}
		_, err := doPlan(t, l, op, byID("la1"), text, nil, Env{})
		wantCode(t, err, CodeAssistantImmutable)
		if err.(*Error).Message != LiveAssistantImmutableMessage {
			t.Fatal(err)
		}
	}
	if _, err := l.PlanLegacyAssistantEdit(byID("la1"), "R", Env{}); err == nil || err.(*Error).Code != CodeAssistantImmutable {
		t.Fatalf("legacy planner on a live log: %v", err)
	}
	// A user message in the same live log is still edited, in its spelling.
	p := apply(t, l, OpEdit, byID("lu1"), ptr("hi"), nil, Env{})
	jsonEq(t, p.Event.Fields()["surfaceOp"], `{"op":"replace","start":0,"end":0}`)

	f := loadLive(t, "f.jsonl")
	_, err := doPlan(t, f, OpEdit, byID("a1"), ptr("x"), nil, Env{})
	wantCode(t, err, CodeAssistantImmutable)
	if err.(*Error).Message != AssistantImmutableMessage {
		t.Fatal(err)
	}
}

// S64, S19, S33: the trigger's source follows the log's generation — the
// producer-owned kind in v4, the {kind:'plugin'} wrapper in v0–v3 — and a
// trigger row of either spelling is hidden.
func TestS64_TriggerSourcePerVersion(t *testing.T) {
	for v, want := range map[int]string{
		0: `{"kind":"plugin","plugin":"tavern-core-message-editor"}`,
		2: `{"kind":"plugin","plugin":"tavern-core-message-editor"}`,
		3: `{"kind":"plugin","plugin":"tavern-core-message-editor"}`,
		4: `{"kind":"plugin:tavern-core-message-editor"}`,
	} {
		l := NewLog(Header{Version: v}, true)
		jsonEq(t, l.Trigger(7)["source"], want)
		if asString(l.Trigger(7)["id"]) != "tavern-core-message-editor:trigger:7" {
			t.Fatal("trigger id")
		}
	}
	l := load(t, "legacy-v0.jsonl", 0)
	trig := canon(t, l.Trigger(12))
	mustAppend(t, l, `{"type":"user/message","data":`+trig+`,"surfaceOp":"append"}`)
	if ov := l.Overlay(Env{}); !slices.Contains(ov.HiddenSeqs, 12) {
		t.Fatalf("v0 trigger row not hidden: %v", ov.HiddenSeqs)
	}
}
