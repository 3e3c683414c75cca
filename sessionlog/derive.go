package sessionlog

import "strconv"

// Source kinds the editor writes and recognises.
const (
	// EditorSourceKind is the trigger's producer-owned source kind in v4
	// logs (S64, S19).
	EditorSourceKind = "plugin:tavern-core-message-editor"
	// EditorPluginName is the trigger's plugin name inside the
	// {kind:'plugin', plugin} wrapper that v0–v3 logs use for third-party
	// context (S15, S18; docs/live-sessions.md).
	EditorPluginName = "tavern-core-message-editor"
	TriggerIDPrefix  = "tavern-core-message-editor:trigger:"
	TriggerText      = "Please respond to the message above."
)

// editorSource is the trigger's source in the spelling of a log version.
func editorSource(version int) map[string]any {
	if version >= 4 {
		return map[string]any{"kind": EditorSourceKind}
	}
	return map[string]any{"kind": "plugin", "plugin": EditorPluginName}
}

// isEditorSource recognises the editor's trigger source in either
// spelling: a log migrated between generations keeps its old triggers.
func isEditorSource(src map[string]any) bool {
	k := asString(src["kind"])
	return k == EditorSourceKind || (k == "plugin" && asString(src["plugin"]) == EditorPluginName)
}

// message returns the model message an eligible event carries (S15):
// user/message's data is the message; the other types wrap it in data.message.
func message(ev *Event) map[string]any {
	d := asMap(ev.Data())
	if ev.Type == "user/message" {
		return d
	}
	return asMap(d["message"])
}

func messageID(ev *Event) string { return asString(message(ev)["id"]) }

func contentOf(msg map[string]any) []any {
	switch c := msg["content"].(type) {
	case []any:
		return c
	case string:
		// An older flattened shape; read it as one text block (S17 puts
		// such logs out of scope for editing, but readers must not fail).
		return []any{map[string]any{"type": "text", "text": c}}
	}
	return nil
}

func sourceOf(msg map[string]any) map[string]any { return asMap(msg["source"]) }

func sourceKind(msg map[string]any) string { return asString(sourceOf(msg)["kind"]) }

// isUserKind: a user/message whose source kind is 'user' (Terms).
func isUserKind(ev *Event) bool {
	return ev.Type == "user/message" && sourceKind(message(ev)) == "user"
}

// isContext: any other user/message (Terms).
func isContext(ev *Event) bool {
	return ev.Type == "user/message" && sourceKind(message(ev)) != "user"
}

// isCheckpointSource reports a compaction checkpoint's source (Terms): the
// producer-owned kind in v4, the plugin wrapper before it.
func isCheckpointSource(src map[string]any, version int) bool {
	if version >= 4 {
		return asString(src["kind"]) == "compact-checkpoint"
	}
	return asString(src["kind"]) == "plugin" && asString(src["plugin"]) == "compact"
}

func (l *Log) isCheckpoint(seq int) bool {
	ev := l.Events[seq]
	return l.kinds[seq] == kindReplace && ev.Type == "user/message" &&
		isCheckpointSource(sourceOf(message(ev)), l.Version())
}

// editMark reads source.messageEdit of a replacement (S41). Only the legacy
// assistant planner (S57) marks anything other than a user/message.
func (l *Log) editMark(seq int) (orig int, action string, ok bool) {
	ev := l.Events[seq]
	if l.kinds[seq] != kindReplace {
		return 0, "", false
	}
	me := asMap(sourceOf(message(ev))["messageEdit"])
	o, ok := seqValue(me["originalEventSeq"], l.Version())
	action = asString(me["action"])
	if !ok || (action != ActionEdit && action != ActionUndo && action != ActionRegenerate) {
		return 0, "", false
	}
	return o, action, true
}

// editorCopyOf reports whether seq is an editor copy of the original at o:
// marked with o, of the original's type and carrying its id (S41, S42).
func (l *Log) editorCopyOf(seq, o int) (string, bool) {
	mo, action, ok := l.editMark(seq)
	if !ok || mo != o || o >= len(l.Events) || !l.isAppend(o) {
		return "", false
	}
	copyEv, origEv := l.Events[seq], l.Events[o]
	if copyEv.Type != origEv.Type || messageID(copyEv) != messageID(origEv) {
		return "", false
	}
	return action, true
}

// emptyContent: the node keeps its place but yields no message (S28).
func emptyContent(msg map[string]any) bool {
	switch c := msg["content"].(type) {
	case []any:
		return len(c) == 0
	case string:
		return c == ""
	case nil:
		return true
	}
	return false
}

// Messages derives the model-visible messages from the surface (S28), as
// the objects stored in the log. A node whose message is not an object
// yields nothing, like an empty reply: the fold never derives a null
// message (issue 15, item 2).
func (l *Log) Messages() []any {
	out := make([]any, 0, len(l.nodes))
	for _, seq := range l.nodes {
		ev := l.Events[seq]
		msg := message(ev)
		if msg == nil {
			continue
		}
		switch ev.Type {
		case "user/message", "tool/result":
			out = append(out, msg)
		default:
			if !emptyContent(msg) {
				out = append(out, msg)
			}
		}
	}
	return out
}

// rawMessage is the JSON text of the message a node derives (S28), nil when
// it derives none; ok is false when the event holds no raw text to slice,
// and the caller encodes Messages' value instead.
func rawMessage(ev *Event) (msg []byte, ok bool) {
	if ev.fields != nil || ev.rawData == nil {
		return nil, ev.rawData == nil && ev.fields == nil
	}
	msg = ev.rawData
	if ev.Type != "user/message" {
		if ev.env.dataKeys&dataMessage == 0 {
			return nil, true
		}
		msg = ev.rawData[ev.env.msgStart:ev.env.msgEnd]
	}
	if rawKind(msg) != '{' {
		return nil, true
	}
	if (ev.Type != "user/message" && ev.Type != "tool/result") && rawEmptyContent(msg) {
		return nil, true
	}
	return msg, true
}

// AppendFoldJSON appends the fold view as one JSON object,
// {"version","surface","messages","length"} (S25–S28, S102): the messages
// are the bytes stored in the log, not a re-encoding.
func (l *Log) AppendFoldJSON(buf []byte) ([]byte, error) {
	buf = append(buf, `{"version":`...)
	buf = strconv.AppendInt(buf, int64(l.Version()), 10)
	buf = append(buf, `,"surface":[`...)
	for i, seq := range l.nodes {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(seq), 10)
	}
	buf = append(buf, `],"messages":`...)
	buf, err := l.AppendMessagesJSON(buf)
	if err != nil {
		return nil, err
	}
	buf = append(buf, `,"length":`...)
	buf = strconv.AppendInt(buf, int64(l.Len()), 10)
	return append(buf, '}'), nil
}

// AppendMessagesJSON appends the derived messages (S28) as a JSON array of
// the bytes stored in the log, not a re-encoding.
func (l *Log) AppendMessagesJSON(buf []byte) ([]byte, error) {
	buf = append(buf, '[')
	first := true
	for _, seq := range l.nodes {
		ev := l.Events[seq]
		msg, raw := rawMessage(ev)
		if !raw {
			m := message(ev)
			if m == nil || (ev.Type != "user/message" && ev.Type != "tool/result" && emptyContent(m)) {
				continue
			}
			b, err := EncodeJSON(m)
			if err != nil {
				return nil, err
			}
			msg = b
		}
		if msg == nil {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, msg...)
	}
	return append(buf, ']'), nil
}

// CompactionOpen applies S77: scanning backwards, the first compaction
// start or end decides; a start is void when a later session/end-seed
// marks a new lifecycle.
func (l *Log) CompactionOpen() bool {
	seedAfter := false
	for i := len(l.Events) - 1; i >= 0; i-- {
		switch l.Events[i].Type {
		case "session/end-seed":
			seedAfter = true
		case "compaction/end":
			return false
		case "compaction/start":
			return !seedAfter
		}
	}
	return false
}

// HasMessageID reports whether any user/message in the log carries id; the
// host uses it to clear a pending wake once its trigger landed (S65).
func (l *Log) HasMessageID(id string) bool {
	for _, ev := range l.Events {
		if ev.Type == "user/message" && messageID(ev) == id {
			return true
		}
	}
	return false
}
