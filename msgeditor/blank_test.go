package msgeditor

import "testing"

// S45, S47 (issue 16): a whitespace-only save over a message that has
// attachments would drop its text and keep the attachments. The widget asks
// first; a second Save of the same draft confirms; editing the draft or
// Esc asks again. Without attachments left the route refuses (C28).
func TestS45BlankSaveAsksBeforeDroppingText(t *testing.T) {
	r := newRig(t)
	r.w.Open(15)
	r.w.SetDraft(15, "  \u3000")
	if reqs := r.w.Save(15, false); reqs != nil {
		t.Fatalf("the first save must ask, not send: %+v", reqs)
	}
	if v := r.w.Row(15); v.Error != BlankTextQuestion || !v.Editing {
		t.Fatalf("the question is shown inline and the editor stays: %+v", v)
	}
	r.w.SetDraft(15, " ")
	if r.w.Save(15, false) != nil {
		t.Fatal("a changed draft is asked about again")
	}
	reqs := r.w.Save(15, false)
	if len(reqs) != 1 || reqs[0].Body != `{"session":"sF","target":{"seq":15},"text":" "}` {
		t.Fatalf("the confirming save sends the draft: %+v", reqs)
	}
	r.run(reqs)
	if v := r.w.Row(15); v.Editing || v.Text != "" || len(v.Chips) != 2 {
		t.Fatalf("after the confirmed save: %+v", v)
	}

	// Removing every attachment as well leaves nothing: refused inline,
	// without a request, as the route would (S47, C28).
	r = newRig(t)
	r.w.Open(15)
	r.w.SetDraft(15, " ")
	r.w.ToggleChip(15, "img-A")
	r.w.ToggleChip(15, "file-B")
	if reqs := r.w.Save(15, false); reqs != nil {
		t.Fatalf("nothing would be left: refused without a request: %+v", reqs)
	}
	if v := r.w.Row(15); !v.Editing || v.Error != EmptyDraftMessage {
		t.Fatalf("refused inline: %+v", v)
	}
	r.w.Open(2)
	r.w.SetDraft(2, "")
	if r.w.Save(2, false) != nil || r.w.Row(2).Error != EmptyDraftMessage {
		t.Fatal("a message without attachments needs text")
	}

	// Esc forgets the question.
	r = newRig(t)
	r.w.Open(15)
	r.w.SetDraft(15, "")
	r.w.Save(15, false)
	r.w.Cancel(15)
	r.w.Open(15)
	r.w.SetDraft(15, "")
	if r.w.Save(15, false) != nil {
		t.Fatal("after Esc the question is asked again")
	}
}

// S94: every edited row shows the badge; only an undoable one shows the
// undo. After Save & regenerate the row is edited but cannot be undone
// (C49): badge, no undo. (Until 2026-12-05 the badge went with its undo,
// issue 16's second option, which S94 does not allow.)
func TestS94BadgeOnEveryEditedRowUndoOnlyWhereUndoable(t *testing.T) {
	r := newRig(t)
	r.w.Open(15)
	r.w.SetDraft(15, "Q2 again")
	r.run(r.w.Save(15, true))
	seen := false
	for _, u := range r.w.State().UserRows {
		seen = seen || (u.Edited && !u.Undoable)
		v := r.w.Row(u.Seq)
		if v.Edited != u.Edited || v.Undo != u.Undoable {
			t.Fatalf("row %d: badge %v, undo %v (state edited=%v undoable=%v)", u.Seq, v.Edited, v.Undo, u.Edited, u.Undoable)
		}
	}
	if !seen {
		t.Fatal("the regenerated row should be edited and not undoable in the host's state")
	}
	r = newRig(t)
	r.w.Open(2)
	r.w.SetDraft(2, "q1*")
	r.run(r.w.Save(2, false))
	if v := r.w.Row(2); !v.Edited || !v.Undo {
		t.Fatalf("a plain edit keeps badge and undo: %+v", v)
	}
}
