package sessionlog

import (
	"strconv"
)

// Load checks of a stored v0 log (issue 15, item 5; rule S108). Beside the
// surface rules of §4, the harness (0.1.1) refuses a stored log at load when
// an event
//
//   - belongs to a retired vocabulary: request/header-delta, mode/set, or a
//     request/header whose reason is "fallback";
//   - has an envelope member outside {type, seq, time, data, surfaceOp,
//     sourceEventSeqs, ignorable}, a time that is not a safe integer, no
//     data, or an ignorable other than true;
//   - is a request/header without a provider/model pair in header.config, or
//     with an invalid reasoningEffort or adapterDefaults;
//   - is a message event whose message is not identified, has the wrong
//     role, no source kind, non-array content, a non-model source (assistant)
//     or a non-tool source (tool/result), or a tool/result whose content is
//     not exactly one tool-result block answering its own call;
//   - has a type outside its vocabulary and no ignorable:true;
//   - is a turn/start, step/start or tool/call with null or no data (the
//     harness's resume scan reads their fields and fails).
//
// tavern-core makes the same checks when it reads a stored v0 file, so a
// log it accepts is one the harness resumes (the messages are the
// harness's, with "seed event at index N" read as "session event at seq N";
// V22 keeps the spec's editor wording). They are load checks only: a live
// session's snapshot is never refused for them (S14; the harness's own
// append does not make them either), and v1–v4 logs keep the spec's rules.

// harnessV0Types is the event vocabulary of the v0 harness
// (KNOWN_SESSION_EVENT_TYPES of 0.1.1).
var harnessV0Types = map[string]bool{
	"agent-preset/selected": true, "agent/inbox/spliced": true, "approval/asked": true,
	"approval/decided": true, "approval/policy": true, "assistant/chunk": true,
	"assistant/message": true, "command/done": true, "command/run": true,
	"compaction/end": true, "compaction/prune": true, "compaction/start": true,
	"compaction/summary": true, "feedback/record": true, "goal/change": true,
	"hook/invoked": true, "hook/result": true, "llm/retry": true,
	"llm/retry-started": true, "permission/preset": true, "plan/mode": true,
	"request/context": true, "request/header": true, "sandbox/mode": true,
	"schedule/change": true, "session/end-seed": true, "session/title": true,
	"session/title-llm-request": true, "step/end": true, "step/start": true,
	"subagent/descriptor": true, "team/member": true, "team/message/delivered": true,
	"team/message/queued": true, "team/task": true, "todo/write": true,
	"tool-workflow/agent-end": true, "tool-workflow/agent-start": true,
	"tool-workflow/run-end": true, "tool-workflow/run-start": true, "tool/call": true,
	"tool/code-dispatch": true, "tool/code-dispatch-start": true, "tool/result": true,
	"turn/end": true, "turn/start": true, "user/message": true,
	"web/deepseek-search-llm-request": true,
}

// readCheck runs the read-time steps of a stored file for the event at
// seq = Len(): in v0 the harness's migration and load checks, in v1–v4 the
// refusal of the older flattened shapes. It returns the event to validate,
// migrated when the v0 reader upgrades it.
func (l *Log) readCheck(ev *Event) (*Event, *Error) {
	idx := len(l.Events)
	if l.Version() != 0 {
		return ev, refuseFlattened(ev, idx, l.Version())
	}
	// The harness's reader checks contiguity first, while it scans the file.
	if err := checkSeq(ev, idx, 0); err != nil {
		return nil, err
	}
	// Messages are put together only when one is needed.
	session := func() string { return strconv.Quote(l.Header.ID()) }
	at := func() string { return " at seq " + strconv.Itoa(idx) }
	loadErr := func(msg string) *Error {
		return &Error{Code: CodeInvalidLog, Rule: "S108", Seq: idx, Message: msg}
	}
	switch ev.Type {
	case "request/header-delta", "mode/set":
		return nil, loadErr("session " + session() + " contains unsupported legacy " + ev.Type + " event" + at())
	case "request/header":
		if v, _ := rawValue(rawMembers(dataText(ev))["reason"]); v == "fallback" {
			return nil, loadErr(`session ` + session() + ` contains unsupported legacy request/header reason "fallback"` + at())
		}
	}
	ev, err := l.migrateV0(ev, idx)
	if err != nil {
		return nil, err
	}
	switch ev.Type {
	case "turn/start", "step/start", "tool/call":
		// The harness reads data.turn, data.step or data.callId of these
		// when it looks for an open turn to close, and fails to resume a
		// log whose data is null or absent.
		if dataIsNull(ev) {
			return nil, loadErr("session event" + at() + " (" + ev.Type + ") has no data object")
		}
	}
	if msg := messageShape(ev); msg != "" {
		return nil, loadErr("session event" + at() + " " + msg)
	}
	if !harnessV0Types[ev.Type] && ev.env.ign != true {
		return nil, invalid("V22", idx, "session event %q has an unknown type and is not marked ignorable", ev.Type)
	}
	e := &ev.env
	_, typeIsString := e.typ.(string)
	if len(e.extra) > 0 || !typeIsString || !e.epochTime() || !e.hasData || (e.hasIgn && e.ign != true) {
		return nil, loadErr("session event" + at() + " has an invalid event envelope")
	}
	if ev.Type == "request/header" {
		if msg := requestHeaderShape(dataText(ev)); msg != "" {
			return nil, loadErr("request/header" + at() + " " + msg)
		}
	}
	return ev, nil
}

// hasProviderModel: an object with non-empty provider and model strings.
func hasProviderModel(v any) bool {
	m, ok := v.(map[string]any)
	return ok && asString(m["provider"]) != "" && asString(m["model"]) != ""
}

// dataText is the JSON text of an event's data (nil when absent).
func dataText(ev *Event) []byte {
	if ev.fields == nil {
		return ev.rawData
	}
	d, ok := ev.fields["data"]
	if !ok {
		return nil
	}
	b, _ := EncodeJSON(d)
	return b
}

// dataIsNull: data is absent or null.
func dataIsNull(ev *Event) bool {
	t := dataText(ev)
	return t == nil || rawKind(t) == 'n'
}

// requestHeaderShape is the harness's request/header load check, over the
// data's text (a header can carry a long system prompt and tool list, which
// are skipped, not decoded).
func requestHeaderShape(data []byte) string {
	hm := rawMembers(rawMembers(data)["header"])
	header := map[string]any{}
	for _, k := range []string{"config", "adapterDefaults"} {
		if v, ok := rawValue(hm[k]); ok {
			header[k] = v
		}
	}
	config, hasConfig := header["config"]
	if !hasConfig || !hasProviderModel(config) {
		return "lacks provider/model"
	}
	cfg := config.(map[string]any)
	if effort, has := cfg["reasoningEffort"]; has && asString(effort) == "" {
		return "has an invalid reasoningEffort"
	}
	raw, has := header["adapterDefaults"]
	if !has {
		return ""
	}
	defaults, ok := raw.(map[string]any)
	if !ok {
		return "has invalid adapterDefaults"
	}
	for k, marker := range defaults {
		if (k != "reasoningEffort" && k != "maxTokens") || marker != true {
			return "has invalid adapterDefaults"
		}
		if _, set := cfg[k]; !set {
			return "has invalid adapterDefaults"
		}
	}
	return ""
}

// messageShape is the harness's check of a message event's message; "" when
// it passes or the event carries no message. It reads the message's members
// raw and decodes only the small ones: content, a tool's output, can be long.
func messageShape(ev *Event) string {
	var expectedRole string
	switch ev.Type {
	case "user/message", "tool/result":
		expectedRole = "user"
	case "assistant/message":
		expectedRole = "assistant"
	default:
		return ""
	}
	m := rawMembers(messageText(ev))
	get := func(members map[string][]byte, k string) any { v, _ := rawValue(members[k]); return v }
	if m == nil || asString(get(m, "id")) == "" {
		return "lacks an identified message"
	}
	if get(m, "role") != expectedRole {
		return `message must have role "` + expectedRole + `"`
	}
	source, _ := get(m, "source").(map[string]any)
	if asString(source["kind"]) == "" {
		return "message has invalid source"
	}
	if rawKind(m["content"]) != '[' {
		return "message has invalid content"
	}
	switch ev.Type {
	case "assistant/message":
		if source["kind"] != "model" || !hasProviderModel(source) {
			return "message must have model source"
		}
	case "tool/result":
		callID := asString(source["callId"])
		if source["kind"] != "tool" || callID == "" {
			return "message must have tool source"
		}
		first, n := rawElements(m["content"], 1)
		var block map[string][]byte
		if n == 1 {
			block = rawMembers(first[0])
		}
		if block == nil || get(block, "type") != "tool-result" || rawKind(block["content"]) != '[' {
			return "message must contain one tool-result block"
		}
		if id, ok := get(block, "toolCallId").(string); !ok || id != callID {
			return "message has mismatched tool call ids"
		}
	}
	return ""
}

// messageText is the JSON text of the message an eligible event carries
// (S15), nil when there is none.
func messageText(ev *Event) []byte {
	if ev.fields == nil {
		if ev.Type == "user/message" {
			return ev.rawData
		}
		if ev.env.dataKeys&dataMessage == 0 {
			return nil
		}
		return ev.rawData[ev.env.msgStart:ev.env.msgEnd]
	}
	m := message(ev)
	if m == nil {
		return nil
	}
	b, _ := EncodeJSON(m)
	return b
}

// headerLoadCheck is the harness's header check for a stored v0 file (S108),
// as far as the specification's v0 shape agrees (S17: createdAt is required,
// delegationDepth is not; real shared logs keep a templated "{{cwd}}"): a
// createdAt that is a non-negative safe integer, as the harness's reader
// requires, with its message.
// seqValue with version 3 is exactly that check (-0 refused too).
func headerLoadCheck(m map[string]any) *Error {
	if _, ok := seqValue(m["createdAt"], 3); !ok {
		return &Error{Code: CodeInvalidLog, Rule: "S108", Message: "corrupt session log: first line is not a session header", Seq: -1}
	}
	return nil
}
