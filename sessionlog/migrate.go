package sessionlog

import (
	"encoding/json"
	"strconv"
)

// Reading older v0 shapes (issue 15, item 2; rule S107). The harness
// (0.1.1) upgrades several pre-release shapes of format version 0 in memory
// when it loads a stored log, and keeps the file as it is:
//
//   - pre-identity messages: a user/message without id/role, an
//     assistant/message with top-level content and provenance, a tool/result
//     with top-level callId/content/isError; migrated messages get the id
//     legacy-message:<sessionId>:<seq> (a tool/result replacement inherits
//     the id of the result it replaces);
//   - steering/message events become user/message;
//   - a turn/start trigger is dropped, and old turn/end reasons take their
//     current form.
//
// tavern-core migrates the same shapes the same way, so the fold, the
// transcript and every plan see exactly the messages the harness derives
// (never a null message, never a plan against a shape nobody derived). An
// edit of a migrated message copies the migrated data, id included, as the
// harness would. In v1–v4 logs these shapes are refused instead (S107):
// those generations never wrote them, and no harness we can read migrates
// them there.

func legacyMessageID(session string, seq int) string {
	return "legacy-message:" + session + ":" + strconv.Itoa(seq)
}

func malformedLegacy(session, what string, seq int) *Error {
	return &Error{Code: CodeInvalidLog, Rule: "S107", Seq: seq,
		Message: "session " + strconv.Quote(session) + " contains malformed pre-react-loop " + what + " at seq " + strconv.Itoa(seq)}
}

// hasOnlyKeys: m holds every required key and no key outside required and
// optional.
func hasOnlyKeys(m map[string]any, required []string, optional ...string) bool {
	for k := range m {
		known := false
		for _, r := range required {
			known = known || k == r
		}
		for _, o := range optional {
			known = known || k == o
		}
		if !known {
			return false
		}
	}
	for _, r := range required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	return true
}

// record is the harness's asRecord: an object, not an array.
func record(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// mayNeedMigration reports, from the envelope alone, whether ev is of a type
// a v0 migration can touch; the common event skips the data decode.
func mayNeedMigration(typ string) bool {
	switch typ {
	case "user/message", "assistant/message", "tool/result", "steering/message", "turn/start", "turn/end":
		return true
	}
	return false
}

// mayMigrate decides from the members the reader noted in data's top
// level (read events) whether a migration below could apply, so the usual
// current-shape event is not decoded for it. Generic events say yes.
func mayMigrate(ev *Event) bool {
	if ev.fields != nil {
		return true
	}
	k := ev.env.dataKeys
	if ev.rawData == nil || k&dataNotObject != 0 {
		return ev.Type == "steering/message" // refused as malformed below
	}
	has := func(bits uint16) bool { return k&bits == bits }
	switch ev.Type {
	case "turn/start":
		return has(dataTrigger)
	case "user/message":
		return k&(dataID|dataRole|dataMessage) == 0 && has(dataContent|dataSource)
	case "assistant/message":
		return k&dataMessage == 0 && has(dataContent|dataProvenance)
	case "tool/result":
		return k&dataMessage == 0 && has(dataCallID|dataContent|dataIsError)
	}
	return true // turn/end and steering/message are read in full
}

// migrateV0 upgrades one event of a v0 log at seq idx; it returns ev itself
// when nothing changes.
func (l *Log) migrateV0(ev *Event, idx int) (*Event, *Error) {
	if !mayNeedMigration(ev.Type) || !mayMigrate(ev) {
		return ev, nil
	}
	session := l.Header.ID()
	data, isRecord := record(ev.Data())
	with := func(typ string, d map[string]any) *Event {
		m := cloneValue(ev.Fields()).(map[string]any)
		m["type"], m["data"] = typ, d
		return newEvent(m, ev.Seq)
	}
	switch ev.Type {
	case "turn/start":
		if !isRecord {
			return ev, nil
		}
		if _, has := data["trigger"]; !has {
			return ev, nil
		}
		turn, ok := safeInt(data["turn"])
		trigger, isTrigger := record(data["trigger"])
		if !ok || turn < 1 || !hasOnlyKeys(data, []string{"turn", "trigger"}) || !isTrigger || asString(trigger["kind"]) == "" {
			return nil, malformedLegacy(session, "turn/start", idx)
		}
		return with(ev.Type, map[string]any{"turn": data["turn"]}), nil
	case "turn/end":
		if !isRecord {
			return ev, nil
		}
		reason, upgraded, err := migrateTurnEnd(data)
		if err {
			return nil, malformedLegacy(session, "turn/end", idx)
		}
		if !upgraded {
			return ev, nil
		}
		d := cloneValue(data).(map[string]any)
		d["reason"] = reason
		return with(ev.Type, d), nil
	case "steering/message":
		if !isRecord {
			return nil, malformedLegacy(session, "steering/message", idx)
		}
		_, turnOK := safeInt(data["turn"])
		if wrapped, ok := record(data["message"]); ok && turnOK && hasOnlyKeys(data, []string{"turn", "message"}) {
			return with("user/message", cloneValue(wrapped).(map[string]any)), nil
		}
		if !turnOK || !hasOnlyKeys(data, []string{"turn", "content", "source"}) {
			return nil, malformedLegacy(session, "steering/message", idx)
		}
		return with("user/message", map[string]any{
			"content": data["content"], "source": data["source"],
			"id": legacyMessageID(session, idx), "role": "user",
		}), nil
	}
	if !isRecord {
		return ev, nil
	}
	_, hasID := data["id"]
	_, hasRole := data["role"]
	_, hasMessage := data["message"]
	_, hasContent := data["content"]
	switch ev.Type {
	case "user/message":
		_, hasSource := data["source"]
		if hasID || hasRole || hasMessage || !hasContent || !hasSource {
			return ev, nil
		}
		d := cloneValue(data).(map[string]any)
		d["id"], d["role"] = legacyMessageID(session, idx), "user"
		return with(ev.Type, d), nil
	case "assistant/message":
		provenance, hasProvenance := data["provenance"]
		if hasMessage || !hasContent || !hasProvenance {
			return ev, nil
		}
		d := cloneValue(data).(map[string]any)
		delete(d, "content")
		delete(d, "provenance")
		source := map[string]any{}
		if p, ok := record(provenance); ok {
			for k, v := range p {
				source[k] = cloneValue(v)
			}
		}
		source["kind"] = "model"
		d["message"] = map[string]any{
			"id": legacyMessageID(session, idx), "role": "assistant",
			"content": cloneValue(data["content"]), "source": source,
		}
		return with(ev.Type, d), nil
	case "tool/result":
		callID, hasCall := data["callId"]
		isError, hasIsError := data["isError"]
		if hasMessage || !hasCall || !hasContent || !hasIsError {
			return ev, nil
		}
		d := cloneValue(data).(map[string]any)
		delete(d, "callId")
		delete(d, "content")
		delete(d, "isError")
		msg := map[string]any{
			"role": "user",
			"content": []any{map[string]any{
				"type": "tool-result", "toolCallId": callID, "content": cloneValue(data["content"]), "isError": isError,
			}},
			"source": map[string]any{"kind": "tool", "callId": callID},
		}
		// A replacement inherits the id of the result it replaces.
		if start, ok := legacyReplaceStart(ev); ok {
			if start >= 0 && start < len(l.Events) {
				if id, has := message(l.Events[start])["id"]; has {
					msg["id"] = id
				}
			}
		} else {
			msg["id"] = legacyMessageID(session, idx)
		}
		d["message"] = msg
		return with(ev.Type, d), nil
	}
	return ev, nil
}

// legacyReplaceStart is the harness's replacementStart: the start of a
// {op:'replace', start} surfaceOp whose start is a number.
func legacyReplaceStart(ev *Event) (int, bool) {
	op, ok := record(ev.env.so)
	if !ok || op["op"] != "replace" {
		return 0, false
	}
	n, isNum := op["start"].(json.Number)
	if !isNum {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f < 0 || f != float64(int(f)) {
		return -1, true // no event carries that seq: the id stays absent
	}
	return int(f), true
}

// migrateTurnEnd upgrades an old turn/end reason. It answers the new reason
// and whether one was made, or malformed.
func migrateTurnEnd(data map[string]any) (reason map[string]any, upgraded, malformed bool) {
	r, isRecord := record(data["reason"])
	turn, ok := safeInt(data["turn"])
	kind, kindOK := r["kind"].(string)
	if !ok || turn < 1 || !hasOnlyKeys(data, []string{"turn", "reason"}) || !isRecord || !kindOK {
		return nil, false, true
	}
	only := func(required []string, optional ...string) bool { return hasOnlyKeys(r, required, optional...) }
	switch kind {
	case "completed", "blocked", "max-tokens", "interrupted":
		return nil, false, !only([]string{"kind"})
	case "aborted":
		if _, has := r["reason"]; has {
			return nil, false, false
		}
		if !only([]string{"kind"}) {
			return nil, false, true
		}
		return map[string]any{"kind": "aborted", "reason": map[string]any{"kind": "legacy"}}, true, false
	case "disposed":
		if !only([]string{"kind"}) {
			return nil, false, true
		}
		return map[string]any{"kind": "aborted", "reason": map[string]any{"kind": "disposed"}}, true, false
	case "error":
		if _, has := r["error"]; has {
			return nil, false, false
		}
		if step, ok := safeInt(r["step"]); !ok || step < 0 {
			return nil, false, true
		}
		if failure, ok := record(r["failure"]); ok && only([]string{"kind", "step", "failure"}) &&
			hasOnlyKeys(failure, []string{"message", "code"}, "status", "providerRetryAfterMs", "requestId") &&
			isString(failure["message"]) && isString(failure["code"]) &&
			optional(failure, "status", isNumber) && optional(failure, "providerRetryAfterMs", isNumber) &&
			optional(failure, "requestId", isString) {
			return map[string]any{"kind": "error", "error": cloneValue(failure)}, true, false
		}
		code, hasCode := r["code"]
		keys := []string{"kind", "step", "message"}
		if hasCode {
			keys = append(keys, "code")
		}
		if !only(keys) || !isString(r["message"]) || (hasCode && !isString(code)) {
			return nil, false, true
		}
		if !hasCode {
			code = "UNKNOWN"
		}
		return map[string]any{"kind": "error", "error": map[string]any{"message": r["message"], "code": code}}, true, false
	}
	return nil, false, false
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isNumber(v any) bool { _, ok := v.(json.Number); return ok }

// optional: m[key] is absent or passes test.
func optional(m map[string]any, key string, test func(any) bool) bool {
	v, has := m[key]
	return !has || test(v)
}

// flattenedShape reports a pre-identity model reply or tool result: a
// shape that carries no message for the fold to derive (the harness's
// needsLegacyPrefix test, less the user/message case, whose data is still
// the message).
func flattenedShape(ev *Event) bool {
	if ev.Type != "assistant/message" && ev.Type != "tool/result" {
		return false
	}
	if ev.fields == nil {
		// Read from a line: the reader noted data's top-level members.
		k := ev.env.dataKeys
		if ev.rawData == nil || k&(dataNotObject|dataMessage) != 0 {
			return false
		}
		if ev.Type == "tool/result" {
			return k&dataCallID != 0
		}
		return k&dataContent != 0
	}
	data, ok := record(ev.Data())
	if !ok {
		return false
	}
	_, hasMessage := data["message"]
	_, hasContent := data["content"]
	_, hasCall := data["callId"]
	if ev.Type == "assistant/message" {
		return !hasMessage && hasContent
	}
	return !hasMessage && hasCall
}

func refuseFlattened(ev *Event, idx, version int) *Error {
	if !flattenedShape(ev) {
		return nil
	}
	return &Error{Code: CodeInvalidLog, Rule: "S107", Seq: idx, Message: "session event " + strconv.Quote(ev.Type) + " at seq " + strconv.Itoa(idx) +
		" is in the older flattened message shape, which only format version 0 logs may hold (there it is migrated as the harness migrates it); this log is version " + strconv.Itoa(version)}
}
