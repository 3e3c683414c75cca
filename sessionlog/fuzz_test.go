package sessionlog

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func fuzzSeeds(f *testing.F, add func([]byte)) {
	for _, name := range []string{"f.jsonl", "steering.jsonl", "compaction.jsonl", "resume.jsonl", "legacy-v0.jsonl",
		"packed-v0.jsonl", "legacy-flat-v0.jsonl"} {
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
	f.Add([]byte(`{"type":"session","version":4,"id":"s","createdAt":0}`+"\n"+`{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}`+"\n"+`{"type":"turn/st`), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opts := DecodeOptions{ImportSnapshot: mode&1 != 0, Live: mode&2 != 0, AllowTornTail: mode&4 != 0}
		l, err := DecodeBytes(data, opts)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is not an *Error: %T %v", err, err)
			}
			if e := err.(*Error); e.Code == CodeTornTail && (e.Offset == nil || *e.Offset < 0 || *e.Offset > int64(len(data))) {
				t.Fatalf("torn tail without a sound offset: %+v", e)
			}
			return
		}
		// S105: the committed prefix reads to the same log, and a torn tail
		// was only ever the last line.
		if tl := l.Tail; tl.Offset < 0 || tl.Offset > int64(len(data)) {
			t.Fatalf("tail %+v of %d bytes", tl, len(data))
		} else if tl.Torn {
			o := opts
			o.AllowTornTail = false
			p, err := DecodeBytes(data[:tl.Offset], o)
			if err != nil || p.Len() != l.Len() || int64(tl.TornBytes) != int64(len(data))-tl.Offset {
				t.Fatalf("committed prefix of a torn log: %v %+v", err, tl)
			}
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

// FuzzFold: for any accepted log, every operation the editor plans — cold
// edit, undo, save-and-regenerate, regenerate-turn, attachment removal, and
// on v0–v2 the legacy assistant rewrite — on fuzz-chosen targets is a valid
// next event (S23). Appending it through the validator keeps the log valid,
// folds it the way S25 says, a refusal leaves the log untouched (S76), and
// the final log re-reads from its encoding to the same fold.
//
// Parameters (kept from the first version so the corpus stays valid):
// op bits 64/128 select the reader (import snapshot / live), 32 names the
// target by id, 16 makes the agent busy (round 0) or a wake pending (round
// 1), 8 adds removals, 4 drops the text of a regenerate, 2 also runs the
// legacy planner; (op+round)%5 picks the operation. target ≥ 0 picks among
// the log's append-origin events, target < 0 names a raw seq (refusals);
// rounds 0–1 and 2–3 share a target.
// remove is a comma list: a decimal k names the k-th attachment of the
// target's live content, anything else is a literal id; "" removes all.
func FuzzFold(f *testing.F) {
	fuzzSeeds(f, func(b []byte) {
		f.Add(b, uint8(0), 15, "Q", "")
		f.Add(b, uint8(1), 2, "", "img-A")
		f.Add(b, uint8(2), 17, "x", "")
		f.Add(b, uint8(4|2), 7, "", "")
		f.Add(b, uint8(8|4), 6, "", "0")   // attachment removal on a late prompt
		f.Add(b, uint8(3), 4, "", "")      // regenerate-turn
		f.Add(b, uint8(8|2), -3, "z", "1") // save-and-regenerate with a removal, raw seq
		f.Add(b, uint8(6), 2, "R", "")     // undo, then the legacy planner on L's la1
		f.Add(b, uint8(5), 6, "Q2", "")    // edit, then undo of the same prompt
		f.Add(b, uint8(1|8), 6, "", "1")   // undo, save-and-regenerate, regenerate-turn
	})
	f.Add([]byte(`{"type":"session","version":0,"id":"s","createdAt":0}`+"\n"+`{"type":"assistant/message","seq":0,"time":0,"data":5,"surfaceOp":"append"}`), uint8(2), 0, "x", "")
	f.Fuzz(func(t *testing.T, data []byte, op uint8, target int, text, remove string) {
		live := op&128 != 0
		l, err := DecodeBytes(data, DecodeOptions{ImportSnapshot: op&64 != 0, Live: live})
		if err != nil || l.Len() == 0 {
			return
		}
		for round := 0; round < 4; round++ {
			kind := fuzzOpKind((int(op) + round) % 5)
			// Rounds go in pairs on one target, so an edit is followed by
			// an undo or a regenerate of the same message.
			tg, o := fuzzTarget(l, kind, target+round/2, op&32 != 0)
			req := fuzzRequest(l, kind, tg, o, op, text, remove)
			env := Env{AgentRunning: op&16 != 0 && round == 0, WakePending: op&16 != 0 && round == 1, Time: int64(round)}
			checkPlanAndAppend(t, l, func() (*Plan, error) { return l.Plan(req, env) })
			if op&2 != 0 && l.Version() < 3 {
				checkPlanAndAppend(t, l, func() (*Plan, error) { return l.PlanLegacyAssistantEdit(tg, text, env) })
			}
			_ = l.Messages()
			_ = l.Overlay(env)
		}
		roundTrip(t, l, live)
	})
}

type fuzzOpKind int

const (
	fuzzEdit fuzzOpKind = iota
	fuzzUndo
	fuzzSaveRegenerate
	fuzzRegenerateTurn
	fuzzRemoveAttachments
)

// fuzzTarget picks a target: n ≥ 0 indexes the append-origin events (model
// replies only for regenerate-turn, when there are any); n < 0 names a raw
// seq, possibly out of range. o is the original the target resolves to, or
// -1.
func fuzzTarget(l *Log, kind fuzzOpKind, n int, byIDs bool) (Target, int) {
	var seq int
	if n < 0 {
		seq = int(uint(^n) % uint(l.Len()+2))
	} else {
		var all, replies []int
		for s := range l.Events {
			if l.isAppend(s) {
				all = append(all, s)
				if l.Events[s].Type == "assistant/message" {
					replies = append(replies, s)
				}
			}
		}
		cands := all
		if kind == fuzzRegenerateTurn && len(replies) > 0 {
			cands = replies
		}
		if len(cands) == 0 {
			seq = n % l.Len()
		} else {
			seq = cands[n%len(cands)]
		}
	}
	tg := bySeq(seq)
	if byIDs {
		id := ""
		if seq < l.Len() {
			id = messageIDSafe(l, seq)
		}
		tg = byID(id)
	}
	o, err := l.resolve(tg)
	if err != nil {
		o = -1
	}
	return tg, o
}

// fuzzLiveContent is the content of the original's live node (S42), or nil.
func fuzzLiveContent(l *Log, o int) []any {
	if o < 0 {
		return nil
	}
	return contentOf(message(l.Events[l.liveNode(o, l.copyIndex())]))
}

// fuzzRemovals turns the fuzz string into attachment ids (see FuzzFold).
func fuzzRemovals(l *Log, o int, remove string) []string {
	var ids []string
	for _, a := range attachmentsOf(fuzzLiveContent(l, o)) {
		ids = append(ids, a.AttachmentID)
	}
	if remove == "" {
		return append([]string{}, ids...)
	}
	out := []string{}
	for _, part := range strings.Split(remove, ",") {
		if k, err := strconv.Atoi(part); err == nil && k >= 0 && len(ids) > 0 {
			out = append(out, ids[k%len(ids)])
		} else {
			out = append(out, part)
		}
	}
	return out
}

func fuzzRequest(l *Log, kind fuzzOpKind, tg Target, o int, op uint8, text, remove string) Request {
	req := Request{Target: tg}
	switch kind {
	case fuzzEdit:
		req.Op, req.Text = OpEdit, &text
		if op&8 != 0 {
			req.RemoveAttachments = fuzzRemovals(l, o, remove)
		}
	case fuzzUndo:
		req.Op = OpUndo
	case fuzzSaveRegenerate:
		req.Op = OpRegenerate
		if op&4 == 0 {
			req.Text = &text
		}
		if op&8 != 0 {
			req.RemoveAttachments = fuzzRemovals(l, o, remove)
		}
	case fuzzRegenerateTurn:
		req.Op = OpRegenerate
	case fuzzRemoveAttachments:
		// Removal alone: keep the text as it is, or regenerate without text.
		req.Op = OpEdit
		if op&4 != 0 {
			req.Op = OpRegenerate
		} else {
			keep := editableText(fuzzLiveContent(l, o))
			req.Text = &keep
		}
		req.RemoveAttachments = fuzzRemovals(l, o, remove)
	}
	return req
}

var refusalCodes = map[string]bool{
	CodeBadRequest: true, CodeEmptyMessage: true, CodeMessageNotFound: true,
	CodeNotUserMessage: true, CodeAssistantImmutable: true, CodeTargetShadowed: true,
	CodeNoPrompt: true, CodeRegenerateNotLast: true, CodeAgentBusy: true,
	CodeNothingToUndo: true, CodeCompactionOpen: true,
}

// checkPlanAndAppend plans, checks that planning wrote nothing, and appends
// a planned event through the validator, checking the S25 fold of it.
func checkPlanAndAppend(t *testing.T, l *Log, planFn func() (*Plan, error)) {
	t.Helper()
	n, surf, gen := l.Len(), l.Surface(), l.Generation()
	p, err := planFn()
	if l.Len() != n || !slices.Equal(surf, l.Surface()) || l.Generation() != gen {
		t.Fatal("S76: planning changed the log")
	}
	if err != nil {
		e, ok := err.(*Error)
		if !ok || !refusalCodes[e.Code] {
			t.Fatalf("S23/S76: unexpected error %T %v", err, err)
		}
		if p != nil {
			t.Fatal("plan returned with an error")
		}
		return
	}
	if p.Unchanged {
		if p.Event != nil {
			t.Fatal("S48: an unchanged plan carries an event")
		}
		return
	}
	if p.Event == nil {
		t.Fatal("a changing plan carries no event")
	}
	src := p.SourceEventSeqs()
	if err := l.Append(p.Event); err != nil {
		t.Fatalf("S23: planned event rejected: %v", err)
	}
	// Every plan replaces a run of current nodes by the new event; the run
	// is the one its sourceEventSeqs lists (S49, S58, S63, S72).
	i := indexOf(surf, src[0])
	if i < 0 || i+len(src) > len(surf) || !slices.Equal(surf[i:i+len(src)], src) {
		t.Fatalf("planned sources %v are not a run of the surface %v", src, surf)
	}
	want := slices.Replace(slices.Clone(surf), i, i+len(src), n)
	if !slices.Equal(l.Surface(), want) {
		t.Fatalf("S25: surface after the append = %v, want %v", l.Surface(), want)
	}
}

// FuzzUndo: folding after an undo equals folding before the edit (S73).
// For a fuzz-chosen user message whose live content is still its original
// content, plan an edit (text and optional removals), append it, plan undo,
// append it, and compare with the state before the edit:
//   - Messages(): equal as exact JSON, except source.messageEdit on the
//     restored message, which S73 excludes (harness metadata, never sent);
//   - Surface(): equal except at the restored position, which now holds the
//     undo copy's seq instead of the pre-edit live node (event ids differ by
//     design: the log is append-only, S3);
//   - Transcript(): equal (copies make no rows, S31); the target's overlay
//     row shows the pre-edit text and attachments and is neither edited nor
//     undoable.
//
// An edit that writes the same content (a blank text over content without
// a text block) leaves nothing to undo; then the fold after the edit must
// already equal the fold before it. Two edit/undo cycles run back to back.
func FuzzUndo(f *testing.F) {
	fuzzSeeds(f, func(b []byte) {
		f.Add(b, uint8(0), 0, "edited", "")
		f.Add(b, uint8(1), 1, "", "0")
		f.Add(b, uint8(3), 2, "q2 again", "1")
	})
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, target int, text, remove string) {
		l, err := DecodeBytes(data, DecodeOptions{ImportSnapshot: mode&64 != 0, Live: mode&128 != 0})
		if err != nil {
			return
		}
		var users []int
		for s := range l.Events {
			if l.isAppend(s) && isUserKind(l.Events[s]) {
				users = append(users, s)
			}
		}
		if len(users) == 0 {
			return
		}
		o := users[int(uint(target)%uint(len(users)))]
		tg := bySeq(o)
		if mode&4 != 0 {
			tg = byID(messageID(l.Events[o]))
			if r, err := l.resolve(tg); err != nil || r != o {
				return // a later message carries the same id (S36)
			}
		}
		for cycle := 0; cycle < 2; cycle++ {
			if !undoCycle(t, l, o, tg, text+strings.Repeat("*", cycle), mode, remove) {
				return
			}
		}
		roundTrip(t, l, mode&128 != 0)
	})
}

// undoCycle runs one edit + undo on original o; false when the edit or the
// undo was refused for a reason outside S73's premise.
func undoCycle(t *testing.T, l *Log, o int, tg Target, text string, mode uint8, remove string) bool {
	t.Helper()
	copies := l.copyIndex()
	liveBefore := l.liveNode(o, copies)
	if !exactEqual(contentOf(message(l.Events[liveBefore])), contentOf(message(l.Events[o]))) || hasRegenerate(copies[o]) {
		return false // S73 promises a return to the original, not to an earlier edit
	}
	env := Env{AgentRunning: mode&2 != 0} // S51, S74: both allowed while running
	req := Request{Op: OpEdit, Target: tg, Text: &text}
	if mode&1 != 0 {
		req.RemoveAttachments = fuzzRemovals(l, o, remove)
	}
	surfBefore, msgsBefore, rowsBefore := l.Surface(), l.Messages(), l.Transcript()
	rowBefore, hasRow := overlayRow(l, o)
	pos := indexOf(surfBefore, liveBefore)

	p, err := l.Plan(req, env)
	if err != nil {
		if codeOf(err) == CodeInternal {
			t.Fatalf("S23: %v", err)
		}
		return false
	}
	if p.Unchanged {
		return false
	}
	if err := l.Append(p.Event); err != nil {
		t.Fatalf("S23: edit rejected: %v", err)
	}
	u, err := l.Plan(Request{Op: OpUndo, Target: tg}, env)
	if codeOf(err) == CodeNothingToUndo {
		// The edit wrote the original content again.
		sameMessages(t, l, msgsBefore, l.Messages(), pos)
		return true
	}
	if err != nil {
		t.Fatalf("undo right after an edit refused: %v", err)
	}
	if err := l.Append(u.Event); err != nil {
		t.Fatalf("S23: undo rejected: %v", err)
	}
	undoSeq := l.Len() - 1
	surfAfter := l.Surface()
	wantSurf := slices.Clone(surfBefore)
	wantSurf[pos] = undoSeq
	if !slices.Equal(surfAfter, wantSurf) {
		t.Fatalf("S73: surface after undo = %v, want %v (before the edit %v)", surfAfter, wantSurf, surfBefore)
	}
	sameMessages(t, l, msgsBefore, l.Messages(), pos)
	if rows := l.Transcript(); !slices.Equal(rows, rowsBefore) {
		t.Fatalf("S31: transcript changed: %v vs %v", rows, rowsBefore)
	}
	if hasRow {
		r, _ := overlayRow(l, o)
		if r.Text != rowBefore.Text || !slices.Equal(r.Attachments, rowBefore.Attachments) || r.Edited || r.Undoable || r.LiveSeq != undoSeq {
			t.Fatalf("S32/S75: overlay after undo %+v, before the edit %+v", r, rowBefore)
		}
	}
	return true
}

func overlayRow(l *Log, o int) (UserRow, bool) {
	for _, r := range l.Overlay(Env{}).UserRows {
		if r.Seq == o {
			return r, true
		}
	}
	return UserRow{}, false
}

// sameMessages compares derived messages as exact JSON, ignoring
// source.messageEdit on the restored message, the one derived from surface
// position pos.
func sameMessages(t *testing.T, l *Log, before, after []any, pos int) {
	t.Helper()
	if len(before) != len(after) {
		t.Fatalf("S73: %d messages before the edit, %d after the undo", len(before), len(after))
	}
	restored := 0
	for _, seq := range l.nodes[:pos] {
		if derivesMessage(l.Events[seq]) {
			restored++
		}
	}
	for i := range before {
		a, b := before[i], after[i]
		if i == restored {
			a, b = stripEdit(a), stripEdit(b)
		}
		if !exactEqual(a, b) {
			t.Fatalf("S73: message %d differs:\n before %s\n after  %s", i, mustJSON(t, a), mustJSON(t, b))
		}
	}
}

// derivesMessage mirrors S28: which nodes yield a message.
func derivesMessage(ev *Event) bool {
	msg := message(ev)
	switch ev.Type {
	case "user/message", "tool/result":
		return msg != nil
	}
	return msg != nil && !emptyContent(msg)
}

func stripEdit(m any) any {
	c := cloneValue(m)
	if src := asMap(asMap(c)["source"]); src != nil {
		delete(src, "messageEdit")
	}
	return c
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := EncodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// exactEqual compares JSON trees as their encoding (keys sorted, number
// literals as written), stricter than the JS-style deepEqual.
func exactEqual(a, b any) bool {
	x, errA := EncodeJSON(a)
	y, errB := EncodeJSON(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

func messageIDSafe(l *Log, seq int) string {
	ev := l.Events[seq]
	if eligible(l.Version(), ev.Type) {
		return messageID(ev)
	}
	return ""
}
