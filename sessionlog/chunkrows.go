package sessionlog

import (
	"encoding/json"
	"math"
	"strconv"
)

// Packed chunk rows (issue 15, item 1). The harness's JSONL writer stores
// each run of three or more consecutive same-block streaming deltas as one
// storage row — text-chunks, reasoning-chunks or tool-call-chunks — whose
// seq0/time0 anchor the first member and whose dt lists the time gaps, and
// its reader always expands a row back into the assistant/chunk events it
// stands for. A row is storage, not an event: it never reaches the
// validator, and a file means the same whichever layout wrote it. The
// checks and the messages are the harness's own (chunk-rows.ts).

func isChunkRow(typ string) bool {
	switch typ {
	case "text-chunks", "reasoning-chunks", "tool-call-chunks":
		return true
	}
	return false
}

func malformedRow(tag string, seq int, why string) *Error {
	return &Error{Code: CodeInvalidLog, Rule: "S106", Seq: seq, Message: "malformed " + tag + " storage row: " + why}
}

// expandChunkRow validates a row read at log position pos and returns its
// member events. A stored snapshot (importSnapshot) has no seq0/time0: the
// first member then takes seq = pos and the members' times start at 0.
func expandChunkRow(row *Event, pos int, importSnapshot bool) ([]*Event, *Error) {
	tag := row.Type
	fail := func(why string) ([]*Event, *Error) { return nil, malformedRow(tag, pos, why) }
	m := row.Fields()
	keys := []string{"type", "seq0", "time0", "data"}
	if importSnapshot {
		if _, has := m["seq0"]; !has {
			m["seq0"] = json.Number(itoa(pos))
		}
		if _, has := m["time0"]; !has {
			m["time0"] = json.Number("0")
		}
	}
	if !exactKeys(m, keys...) {
		return fail("envelope must be exactly {type, seq0, time0, data}")
	}
	seq0, ok := safeInt(m["seq0"])
	if !ok || seq0 < 0 {
		return fail("seq0 must be a non-negative safe integer")
	}
	time0, ok := safeInt(m["time0"])
	if !ok {
		return fail("time0 must be a safe integer")
	}
	d, ok := m["data"].(map[string]any)
	if !ok {
		return fail("data must be an object")
	}
	payloadKey := "texts"
	if tag == "tool-call-chunks" {
		_, withName := d["name"]
		if !(withName && exactKeys(d, "turn", "step", "index", "id", "name", "dt", "args")) && !exactKeys(d, "turn", "step", "index", "id", "dt", "args") {
			return fail("data must be exactly {turn, step, index, id, name?, dt, args}")
		}
		_, idOK := d["id"].(string)
		_, nameOK := d["name"].(string)
		if !idOK || (withName && !nameOK) {
			return fail("id (and name when present) must be strings")
		}
		payloadKey = "args"
	} else if !exactKeys(d, "turn", "step", "index", "dt", "texts") {
		return fail("data must be exactly {turn, step, index, dt, texts}")
	}
	for _, k := range []string{"turn", "step", "index"} {
		if _, isNum := d[k].(json.Number); !isNum {
			return fail("turn/step/index must be numbers")
		}
	}
	payload, ok := d[payloadKey].([]any)
	if ok && len(payload) > 0 {
		for _, x := range payload {
			if _, isStr := x.(string); !isStr {
				ok = false
			}
		}
	}
	if !ok || len(payload) == 0 {
		return fail(payloadKey + " must be a non-empty string array")
	}
	dt, ok := d["dt"].([]any)
	gaps := make([]int64, len(dt))
	for i, x := range dt {
		g, isInt := safeInt(x)
		ok = ok && isInt
		gaps[i] = g
	}
	if !ok {
		return fail("dt must be an array of safe integers")
	}
	if len(dt) != len(payload)-1 {
		return fail("dt length " + strconv.Itoa(len(dt)) + " does not match " + strconv.Itoa(len(payload)) + " members")
	}
	if seq0+int64(len(payload))-1 > maxSafeInteger {
		return fail("member seqs must stay safe integers")
	}
	times := make([]int64, len(payload))
	times[0] = time0
	for k, g := range gaps {
		t := times[k] + g
		if t > maxSafeInteger || t < -maxSafeInteger {
			return fail("member times must stay safe integers")
		}
		times[k+1] = t
	}

	out := make([]*Event, len(payload))
	for k, x := range payload {
		var chunk map[string]any
		switch tag {
		case "text-chunks":
			chunk = map[string]any{"type": "text-delta", "index": d["index"], "text": x}
		case "reasoning-chunks":
			chunk = map[string]any{"type": "reasoning-delta", "index": d["index"], "text": x}
		default:
			chunk = map[string]any{"type": "tool-call-delta", "index": d["index"], "id": d["id"], "argumentsDelta": x}
			if name, has := d["name"]; has {
				chunk["name"] = name
			}
		}
		out[k] = newEvent(map[string]any{
			"type": "assistant/chunk",
			"seq":  json.Number(strconv.FormatInt(seq0+int64(k), 10)),
			"time": json.Number(strconv.FormatInt(times[k], 10)),
			"data": map[string]any{"turn": d["turn"], "step": d["step"], "chunk": chunk},
		}, pos+k)
	}
	return out, nil
}

// exactKeys: m has every key in keys and nothing else.
func exactKeys(m map[string]any, keys ...string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// safeInt is JavaScript's Number.isSafeInteger over a JSON value: a number
// with an integer value of magnitude at most 2^53−1.
func safeInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if k, ok := smallUint(string(n)); ok {
		return int64(k), true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
		return 0, false
	}
	return int64(f), true
}
