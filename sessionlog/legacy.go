package sessionlog

// PlanLegacyAssistantEdit plans the conservative rewrite of a model reply
// that v0–v2 logs allow (S55–S58). On a v3+ log, and on any live session's
// snapshot, it refuses with assistant-immutable before looking at anything
// else (S53, L8): the planner is never wired to a live session
// (docs/live-sessions.md).
func (l *Log) PlanLegacyAssistantEdit(t Target, text string, env Env) (*Plan, error) {
	if l.Version() >= 3 || l.live {
		return nil, l.assistantImmutable()
	}
	o, err := l.resolve(t)
	if err != nil {
		return nil, err
	}
	if l.Events[o].Type != "assistant/message" {
		return nil, refuse(CodeBadRequest, "the legacy assistant planner rewrites model replies only")
	}
	p, perr := l.planLegacyAssistant(o, text, env)
	if perr != nil {
		return nil, perr
	}
	return p, nil
}

func (l *Log) planLegacyAssistant(o int, text string, env Env) (*Plan, *Error) {
	if l.CompactionOpen() {
		return nil, refuse(CodeCompactionOpen, "A context compaction is in progress; try again once it has finished.")
	}
	live := l.liveNode(o, l.copyIndex())
	if !l.onSurface(live) {
		return nil, shadowedErr()
	}
	data, _ := cloneValue(l.Events[live].Data()).(map[string]any)
	msg := asMap(data["message"])
	if msg == nil {
		return nil, refuse(CodeBadRequest, "this model reply has no message to rewrite")
	}
	L := contentOf(msg)

	// S56: the S45 text rule without removals; non-text blocks stay.
	out, origin := rewriteText(L, text, nil)
	hasText, hasCall := false, false
	for _, b := range out {
		switch asString(asMap(b)["type"]) {
		case "text":
			hasText = true
		case "tool-call":
			hasCall = true
		}
	}
	if !hasText && !hasCall {
		return nil, refuse(CodeEmptyMessage, "The reply would be empty; keep some text or a tool call.")
	}
	if text == editableText(L) {
		return &Plan{Op: OpEdit, Unchanged: true, OriginalSeq: o, ReplacedSeq: live, InFlight: env.AgentRunning}, nil
	}

	// S57: drop usage (token accounting reads the raw log), mark the edit,
	// realign the replay signatures to the new blocks.
	delete(data, "usage")
	msg["content"] = out
	setMessageEdit(msg, o, ActionEdit)
	realignReplay(asMap(msg["source"]), L, out, origin)
	ev, verr := l.finish("assistant/message", data, live, live, []int{live}, env)
	if verr != nil {
		return nil, verr
	}
	return &Plan{Op: OpEdit, Event: ev, OriginalSeq: o, ReplacedSeq: live, InFlight: env.AgentRunning}, nil
}

// realignReplay rewrites source.replayState.blocks for the new content, or
// drops replayState when the old one is not aligned with the old content
// (S57): the provider adapter checks it slot by slot and discards a
// mismatch anyway, so a stale one only risks a rejected request.
func realignReplay(src map[string]any, old, out []any, origin []int) {
	raw, present := src["replayState"]
	if !present {
		return
	}
	rs := asMap(raw)
	blocks, ok := rs["blocks"].([]any)
	aligned := rs != nil && ok && len(blocks) == len(old)
	for i := 0; aligned && i < len(blocks); i++ {
		bt, isStr := asMap(blocks[i])["type"].(string)
		aligned = isStr && bt == asString(asMap(old[i])["type"])
	}
	if !aligned {
		delete(src, "replayState")
		return
	}
	nb := make([]any, len(out))
	for i, b := range out {
		if o := origin[i]; o >= 0 && deepEqual(b, old[o]) {
			nb[i] = cloneValue(blocks[o])
			continue
		}
		nb[i] = map[string]any{"type": asString(asMap(b)["type"])}
	}
	rs["blocks"] = nb
}

// assistantImmutable is the refusal of an edit or undo of a model reply.
// v3+ logs get the normative S53 text. A live v0–v2 session could take a
// replacement, but the legacy planner stays off live sessions, and the S53
// reason (assistant/message refuses sourceEventSeqs) would be false there,
// so it gets its own wording (docs/live-sessions.md).
func (l *Log) assistantImmutable() *Error {
	if l.Version() >= 3 {
		return refuse(CodeAssistantImmutable, AssistantImmutableMessage)
	}
	return refuse(CodeAssistantImmutable, LiveAssistantImmutableMessage)
}
