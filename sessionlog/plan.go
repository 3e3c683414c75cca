package sessionlog

import (
	"strconv"
)

// Editor actions recorded in source.messageEdit (S41).
const (
	ActionEdit       = "edit"
	ActionUndo       = "undo"
	ActionRegenerate = "regenerate"
)

// Op is an editor operation.
type Op string

// The three operations of the route (S82). OpRegenerate covers both "save
// and regenerate" (user target) and "regenerate this turn" (model reply).
const (
	OpEdit       Op = "edit"
	OpUndo       Op = "undo"
	OpRegenerate Op = "regenerate"
)

// Target names an original event by exactly one of MessageID or Seq (S35).
type Target struct {
	MessageID *string `json:"messageId,omitempty"`
	Seq       *int    `json:"seq,omitempty"`
}

// Request is one editor operation. A nil Text or RemoveAttachments means the
// field was absent; a non-nil empty RemoveAttachments counts as present
// (S59 refuses either field on a model-reply target).
type Request struct {
	Op                Op
	Target            Target
	Text              *string
	RemoveAttachments []string
}

// Plan is the outcome of a successful planning step: either Unchanged, or
// exactly one Event to append at seq = Log.Len().
type Plan struct {
	Op        Op
	Unchanged bool
	Event     *Event
	// OriginalSeq is the original the operation is about (S35).
	OriginalSeq int
	// ReplacedSeq is the live node an edit or undo replaces (S52).
	ReplacedSeq int
	// ShadowedSeqs are the nodes a regenerate removes, in surface order.
	ShadowedSeqs []int
	// InFlight: the agent was running, so the step in flight already sent
	// the old text (S51).
	InFlight bool
	// Wake: the host must call followup with Trigger(seq) after the append.
	Wake bool
}

// Trigger is the wake message of S64 for the replacement appended at seq,
// with the v4 source kind. Hosts use (*Log).Trigger, which spells the source
// for the log's own version.
func Trigger(seq int) map[string]any { return trigger(4, seq) }

// Trigger is the wake message of S64 for the replacement appended at seq to
// this log: v4 logs get the producer-owned kind, v0–v3 logs the
// {kind:'plugin', plugin} wrapper their generation uses for third-party
// context (docs/live-sessions.md).
func (l *Log) Trigger(seq int) map[string]any { return trigger(l.Version(), seq) }

func trigger(version, seq int) map[string]any {
	return map[string]any{
		"id":      TriggerIDPrefix + strconv.Itoa(seq),
		"role":    "user",
		"content": []any{map[string]any{"type": "text", "text": TriggerText}},
		"source":  editorSource(version),
	}
}

type editorCopy struct {
	seq    int
	action string
}

// copyIndex maps each original to its editor copies in log order (S41).
func (l *Log) copyIndex() map[int][]editorCopy {
	idx := map[int][]editorCopy{}
	for seq := range l.Events {
		o, action, ok := l.editMark(seq)
		if !ok {
			continue
		}
		if _, ok := l.editorCopyOf(seq, o); ok {
			idx[o] = append(idx[o], editorCopy{seq, action})
		}
	}
	return idx
}

// liveNode is the highest-seq event among o and its editor copies (S42).
func (l *Log) liveNode(o int, copies map[int][]editorCopy) int {
	live := o
	for _, c := range copies[o] {
		live = max(live, c.seq)
	}
	return live
}

// inRange reports whether a node may be swept into a regenerate range (S61).
func (l *Log) inRange(seq int) bool {
	ev := l.Events[seq]
	switch ev.Type {
	case "assistant/message", "tool/result":
		return true
	case "user/message":
		return l.kinds[seq] == kindAppend && isContext(ev)
	}
	return false
}

// rangeFrom is the S61 range starting at the surface node head.
func (l *Log) rangeFrom(head int) []int {
	p := indexOf(l.nodes, head)
	if p < 0 {
		return nil
	}
	end := p + 1
	for end < len(l.nodes) && l.inRange(l.nodes[end]) {
		end++
	}
	return l.nodes[p:end]
}

func (l *Log) reachesEnd(r []int) bool {
	return len(r) > 0 && len(l.nodes) > 0 && r[len(r)-1] == l.nodes[len(l.nodes)-1]
}

// exchangeHead walks back from a reply on the surface to its prompt (S66):
// the head node and the original it stands for.
func (l *Log) exchangeHead(reply int, copies map[int][]editorCopy) (head, orig int, err *Error) {
	p := indexOf(l.nodes, reply)
	for p >= 0 && l.inRange(l.nodes[p]) {
		p--
	}
	if p < 0 {
		return 0, 0, refuse(CodeNoPrompt, "No prompt precedes this reply on the model's view, so there is no turn to regenerate.")
	}
	head = l.nodes[p]
	ev := l.Events[head]
	if !isUserKind(ev) {
		return 0, 0, refuse(CodeNoPrompt, "The reply is not preceded by a user prompt on the model's view (for example a compaction checkpoint stands there), so there is no turn to regenerate.")
	}
	if l.kinds[head] == kindAppend {
		return head, head, nil
	}
	if o, _, ok := l.editMark(head); ok {
		if _, ok := l.editorCopyOf(head, o); ok {
			return head, o, nil
		}
	}
	return 0, 0, refuse(CodeNoPrompt, "The prompt before this reply was written by another producer, so the editor cannot regenerate this turn.")
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// resolve finds the original a target names (S35–S37).
func (l *Log) resolve(t Target) (int, *Error) {
	if (t.MessageID == nil) == (t.Seq == nil) {
		return 0, refuse(CodeBadRequest, "target must name exactly one of messageId or seq")
	}
	if t.Seq != nil {
		s := *t.Seq
		if !l.isAppend(s) {
			return 0, refuse(CodeMessageNotFound, "No message starts at seq %d in this session; name the message by its original event.", s)
		}
		return s, nil
	}
	for seq := len(l.Events) - 1; seq >= 0; seq-- {
		if l.kinds[seq] == kindAppend && messageID(l.Events[seq]) == *t.MessageID {
			return seq, nil
		}
	}
	return 0, refuse(CodeMessageNotFound, "No message with id %q in this session.", *t.MessageID)
}

// Plan plans one editor operation against the log, checking refusals in the
// S79 order. It never changes the log; on success the returned event has
// been validated as the next event (S23).
func (l *Log) Plan(req Request, env Env) (*Plan, error) {
	p, err := l.plan(req, env)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (l *Log) plan(req Request, env Env) (*Plan, *Error) {
	// Shape (S83, S35).
	switch req.Op {
	case OpEdit:
		if req.Text == nil {
			return nil, refuse(CodeBadRequest, "edit requires text")
		}
	case OpUndo:
		if req.Text != nil || req.RemoveAttachments != nil {
			return nil, refuse(CodeBadRequest, "undo takes no text and no removeAttachments")
		}
	case OpRegenerate:
	default:
		return nil, refuse(CodeBadRequest, "unknown operation %q", string(req.Op))
	}
	if (req.Target.MessageID == nil) == (req.Target.Seq == nil) {
		return nil, refuse(CodeBadRequest, "target must name exactly one of messageId or seq")
	}

	// Step 3: target and kind.
	o, rerr := l.resolve(req.Target)
	if rerr != nil {
		return nil, rerr
	}
	orig := l.Events[o]
	turnMode := false
	switch {
	case orig.Type == "assistant/message":
		switch req.Op {
		case OpEdit:
			if l.Version() < 3 && !l.live {
				return l.planLegacyAssistant(o, *req.Text, env)
			}
			return nil, l.assistantImmutable()
		case OpUndo:
			return nil, l.assistantImmutable()
		}
		turnMode = true
		if req.Text != nil || req.RemoveAttachments != nil {
			return nil, refuse(CodeBadRequest, "regenerating a model reply takes no text and no removeAttachments; edit the prompt instead")
		}
	case isUserKind(orig):
	default:
		return nil, refuse(CodeNotUserMessage, "Only your own messages can be edited; this one is a %s.", describe(orig))
	}

	// Step 4.
	if l.CompactionOpen() {
		return nil, refuse(CodeCompactionOpen, "A context compaction is in progress; try again once it has finished.")
	}
	if req.Op == OpRegenerate && (env.AgentRunning || env.WakePending) {
		return nil, refuse(CodeAgentBusy, "The agent is busy; wait for it to finish before regenerating.")
	}
	copies := l.copyIndex()
	var live, origSeq int
	if turnMode {
		if !l.onSurface(o) {
			return nil, shadowedErr()
		}
		head, ho, herr := l.exchangeHead(o, copies)
		if herr != nil {
			return nil, herr
		}
		live, origSeq = head, ho
	} else {
		origSeq = o
		live = l.liveNode(o, copies)
		if !l.onSurface(live) {
			return nil, shadowedErr()
		}
	}
	liveData := asMap(l.Events[live].Data())
	liveContent := contentOf(liveData)

	switch req.Op {
	case OpRegenerate:
		r := l.rangeFrom(live)
		if !l.reachesEnd(r) {
			return nil, refuse(CodeRegenerateNotLast, "Only the last exchange can be regenerated; later messages follow this one. Save without regenerating to edit it in place.")
		}
		var content []any
		if req.Text != nil {
			var cerr *Error
			if content, _, cerr = rewriteUser(liveContent, *req.Text, req.RemoveAttachments); cerr != nil {
				return nil, cerr
			}
		} else {
			var cerr *Error
			if content, cerr = removeOnly(liveContent, req.RemoveAttachments); cerr != nil {
				return nil, cerr
			}
		}
		shadowed := append([]int(nil), r...)
		ev, verr := l.buildCopy(live, origSeq, ActionRegenerate, content, r[0], r[len(r)-1], shadowed, env)
		if verr != nil {
			return nil, verr
		}
		return &Plan{Op: req.Op, Event: ev, OriginalSeq: origSeq, ReplacedSeq: live, ShadowedSeqs: shadowed, Wake: true}, nil

	case OpUndo:
		origContent := contentOf(message(orig))
		if deepEqual(anySlice(liveContent), anySlice(origContent)) {
			return nil, refuse(CodeNothingToUndo, "There is no edit to undo on this message.")
		}
		if hasRegenerate(copies[o]) {
			return nil, refuse(CodeNothingToUndo, "This message was regenerated after its edit; a regenerated message cannot be undone (S75).")
		}
		// The original's content goes back as it was written, not as read:
		// an absent field stays absent and a flattened string stays a
		// string, so the fold equals the pre-edit fold (S73).
		data := cloneValue(l.Events[live].Data()).(map[string]any)
		if raw, ok := message(orig)["content"]; ok {
			data["content"] = cloneValue(raw)
		} else {
			delete(data, "content")
		}
		setMessageEdit(data, o, ActionUndo)
		ev, verr := l.finish("user/message", data, live, live, []int{live}, env)
		if verr != nil {
			return nil, verr
		}
		return &Plan{Op: req.Op, Event: ev, OriginalSeq: o, ReplacedSeq: live, InFlight: env.AgentRunning}, nil

	default: // OpEdit
		content, unchanged, cerr := rewriteUser(liveContent, *req.Text, req.RemoveAttachments)
		if cerr != nil {
			return nil, cerr
		}
		if unchanged {
			return &Plan{Op: req.Op, Unchanged: true, OriginalSeq: o, ReplacedSeq: live, InFlight: env.AgentRunning}, nil
		}
		ev, verr := l.buildCopy(live, o, ActionEdit, content, live, live, []int{live}, env)
		if verr != nil {
			return nil, verr
		}
		return &Plan{Op: req.Op, Event: ev, OriginalSeq: o, ReplacedSeq: live, InFlight: env.AgentRunning}, nil
	}
}

func shadowedErr() *Error {
	return refuse(CodeTargetShadowed, "This message is no longer in the model's view (a compaction or another plugin replaced it), so it cannot be changed here.")
}

func describe(ev *Event) string {
	switch {
	case isContext(ev):
		return "context message"
	case ev.Type == "tool/result":
		return "tool result"
	case ev.Type == "system/message":
		return "system message"
	case ev.Type == "developer/message":
		return "developer message"
	}
	return ev.Type
}

// rewriteUser applies S45–S48 to live content L. It reports unchanged for
// an edit whose text equals E(L) with no removals (callers that always write
// ignore it).
func rewriteUser(L []any, text string, remove []string) ([]any, bool, *Error) {
	if err := checkRemovals(L, remove); err != nil {
		return nil, false, err
	}
	out, _ := rewriteText(L, text, removalSet(remove))
	if !hasTextOrAttachment(out) {
		return nil, false, refuse(CodeEmptyMessage, "The message would be empty; keep some text or an attachment.")
	}
	unchanged := text == editableText(L) && len(remove) == 0
	return out, unchanged, nil
}

// removeOnly is the regenerate content without text: the live content
// verbatim, no merge, minus listed attachments (S60).
func removeOnly(L []any, remove []string) ([]any, *Error) {
	if err := checkRemovals(L, remove); err != nil {
		return nil, err
	}
	rm := removalSet(remove)
	out := []any{}
	for _, b := range L {
		if id, ok := attachmentID(b); ok && rm[id] {
			continue
		}
		out = append(out, cloneValue(b))
	}
	if !hasTextOrAttachment(out) {
		return nil, refuse(CodeEmptyMessage, "The message would be empty; keep some text or an attachment.")
	}
	return out, nil
}

func removalSet(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// checkRemovals refuses ids that name no attachment of L (S46).
func checkRemovals(L []any, remove []string) *Error {
	have := map[string]bool{}
	for _, b := range L {
		if id, ok := attachmentID(b); ok {
			have[id] = true
		}
	}
	for _, id := range remove {
		if !have[id] {
			return refuse(CodeBadRequest, "attachment %q is not part of this message; reload the conversation and try again", id)
		}
	}
	return nil
}

// rewriteText is the S45 text rule. origin[i] is the index in L the i-th
// output block came from, or -1 for an inserted text block.
func rewriteText(L []any, text string, remove map[string]bool) (out []any, origin []int) {
	out, origin = []any{}, []int{}
	seenText := false
	for i, b := range L {
		bm := asMap(b)
		if asString(bm["type"]) == "text" {
			if !seenText && !isBlank(text) {
				nb := cloneValue(bm).(map[string]any)
				nb["text"] = text
				out, origin = append(out, nb), append(origin, i)
			}
			seenText = true
			continue
		}
		if id, ok := attachmentID(b); ok && remove[id] {
			continue
		}
		out, origin = append(out, cloneValue(b)), append(origin, i)
	}
	if !seenText && !isBlank(text) {
		out = append([]any{map[string]any{"type": "text", "text": text}}, out...)
		origin = append([]int{-1}, origin...)
	}
	return out, origin
}

func hasTextOrAttachment(content []any) bool {
	for _, b := range content {
		if asString(asMap(b)["type"]) == "text" && !isBlank(asString(asMap(b)["text"])) {
			return true
		}
		if _, ok := attachmentID(b); ok {
			return true
		}
	}
	return false
}

func (l *Log) replaceOp(start, end int) map[string]any {
	sk, ek := "startSeq", "endSeq"
	if l.Version() < 3 {
		sk, ek = "start", "end"
	}
	return map[string]any{"op": "replace", sk: start, ek: end}
}

// buildCopy writes the user/message copy of S49/S63/S72 and validates it as
// the next event (S23).
func (l *Log) buildCopy(live, o int, action string, content []any, start, end int, src []int, env Env) (*Event, *Error) {
	data := cloneValue(l.Events[live].Data()).(map[string]any)
	data["content"] = content
	setMessageEdit(data, o, action)
	return l.finish("user/message", data, start, end, src, env)
}

func setMessageEdit(msg map[string]any, o int, action string) {
	src := asMap(msg["source"])
	if src == nil {
		src = map[string]any{}
	}
	src["messageEdit"] = map[string]any{"originalEventSeq": o, "action": action}
	msg["source"] = src
}

func (l *Log) finish(typ string, data map[string]any, start, end int, src []int, env Env) (*Event, *Error) {
	seq := len(l.Events)
	fields, err := normalize(map[string]any{
		"type":            typ,
		"seq":             seq,
		"time":            env.Time,
		"data":            data,
		"surfaceOp":       l.replaceOp(start, end),
		"sourceEventSeqs": src,
	})
	if err != nil {
		return nil, refuse(CodeInternal, "planned event cannot be encoded: %v", err)
	}
	ev := newEvent(fields.(map[string]any), seq)
	if verr := l.checkAppend(ev); verr != nil {
		return nil, refuse(CodeInternal, "planned event failed validation: %s", verr.Error())
	}
	if verr := l.ValidateCandidate(ev); verr != nil {
		return nil, refuse(CodeInternal, "planned event failed validation: %s", verr.Error())
	}
	return ev, nil
}

// ResolveTarget returns the original event a target names (S35–S37), for
// callers that need its type before planning.
func (l *Log) ResolveTarget(t Target) (*Event, error) {
	o, err := l.resolve(t)
	if err != nil {
		return nil, err
	}
	return l.Events[o], nil
}

// SourceEventSeqs returns the planned event's sourceEventSeqs (the nodes it
// replaces, in surface order) in the form the host port's append takes.
func (p *Plan) SourceEventSeqs() []int {
	if p.Event == nil {
		return nil
	}
	src, _ := p.Event.Field("sourceEventSeqs")
	raw, _ := src.([]any)
	out := make([]int, 0, len(raw))
	for _, x := range raw {
		n, _ := seqValue(x, 4)
		out = append(out, n)
	}
	return out
}
