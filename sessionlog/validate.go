package sessionlog

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

type eventKind uint8

const (
	kindLogOnly eventKind = iota
	kindSkipped           // an ignorable unknown event (S14)
	kindAppend
	kindReplace
)

// Log is a validated, folded session log. Its methods never mutate it except
// Append, which is all-or-nothing (S22).
type Log struct {
	Header Header
	Events []*Event

	// Tail is how the bytes the log was read from end (zero for a log
	// built in memory).
	Tail Tail

	live       bool
	kinds      []eventKind
	nodes      []int         // the surface: seqs in fold order (S25)
	generation int           // replacement generation (S25)
	shadows    map[int][]int // replacement seq -> the nodes it shadowed, surface order
}

// Version is the header's format version.
func (l *Log) Version() int { return l.Header.Version }

// Len is the number of events, i.e. the seq of the next append.
func (l *Log) Len() int { return len(l.Events) }

// Surface returns a copy of the current node list: never nil, so an empty
// surface prints as [] (S102).
func (l *Log) Surface() []int { return append([]int{}, l.nodes...) }

// Generation counts the replacements folded so far.
func (l *Log) Generation() int { return l.generation }

// Shadows returns the nodes a replacement event shadowed when it was folded.
func (l *Log) Shadows(seq int) []int { return slices.Clone(l.shadows[seq]) }

func (l *Log) onSurface(seq int) bool { return slices.Contains(l.nodes, seq) }

func (l *Log) isAppend(seq int) bool {
	return seq >= 0 && seq < len(l.kinds) && l.kinds[seq] == kindAppend
}

// eligible lists the surface-eligible types by header version (S9).
func eligible(version int, typ string) bool {
	switch typ {
	case "user/message", "assistant/message", "tool/result":
		return true
	case "system/message":
		return version >= 3
	case "developer/message":
		return version >= 4
	}
	return false
}

// knownTypes are the log-only types the reader knows; from v3 anything else
// must be marked ignorable (S14). The list is the harness's own vocabulary as
// its logs show it.
var knownTypes = map[string]bool{
	"user/message": true, "assistant/message": true, "tool/result": true,
	"system/message": true, "developer/message": true,
	"turn/start": true, "turn/end": true, "step/start": true, "step/end": true,
	"request/header": true, "request/context": true, "tool/call": true,
	"agent/inbox/spliced": true, "assistant/chunk": true,
	"reasoning-chunks": true, "text-chunks": true, "tool-call-chunks": true,
	"compaction/start": true, "compaction/summary": true, "compaction/end": true,
	"session/end-seed": true, "session/title": true, "session/title-llm-request": true,
	"approval/policy": true, "approval/asked": true, "approval/decided": true,
	"permission/preset": true, "sandbox/mode": true, "subagent/descriptor": true,
	"tool/code-dispatch-start": true, "tool/code-dispatch": true, "todo/write": true,
	"tool-workflow/run-start": true, "tool-workflow/run-end": true,
	"tool-workflow/agent-start": true, "tool-workflow/agent-end": true,
	"goal/change": true, "llm/retry": true, "llm/retry-started": true,
}

func knownType(typ string) bool {
	if e, ok := intern([]byte(typ)); ok && e.known {
		return true
	}
	return strings.HasPrefix(typ, "hook/")
}

// step is the outcome of checking one event: how it folds.
type step struct {
	kind   eventKind
	si, ei int // surface positions of a replacement's endpoints
}

// ValidateCandidate checks ev as the next event (seq = Len()) without
// changing the log (S21, S22).
func (l *Log) ValidateCandidate(ev *Event) error {
	if _, err := l.check(ev); err != nil {
		return err
	}
	return nil
}

// Append validates ev as the next event and folds it in. On error the log is
// unchanged.
func (l *Log) Append(ev *Event) error {
	st, err := l.check(ev)
	if err != nil {
		return err
	}
	l.fold(ev, st)
	return nil
}

// fold takes a checked ev in as the next event.
func (l *Log) fold(ev *Event, st step) {
	seq := len(l.Events)
	ev.Seq = seq
	l.Events = append(l.Events, ev)
	l.kinds = append(l.kinds, st.kind)
	switch st.kind {
	case kindAppend:
		l.nodes = append(l.nodes, seq)
	case kindReplace:
		shadowed := slices.Clone(l.nodes[st.si : st.ei+1])
		l.shadows[seq] = shadowed
		l.nodes = slices.Replace(l.nodes, st.si, st.ei+1, seq)
		l.generation++
	}
}

// check runs the S21 sequence for ev at seq = Len().
func (l *Log) check(ev *Event) (step, *Error) {
	idx := len(l.Events)
	v := l.Header.Version
	f := &ev.env

	// 1. Contiguity (V1, S7, S8).
	if err := checkSeq(ev, idx, v); err != nil {
		return step{}, err
	}
	// The rest of S6's envelope: an epoch-milliseconds time and data. A v0
	// file had the harness's own envelope check at load (S108), and a live
	// v0 snapshot is the harness's (S14); the harness writes both members
	// into every event of every version, and only a snapshot import
	// (S103) may leave time out, which the reader fills in first.
	if v >= 1 {
		if err := checkEnvelope(f, idx); err != nil {
			return step{}, err
		}
	}

	typ := ev.Type
	if v >= 3 && !ev.knownType() {
		if f.ign == true {
			return step{kind: kindSkipped}, nil
		}
		if l.live {
			// The harness admitted it and knows more types than we do (S14).
			return step{kind: kindLogOnly}, nil
		}
		return step{}, invalid("V22", idx, "session event %q has an unknown type and is not marked ignorable", typ)
	}

	// 2. Eligibility and marker (V2–V6).
	so, hasSO := f.so, f.hasSO
	src, hasSrc := f.src, f.hasSrc
	if !eligible(v, typ) {
		if hasSO {
			return step{}, invalid("V2", idx, "session event %q is not surface-eligible and cannot carry surfaceOp", typ)
		}
		if hasSrc {
			return step{}, invalid("V3", idx, "session event %q is not surface-eligible and cannot carry sourceEventSeqs", typ)
		}
		return step{kind: kindLogOnly}, nil
	}
	if !hasSO {
		return step{}, invalid("V4", idx, "session event %q is surface-eligible and requires a surfaceOp marker", typ)
	}
	var start, end int
	replace := false
	switch op := so.(type) {
	case string:
		if op != "append" {
			return step{}, invalid("V5", idx, "session event %q carries an invalid surfaceOp", typ)
		}
	case map[string]any:
		var ok bool
		start, end, ok = replaceEndpoints(op, v)
		if !ok {
			return step{}, invalid("V6", idx, "session event %q carries an invalid replace surfaceOp", typ)
		}
		replace = true
	default:
		return step{}, invalid("V5", idx, "session event %q carries an invalid surfaceOp", typ)
	}

	// 3. V7 (v3+).
	if replace && v >= 3 && (start >= idx || end >= idx) {
		return step{}, invalid("V7", idx, "surface replace at seq %d: startSeq and endSeq must reference earlier events", idx)
	}

	// 4. Event-local sourceEventSeqs checks; in v0–v2 a replacement runs
	// them after the range lookup.
	var srcSeqs []int
	if v >= 3 || !replace {
		var err *Error
		if srcSeqs, err = checkSources(typ, src, hasSrc, idx, v); err != nil {
			return step{}, err
		}
	}
	if !replace {
		return step{kind: kindAppend}, nil
	}

	// 5. Replacement: range lookup (V14–V16).
	si := slices.Index(l.nodes, start)
	if si < 0 {
		return step{}, invalid("V14", idx, "surface replace: start seq %d not found in surface", start)
	}
	ei := slices.Index(l.nodes, end)
	if ei < 0 {
		return step{}, invalid("V15", idx, "surface replace: end seq %d not found in surface", end)
	}
	if si > ei {
		return step{}, invalid("V16", idx, "surface replace: start seq %d (index %d) is after end seq %d (index %d)", start, si, end, ei)
	}
	if v < 3 {
		var err *Error
		if srcSeqs, err = checkSources(typ, src, hasSrc, idx, v); err != nil {
			return step{}, err
		}
	}
	shadowed := l.nodes[si : ei+1]

	// Coverage (V17). A compaction checkpoint cites every node it shadows,
	// so look the citations up in a set once there are more than a few.
	var missing []string
	cited := func(s int) bool { return slices.Contains(srcSeqs, s) }
	if len(shadowed) > 8 && len(srcSeqs) > 8 {
		set := make(map[int]struct{}, len(srcSeqs))
		for _, n := range srcSeqs {
			set[n] = struct{}{}
		}
		cited = func(s int) bool { _, ok := set[s]; return ok }
	}
	for _, s := range shadowed {
		if !cited(s) {
			missing = append(missing, strconv.Itoa(s))
		}
	}
	if len(missing) > 0 {
		return step{}, invalid("V17", idx, "surface replace: sourceEventSeqs must include every shadowed surface node; missing %s", strings.Join(missing, ", "))
	}

	// tool/result rules (V18–V20, S12).
	if typ == "tool/result" {
		if len(shadowed) != 1 {
			return step{}, invalid("V18", idx, "tool/result surface replacement must rewrite exactly one current node")
		}
		target := l.Events[shadowed[0]]
		if target.Type != "tool/result" {
			return step{}, invalid("V19", idx, "tool/result surface replacement must target a current tool/result")
		}
		same := equalExceptContent(target.Data(), ev.Data())
		if v <= 3 {
			same = equalExceptResultContent(target.Data(), ev.Data())
		}
		if !same {
			return step{}, invalid("V20", idx, "tool/result surface replacement may change only content")
		}
	}

	// System head (V21, S13).
	if v >= 3 && si == 0 && l.Events[l.nodes[0]].Type == "system/message" {
		if typ != "system/message" || ei != 0 {
			return step{}, invalid("V21", idx, "surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node")
		}
	}
	return step{kind: kindReplace, si: si, ei: ei}, nil
}

// checkSeq is V1 (S7, S8): seq is present, a valid seq value and the
// event's index.
func checkSeq(ev *Event, idx, version int) *Error {
	s := ev.env.seq
	n, ok := 0, false
	if s.num != "" {
		n, ok = seqText(s.num, version)
	}
	if !ok || n != idx {
		return invalid("V1", idx, "session event seq %s is not contiguous; expected %d", render(s.value(), s.present), idx)
	}
	return nil
}

// checkEnvelope refuses an event without S6's time or data, in the
// harness's words for its own envelope check, and says which.
func checkEnvelope(f *envelope, idx int) *Error {
	why := ""
	if !f.epochTime() {
		got := "none"
		if str, isStr := f.time.other.(string); isStr {
			got = strconv.Quote(str)
		} else if f.time.present {
			got = render(f.time.value(), true)
		}
		why = "time must be epoch milliseconds (a safe integer), not " + got
	} else if !f.hasData {
		why = "it has no data"
	}
	if why == "" {
		return nil
	}
	return &Error{Code: CodeInvalidLog, Rule: "S6", Seq: idx, Message: "session event at seq " + strconv.Itoa(idx) + " has an invalid event envelope: " + why}
}

// replaceEndpoints checks a replace op's exact shape for the version's
// spelling (S10) and returns its endpoints.
func replaceEndpoints(op map[string]any, version int) (int, int, bool) {
	sk, ek := "start", "end"
	if version >= 3 {
		sk, ek = "startSeq", "endSeq"
	}
	if len(op) != 3 || op["op"] != "replace" {
		return 0, 0, false
	}
	rs, ok1 := op[sk]
	re, ok2 := op[ek]
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	s, ok1 := seqValue(rs, version)
	e, ok2 := seqValue(re, version)
	return s, e, ok1 && ok2
}

// checkSources runs V8–V13 and returns the cited seqs.
func checkSources(typ string, src any, present bool, idx, v int) ([]int, *Error) {
	if !present {
		return nil, nil
	}
	if v >= 3 && typ == "assistant/message" {
		return nil, invalid("V8", idx, "assistant/message embeds its source stream and cannot carry sourceEventSeqs")
	}
	arr, ok := src.([]any)
	if !ok {
		return nil, invalid("V9", idx, "sourceEventSeqs on event at seq %d must be an array when present", idx)
	}
	if len(arr) == 0 {
		if v >= 3 {
			return nil, invalid("V10", idx, "sourceEventSeqs must not be empty")
		}
		if typ != "assistant/message" {
			return nil, invalid("V10", idx, "sourceEventSeqs must not be empty except on assistant/message")
		}
	}
	seqs := make([]int, len(arr))
	for i, x := range arr {
		n, ok := seqValue(x, v)
		if !ok {
			return nil, invalid("V11", idx, "session event %q sourceEventSeqs must densely contain non-negative safe integers", typ)
		}
		seqs[i] = n
	}
	if hasDuplicate(seqs) {
		return nil, invalid("V12", idx, "sourceEventSeqs must not contain duplicates")
	}
	for _, n := range seqs {
		if n >= idx {
			return nil, invalid("V13", idx, "sourceEventSeqs must reference earlier events: %d >= current seq %d", n, idx)
		}
	}
	return seqs, nil
}

// equalExceptContent compares two tool/result data values ignoring
// message.content (V20).
func equalExceptContent(a, b any) bool {
	strip := func(d any) any {
		m, ok := d.(map[string]any)
		if !ok {
			return d
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = x
		}
		if msg, ok := m["message"].(map[string]any); ok {
			mc := make(map[string]any, len(msg))
			for k, x := range msg {
				if k != "content" {
					mc[k] = x
				}
			}
			out["message"] = mc
		}
		return out
	}
	return deepEqual(strip(a), strip(b))
}

// equalExceptResultContent is V20 where a tool result is a tool-result
// block (v0–v3, S16): like the harness, it compares the two data values with
// message.content reduced to its first block with that block's own content
// blanked, so toolCallId, isError, the block's type and extra keys, and
// removing the block all count as changes (issue 15, item 4). The
// reduction follows JavaScript's spread of content[0], whatever it holds.
func equalExceptResultContent(a, b any) bool {
	ra, okA := resultRest(a)
	rb, okB := resultRest(b)
	return okA && okB && deepEqual(ra, rb)
}

// resultRest is data with message.content replaced by
// [{...content[0], content: null}]; false where the harness's expression
// would throw (no message object, or content null or absent).
func resultRest(d any) (any, bool) {
	m, ok := d.(map[string]any)
	if !ok {
		return nil, false
	}
	msg, ok := m["message"].(map[string]any)
	if !ok {
		return nil, false
	}
	c, present := msg["content"]
	if !present || c == nil {
		return nil, false // content[0] of undefined or null throws
	}
	var first any // content[0]; nil stands for undefined
	switch t := c.(type) {
	case []any:
		if len(t) > 0 {
			first = t[0]
		}
	case string:
		if u := utf16Units(t); len(u) > 0 {
			first = u[0]
		}
	case map[string]any:
		first = t["0"]
	}
	block := map[string]any{}
	switch t := first.(type) {
	case map[string]any:
		for k, v := range t {
			block[k] = v
		}
	case []any:
		for i, v := range t {
			block[strconv.Itoa(i)] = v
		}
	case string:
		for i, u := range utf16Units(t) {
			block[strconv.Itoa(i)] = u
		}
	}
	block["content"] = nil
	rest := make(map[string]any, len(m))
	for k, v := range m {
		rest[k] = v
	}
	mc := make(map[string]any, len(msg))
	for k, v := range msg {
		mc[k] = v
	}
	mc["content"] = []any{block}
	rest["message"] = mc
	return rest, true
}

// utf16Units splits s into JavaScript string elements (UTF-16 code units),
// each as a one-unit string. A surrogate, which Go text cannot hold alone,
// gets a private spelling: the results are only compared with each other.
func utf16Units(s string) []string {
	var out []string
	for _, u := range utf16.Encode([]rune(s)) {
		if utf16.IsSurrogate(rune(u)) {
			out = append(out, "\x00"+strconv.Itoa(int(u)))
			continue
		}
		out = append(out, string(rune(u)))
	}
	return out
}

func hasDuplicate(seqs []int) bool {
	if len(seqs) <= 16 {
		for i, n := range seqs {
			if slices.Contains(seqs[:i], n) {
				return true
			}
		}
		return false
	}
	seen := make(map[int]struct{}, len(seqs))
	for _, n := range seqs {
		if _, dup := seen[n]; dup {
			return true
		}
		seen[n] = struct{}{}
	}
	return false
}
