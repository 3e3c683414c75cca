// Package msgeditor is the message editor's client logic (spec S90–S98):
// a view-model state machine that the browser module's DOM edge
// (wasm/browser/editor.go) drives with clicks, keys and HTTP answers, and
// reads back as one RowView per transcript row. It imports no syscall/js,
// encoding/json or sessionlog, so it tests natively and keeps the browser
// module lean; the route's JSON is read by the small parser in json.go.
//
// Flow: an input (Open, Key, Save, Undo, RegenerateTurn, Call, Refresh …)
// changes the model and returns the HTTP requests to send; the edge sends
// them and hands each answer to Response, which may ask for more (a state
// refresh after every operation, S98). The widget never shows success on
// its own: text changes only after ok:true, and then from the host's state
// (S92, S97).
package msgeditor

import (
	"strconv"

	"tavern-core/jsvalue"
)

// Request is one HTTP request for the edge to send. Path includes the
// query; Body is empty for GET. Every request carries VersionHeader:
// Version, and POSTs Content-Type: application/json.
type Request struct {
	_      noCompare
	ID     int
	Method string
	Path   string
	Body   string
}

type op uint8

const (
	opState op = iota
	opEdit
	opUndo
	opRegenerate
)

type pending struct {
	_       noCompare
	op      op
	seq     int
	token   int // the facade's promise, 0 for UI actions
	text    string
	hasText bool
}

// Settled is the outcome of a programmatic call (Call) for the facade's
// promise.
type Settled struct {
	_      noCompare
	Token  int
	Result Result
	Body   string // the answer as received, for the facade's promise
}

type rowUI struct {
	editing bool
	draft   string
	marked  []string
	// busy counts this row's operations in flight: a page's call can overlap
	// the editor's own save, and the first answer must not re-enable the
	// buttons while the other is still out (S92).
	busy int
	// save is the request id of the open editor's own save, 0 if none: only
	// its answer closes the editor, so a page call answered first does not
	// drop the draft the save may still be refused with (S97).
	save  int
	err   string
	note  string
	shown *string // confirmed by ok:true, shown until the next state
	// confirmBlank holds the draft the user was warned about: saving
	// whitespace over a message with attachments drops its text (S45.3),
	// so the first Save asks and a second Save of the same draft confirms.
	confirmBlank *string
	// base is the message's text as the open editor last knew it: the text
	// it opened with, or a newer one a state read brought. An untouched
	// draft (draft == base) follows the message's text as state reads bring
	// it; a typed draft whose message changed elsewhere since (another tab,
	// another window) is not saved over that change unseen: the first Save
	// says so, and a second Save replaces it (C62's last save wins).
	base string
}

// ChangedElsewhereMessage is shown instead of saving a typed draft over a
// change made elsewhere since the editor opened.
const ChangedElsewhereMessage = "This message was changed elsewhere (another tab or window) since you opened the editor. Press Save again to replace it with your text, or Esc to keep the new version."

// EmptyDraftMessage refuses a save that would leave nothing (S47).
const EmptyDraftMessage = "A message needs some text or an attachment; nothing was saved."

// BlankTextQuestion is asked before a save would drop a message's text and
// keep only its attachments.
const BlankTextQuestion = "This removes the message's text and keeps only its attachments. Press Save again to do that, or Esc to keep the text."

// Widget is the editor's client state for one session.
type Widget struct {
	session    string
	st         *State
	notice     string // why there are no controls (e.g. session not loaded)
	skew       string // version skew: every control disabled (S97)
	rows       map[int]*rowUI
	next       int
	pending    map[int]pending
	stateBusy  bool
	stateAgain bool
	// A state read that found the session not loaded, or did not reach the
	// host, is read again after stateRetry ms (the edge's timer), backing
	// off from 250 ms to 5 s; stateFailures counts them since the last
	// answer that was not such a failure.
	stateRetry    int
	stateFailures int
	settled       []Settled
	closed        bool
}

// New returns a widget for one session; call Refresh to load its state.
func New(session string) *Widget {
	return &Widget{session: session, rows: map[int]*rowUI{}, pending: map[int]pending{}}
}

// InFlightNote is shown after a save that lands while a step runs (S92).
const InFlightNote = "applies from the next step"

func (w *Widget) row(seq int) *rowUI {
	r := w.rows[seq]
	if r == nil {
		r = &rowUI{}
		w.rows[seq] = r
	}
	return r
}

func (w *Widget) user(seq int) *UserRow {
	if w.st == nil {
		return nil
	}
	for i := range w.st.UserRows {
		if w.st.UserRows[i].Seq == seq {
			return &w.st.UserRows[i]
		}
	}
	return nil
}

func (w *Widget) assistant(seq int) *AssistantRow {
	if w.st == nil {
		return nil
	}
	for i := range w.st.AssistantRows {
		if w.st.AssistantRows[i].Seq == seq {
			return &w.st.AssistantRows[i]
		}
	}
	return nil
}

// State is the last state the host answered, or nil.
func (w *Widget) State() *State { return w.st }

// Disabled reports version skew: all controls stay off until a reload.
func (w *Widget) Disabled() bool { return w.skew != "" }

// Banner is the page-level message: the restart message after version
// skew, or why the editor shows no controls.
func (w *Widget) Banner() string {
	if w.skew != "" {
		return w.skew
	}
	return w.notice
}

func (w *Widget) send(p pending, method, path, body string) Request {
	w.next++
	w.pending[w.next] = p
	return Request{ID: w.next, Method: method, Path: path, Body: body}
}

// Refresh asks for the state again (S98). Requests coalesce: while one is
// in flight, one more follows it.
func (w *Widget) Refresh() []Request {
	if w.closed {
		return nil
	}
	if w.stateBusy {
		w.stateAgain = true
		return nil
	}
	w.stateBusy = true
	return []Request{w.send(pending{op: opState}, "GET", PathState+"?session="+queryEscape(w.session), "")}
}

// Open turns a user row's body into the inline editor (S90).
func (w *Widget) Open(seq int) {
	u := w.user(seq)
	if u == nil || u.Shadowed || w.Disabled() {
		return
	}
	r := w.row(seq)
	if r.editing {
		return
	}
	r.editing, r.draft, r.base, r.marked, r.err, r.note = true, u.Text, u.Text, nil, "", ""
}

// SetDraft records the textarea's content.
func (w *Widget) SetDraft(seq int, text string) {
	if r := w.rows[seq]; r != nil && r.editing {
		r.draft = text
	}
}

// Cancel closes the editor and forgets the draft and the marks (S91, S93).
func (w *Widget) Cancel(seq int) {
	if r := w.rows[seq]; r != nil && r.editing && r.busy == 0 {
		r.editing, r.draft, r.marked, r.err, r.confirmBlank = false, "", nil, "", nil
	}
}

// ToggleChip marks or unmarks an attachment for removal (S93).
func (w *Widget) ToggleChip(seq int, id string) {
	r := w.rows[seq]
	if r == nil || !r.editing || r.busy > 0 || w.Disabled() {
		return
	}
	for i, m := range r.marked {
		if m == id {
			r.marked = append(r.marked[:i], r.marked[i+1:]...)
			return
		}
	}
	r.marked = append(r.marked, id)
}

// KeyAction is what a key press in the editor does.
type KeyAction uint8

const (
	KeyNone KeyAction = iota
	KeySave
	KeyCancel
)

// Key maps a keydown in the editor's textarea (S91): Enter saves,
// Shift+Enter is a newline, Esc cancels, and nothing happens while an IME
// composition is open (CJK input confirms candidates with Enter).
func Key(key string, shift, composing bool) KeyAction {
	if composing {
		return KeyNone
	}
	switch key {
	case "Enter":
		if !shift {
			return KeySave
		}
	case "Escape", "Esc":
		return KeyCancel
	}
	return KeyNone
}

// Save sends the open editor's draft: `edit`, or `regenerate` for Save &
// regenerate (S92). The buttons stay disabled until the answer (no double
// submit).
func (w *Widget) Save(seq int, regenerate bool) []Request {
	r := w.rows[seq]
	if r == nil || !r.editing || r.busy > 0 || w.Disabled() {
		return nil
	}
	u := w.user(seq)
	if u != nil && blank(r.draft) && len(u.Attachments) <= len(r.marked) {
		// Refused here, the way the route would (S47), so an everyday slip
		// costs no request and no failed resource in the console.
		r.err, r.confirmBlank = EmptyDraftMessage, nil
		return nil
	}
	if u != nil && blank(r.draft) && !blank(u.Text) {
		if r.confirmBlank == nil || *r.confirmBlank != r.draft {
			d := r.draft
			r.confirmBlank, r.err = &d, BlankTextQuestion
			return nil
		}
	}
	if u != nil && u.Text != r.base && u.Text != r.draft {
		// A typed draft (an untouched one followed the change, stateAnswer)
		// whose message changed elsewhere since the editor last knew it. A
		// message that already holds the draft (this editor's save whose
		// answer was lost, then landed) is no conflict.
		r.base, r.err, r.confirmBlank = u.Text, ChangedElsewhereMessage, nil
		return nil
	}
	r.confirmBlank = nil
	o := opEdit
	if regenerate {
		if u == nil || !u.Regenerable || w.regenerating(-1) {
			return nil
		}
		o = opRegenerate
	}
	// An untouched draft regenerates without text, so the message's blocks
	// are copied as they are (C51): sending its text would merge them (S60).
	hasText := o == opEdit || u == nil || r.draft != u.Text
	reqs := w.call(o, seq, r.draft, hasText, r.marked, 0)
	r.save = reqs[0].ID
	return reqs
}

// blank is the route's notion of a blank text (S45: String.prototype.trim
// is empty), from jsvalue's one implementation of that trim.
func blank(s string) bool { return len(jsvalue.Trim(jsvalue.U(s))) == 0 }

// Undo restores the original text of an edited user row (S94).
func (w *Widget) Undo(seq int) []Request {
	if w.Disabled() || (w.rows[seq] != nil && w.rows[seq].busy > 0) {
		return nil
	}
	return w.call(opUndo, seq, "", false, nil, 0)
}

// RegenerateTurn is the circular arrow on an assistant row (S95).
func (w *Widget) RegenerateTurn(seq int) []Request {
	if w.Disabled() || w.regenerating(-1) || (w.rows[seq] != nil && w.rows[seq].busy > 0) {
		return nil
	}
	return w.call(opRegenerate, seq, "", false, nil, 0)
}

// Call is the programmatic form of the three operations ("edit", "undo",
// "regenerate") for any row seq, model replies included, so a refusal such
// as assistant-immutable shows inline on that row. Its outcome is reported
// through TakeSettled with token.
func (w *Widget) Call(name string, seq int, text string, hasText bool, remove []string, token int) []Request {
	var o op
	switch name {
	case "edit":
		o = opEdit
	case "undo":
		o = opUndo
	case "regenerate":
		o = opRegenerate
	default:
		w.settled = append(w.settled, Settled{Token: token, Result: Result{Code: "bad-request", Message: "unknown editor operation " + Quote(name)}})
		return nil
	}
	if w.Disabled() {
		w.settled = append(w.settled, Settled{Token: token, Result: Result{Code: CodeVersionSkew, Message: w.skew}})
		return nil
	}
	return w.call(o, seq, text, hasText, remove, token)
}

func (w *Widget) call(o op, seq int, text string, hasText bool, remove []string, token int) []Request {
	r := w.row(seq)
	r.busy++
	r.err = ""
	// A refusal shown under a row with no editor open (a page script's call
	// on a context row or a model reply) is cleared by the next operation, on
	// any row; an open editor keeps its own, which says why its draft is not
	// saved.
	for _, other := range w.rows {
		if !other.editing {
			other.err = ""
		}
	}
	body := `{"session":` + Quote(w.session) + `,"target":{"seq":` + strconv.Itoa(seq) + `}`
	if hasText {
		body += `,"text":` + Quote(text)
	}
	if len(remove) > 0 {
		body += `,"removeAttachments":[`
		for i, id := range remove {
			if i > 0 {
				body += ","
			}
			body += Quote(id)
		}
		body += "]"
	}
	body += "}"
	path := PathEdit
	switch o {
	case opUndo:
		path = PathUndo
	case opRegenerate:
		path = PathRegenerate
	}
	return []Request{w.send(pending{op: o, seq: seq, token: token, text: text, hasText: hasText}, "POST", path, body)}
}

// Response hands the answer to request id to the widget; it returns the
// requests that follow (a state refresh after every operation).
func (w *Widget) Response(id, status int, body string) []Request {
	p, ok := w.pending[id]
	if !ok {
		return nil
	}
	delete(w.pending, id)
	res := ParseResponse(status, body)
	if p.op == opState {
		if status == 0 {
			res.Message = StateUnreadMessage(body) // a read saves nothing either way
		}
		return w.stateAnswer(res)
	}
	if status == 0 {
		// A request can be cut after the host wrote: the outcome is unknown,
		// not "nothing saved" (S4).
		res.Message = NoAnswerMessage(body)
	} else if res.NoEnvelope {
		res.Message += " " + mayHaveLanded
	}
	if p.token != 0 {
		w.settled = append(w.settled, Settled{Token: p.token, Result: res, Body: body})
	}
	r := w.row(p.seq)
	r.busy--
	// Only the open editor's own save closes it (see rowUI.save).
	closes := r.save == 0 || r.save == id
	if r.save == id {
		r.save = 0
	}
	if !res.OK {
		if res.Code == CodeVersionSkew {
			w.skew = res.Message
		}
		r.err = res.Message
		if r.err == "" {
			r.err = res.Code
		}
		if res.Code == CodeVersionSkew {
			return nil // every control is off until a reload (S97)
		}
		// The editor stays open with the user's text (S97). The state is
		// read again after every operation (S98), a refused one included:
		// a refusal often means the page's view is behind (a compaction
		// shadowed the row, another tab undid the edit), and an unanswered
		// one may have landed.
		return w.Refresh()
	}
	r.err = ""
	switch p.op {
	case opEdit:
		if !res.Value.Get("unchanged").Truth() && p.hasText {
			t := p.text
			r.shown = &t
		}
		if res.Value.Get("inFlight").Truth() {
			r.note = InFlightNote
		}
		if closes {
			r.editing, r.draft, r.marked = false, "", nil
		}
	case opRegenerate:
		if p.hasText {
			t := p.text
			r.shown = &t
		}
		if closes {
			r.editing, r.draft, r.marked = false, "", nil
		}
		r.note = ""
	case opUndo:
		r.note = ""
	}
	return w.Refresh()
}

func (w *Widget) stateAnswer(res Result) []Request {
	w.stateBusy = false
	w.stateRetry = 0
	if res.Code == CodeNotLoaded || res.Code == CodeInternal {
		// After a host restart the page can ask before the host serves the
		// session again, and no row changes afterwards (S98's triggers):
		// without a retry the editor would stay off until a reload.
		w.stateFailures++
		w.stateRetry = min(StateRetryMax, StateRetryFirst<<min(w.stateFailures-1, 5))
	} else {
		w.stateFailures = 0
	}
	switch {
	case res.OK:
		if st, ok := DecodeState(res.Value); ok {
			w.st, w.notice = st, ""
			for seq, r := range w.rows {
				r.shown = nil
				if u := w.user(seq); r.editing && u != nil && u.Text != r.base && r.draft == r.base && r.busy == 0 {
					r.draft, r.base = u.Text, u.Text // untouched: it follows the message
				}
				if !st.AgentRunning {
					r.note = ""
				}
				if !r.editing && r.busy == 0 && r.err == "" && r.note == "" {
					delete(w.rows, seq)
				}
			}
		} else {
			w.notice = "The host's editor state could not be read."
		}
	case res.Code == CodeVersionSkew:
		w.skew = res.Message
	case res.Code == CodeInternal && w.st != nil:
		// A read that did not get through (a dropped connection, a proxy's
		// 502) says nothing about the session: the rows, what a save just
		// wrote and any open editor's typing stay while it is retried.
		w.notice = res.Message
	default:
		// session-not-loaded and friends: the stock transcript, no
		// controls (S87).
		w.st, w.notice = nil, res.Message
	}
	if w.stateAgain {
		w.stateAgain = false
		return w.Refresh()
	}
	return nil
}

// The state read's retry delays (ms): the first, and the cap.
const (
	StateRetryFirst = 250
	StateRetryMax   = 5000
)

// TakeStateRetry returns and clears the delay (ms) after which the edge
// should call Refresh again, or 0: set when the last state read answered
// session-not-loaded or did not reach the host (S87: meanwhile the stock
// transcript shows, with no controls).
func (w *Widget) TakeStateRetry() int {
	d := w.stateRetry
	w.stateRetry = 0
	return d
}

// StateUnreadMessage is shown when a state read did not reach the host.
func StateUnreadMessage(reason string) string {
	return "The editor could not read the session's state: " + reason + ". Trying again."
}

// mayHaveLanded ends the message of an operation whose outcome is unknown.
const mayHaveLanded = "It may have been saved; the rows show the host's state once it answers."

// NoAnswerMessage is shown when an operation's answer did not arrive (a
// failed fetch, a body cut mid-read): the host may have written it.
func NoAnswerMessage(reason string) string {
	return "The host's answer did not arrive: " + reason + ". " + mayHaveLanded
}

// Close stops the widget asking for anything (the page destroyed it);
// answers to requests already sent still settle their calls.
func (w *Widget) Close() { w.closed = true }

// Waiting reports whether a request is still unanswered.
func (w *Widget) Waiting() bool { return len(w.pending) > 0 }

// TakeSettled returns and clears the outcomes of programmatic calls.
func (w *Widget) TakeSettled() []Settled {
	s := w.settled
	w.settled = nil
	return s
}

// RowKind says which overlay a row gets.
type RowKind uint8

const (
	// OtherRow is left entirely to the host's renderer (S96).
	OtherRow RowKind = iota
	UserRowKind
	AssistantRowKind
)

// Chip is one attachment chip.
type Chip struct {
	_         noCompare
	ID, Label string
	Marked    bool
}

// RowView is everything the DOM edge draws for one row.
type RowView struct {
	Kind   RowKind
	Hidden bool
	// User rows: the live text and attachments (or the editor's).
	Text  string
	Chips []Chip
	// Controls.
	Pencil, Edited, Undo, Regenerate bool
	Editing                          bool
	Draft                            string
	SaveRegenerate                   bool
	Busy, Disabled                   bool
	Error, Note                      string
}

// regenerating: a regenerate the widget sent for a row other than seq (-1:
// any row) is unanswered. The other regenerate controls are off meanwhile
// (S92, no double submit): the turn it starts supersedes their rows.
func (w *Widget) regenerating(seq int) bool {
	for _, p := range w.pending {
		if p.op == opRegenerate && p.seq != seq {
			return true
		}
	}
	return false
}

// Row is the view of the row whose (original) seq is seq.
func (w *Widget) Row(seq int) RowView {
	v := RowView{Disabled: w.Disabled()}
	r := w.rows[seq]
	if r != nil {
		v.Busy, v.Error, v.Note = r.busy > 0, r.err, r.note
	}
	if w.st == nil {
		return v
	}
	v.Hidden = w.st.Hidden[seq]
	if u := w.user(seq); u != nil {
		v.Kind = UserRowKind
		v.Text = u.Text
		if r != nil && r.shown != nil {
			v.Text = *r.shown
		}
		for _, a := range u.Attachments {
			c := Chip{ID: a.ID, Label: a.Label()}
			if r != nil && r.editing {
				for _, m := range r.marked {
					c.Marked = c.Marked || m == a.ID
				}
			}
			v.Chips = append(v.Chips, c)
		}
		v.Pencil = !u.Shadowed
		// S94: the badge on every edited row, the undo only where the edit
		// can be undone (not after Save & regenerate, not once a compaction
		// shadowed the row); the edge says why in the badge's title.
		v.Edited = u.Edited
		v.Undo = u.Undoable
		if r != nil && r.editing {
			v.Editing, v.Draft, v.SaveRegenerate = true, r.draft, u.Regenerable && !w.regenerating(seq)
		}
		return v
	}
	if a := w.assistant(seq); a != nil {
		v.Kind = AssistantRowKind
		v.Regenerate = a.Regenerable && !w.regenerating(seq)
	}
	return v
}

func queryEscape(s string) string {
	const hexd = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b = append(b, c)
		} else {
			b = append(b, '%', hexd[c>>4], hexd[c&15])
		}
	}
	return string(b)
}

// DraftsJSON is what the user typed in the open editors (drafts that differ
// from the text they opened with), as a JSON object {"<seq>": [draft,
// base]} in ascending seq, base the message's text the draft was typed
// over, or "" when there is none: the edge keeps it in the tab's session
// storage, so a session switch or a reload does not lose it.
func (w *Widget) DraftsJSON() string {
	var seqs []int
	for seq, r := range w.rows {
		if r.editing && r.draft != r.base {
			seqs = append(seqs, seq)
		}
	}
	if len(seqs) == 0 {
		return ""
	}
	// Few open editors: an insertion sort (slices.Sort's generic code
	// costs the page's module ~7 KB).
	for i := 1; i < len(seqs); i++ {
		for j := i; j > 0 && seqs[j] < seqs[j-1]; j-- {
			seqs[j], seqs[j-1] = seqs[j-1], seqs[j]
		}
	}
	out := "{"
	for i, seq := range seqs {
		if i > 0 {
			out += ","
		}
		out += `"` + strconv.Itoa(seq) + `":[` + Quote(w.rows[seq].draft) + `,` + Quote(w.rows[seq].base) + `]`
	}
	return out + "}"
}

// RestoreDrafts opens an editor holding its draft on each row of a
// DraftsJSON text that the state still has as an editable user row (not
// shadowed; rows gone are dropped). A draft typed over a text the message
// no longer has asks before its first save, as an open editor's does
// (ChangedElsewhereMessage). It returns false, doing nothing, until the
// state is loaded.
func (w *Widget) RestoreDrafts(doc string) bool {
	if w.st == nil {
		return false
	}
	v, err := Parse(doc)
	if err != nil || v.Kind != Object {
		return true
	}
	for i, k := range v.Keys {
		seq, ok := jsvalue.Decimal(k)
		d := v.Vals[i]
		// A plain string is a draft stored by a build before drafts kept
		// their base: kept, typed over the text the message has now.
		old := ok && d.Kind == String
		if !old && (!ok || d.Kind != Array || len(d.Items) != 2 || d.Items[0].Kind != String || d.Items[1].Kind != String) {
			continue
		}
		w.Open(seq)
		if r := w.rows[seq]; r != nil && r.editing {
			if old {
				r.draft = d.S
			} else {
				r.draft, r.base = d.Items[0].S, d.Items[1].S
			}
		}
	}
	return true
}
