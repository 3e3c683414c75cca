package sessionlog

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The lean envelope reader. A log line is mostly its data member, which the
// validator and the fold never look at for log-only events (S21) and only
// occasionally for surface-eligible ones. parseEnvelope reads the envelope's
// other members into an envelope struct — no map, and no allocation for the
// common members — and only checks the syntax of data, keeping its bytes;
// Event.Data decodes them on first use.
//
// Strings the reader keeps (member values, numbers' text) alias the line:
// the reader's callers hand it bytes nothing else will modify.
//
// The reader is deliberately conservative: it accepts a subset of what
// encoding/json accepts (plain JSON whitespace, no more than maxLeanDepth
// nesting), and on anything else the caller falls back to decodeValue, which
// then decides — and words any error — exactly as before.

const maxLeanDepth = 1000

// The words every envelope repeats (member names, types, surfaceOp words)
// are interned, so reading them allocates nothing. The table is a small
// open-addressing hash over the bytes (FNV-1a): under WebAssembly Go's map
// hashes strings without hardware help, and this lookup runs for every
// member name and every type of every line.
type internEntry struct {
	word  string
	boxed any  // word as an interface value, for the generic tree
	known bool // a type in knownTypes (S14)
}

var internTable = func() []internEntry {
	words := []string{"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs",
		"ignorable", "op", "append", "replace", "startSeq", "endSeq", "start", "end"}
	for t := range knownTypes {
		words = append(words, t)
	}
	for t := range harnessV0Types {
		words = append(words, t)
	}
	size := 1
	for size < 4*len(words) {
		size <<= 1
	}
	table := make([]internEntry, size)
	for _, w := range words {
		i := fnv([]byte(w)) & uint32(size-1)
		for table[i].word != "" && table[i].word != w {
			i = (i + 1) & uint32(size-1)
		}
		table[i] = internEntry{word: w, boxed: w, known: knownTypes[w] || strings.HasPrefix(w, "hook/")}
	}
	return table
}()

func fnv(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// intern finds b among the interned words.
func intern(b []byte) (*internEntry, bool) {
	mask := uint32(len(internTable) - 1)
	for i := fnv(b) & mask; ; i = (i + 1) & mask {
		e := &internTable[i]
		if e.word == "" {
			return nil, false
		}
		if e.word == string(b) {
			return e, true
		}
	}
}

// scalar is an envelope member the validator reads as a number (seq,
// time): its number text, or the value itself when it is not a number.
type scalar struct {
	present bool
	num     string // the JSON number's text ("" when not a number)
	other   any    // the value when present and not a number
}

func scalarOf(v any, present bool) scalar {
	if !present {
		return scalar{}
	}
	if n, ok := v.(json.Number); ok {
		return scalar{present: true, num: string(n)}
	}
	return scalar{present: true, other: v}
}

// value is the member as a generic JSON value.
func (s scalar) value() any {
	if s.num != "" {
		return json.Number(s.num)
	}
	return s.other
}

// envelope holds the members of an event the validator and the load checks
// read (S6). Members it has no slot for are listed in extra.
type envelope struct {
	typ   any // the type member (absent: nil with hasType false)
	seq   scalar
	time  scalar
	so    any      // surfaceOp
	src   any      // sourceEventSeqs
	ign   any      // ignorable
	extra []string // other member names, in order of first appearance

	// Read from a line: the offsets of data's message member's value
	// within data, and which members data's top level holds (dataMessage …).
	msgStart, msgEnd int
	dataKeys         uint16

	hasType, hasData, hasSO, hasSrc, hasIgn bool
	known                                   uint8 // typeKnown / typeUnknown when the reader interned the type
}

// epochTime reports whether time is epoch milliseconds as the harness
// reads them (S6): a safe integer.
func (e *envelope) epochTime() bool {
	_, ok := safeInt(e.time.value())
	return ok
}

// envelopeOf reads the envelope of a generic event object.
func envelopeOf(m map[string]any) envelope {
	var e envelope
	for k, v := range m {
		e.set(k, v)
	}
	return e
}

func (e *envelope) set(key string, v any) {
	switch key {
	case "type":
		e.typ, e.hasType = v, true
	case "seq":
		e.seq = scalarOf(v, true)
	case "time":
		e.time = scalarOf(v, true)
	case "data":
		e.hasData = true
	case "surfaceOp":
		e.so, e.hasSO = v, true
	case "sourceEventSeqs":
		e.src, e.hasSrc = v, true
	case "ignorable":
		e.ign, e.hasIgn = v, true
	default:
		for _, x := range e.extra {
			if x == key {
				return
			}
		}
		e.extra = append(e.extra, key)
	}
}

type leanParser struct {
	b []byte
	i int
}

// unsafeString aliases b as a string; b must never change afterwards.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseEnvelope reads one envelope line: its members other than data, data's
// raw bytes (nil when absent) and ok; ok is false when the line is not an
// object the lean reader is sure about. A member that appears twice keeps
// its last value, as encoding/json and JSON.parse do.
func parseEnvelope(line []byte) (env envelope, rawData []byte, ok bool) {
	rawData, n, ok := parseEnvelopePrefix(line, &env)
	p := leanParser{b: line, i: n}
	return env, rawData, ok && p.end()
}

// parseEnvelopePrefix reads an envelope object at the start of b and
// returns, with it, the length of b it took.
func parseEnvelopePrefix(line []byte, env *envelope) (rawData []byte, n int, ok bool) {
	*env = envelope{}
	p := leanParser{b: line}
	p.ws()
	if !p.eat('{') {
		return nil, 0, false
	}
	p.ws()
	if p.eat('}') {
		return nil, p.i, true
	}
	for {
		p.ws()
		key, ok := p.memberName()
		if !ok {
			return nil, 0, false
		}
		p.ws()
		if !p.eat(':') {
			return nil, 0, false
		}
		p.ws()
		switch key {
		case "data":
			start := p.i
			end, ok := skipValue(p.b, p.i, maxLeanDepth, env)
			if !ok {
				return nil, 0, false
			}
			p.i = end
			rawData = line[start:p.i]
			env.hasData = true
		case "type":
			v, known, ok := p.typeValue()
			if !ok {
				return nil, 0, false
			}
			env.typ, env.hasType, env.known = v, true, known
		case "seq", "time":
			var s scalar
			if start := p.i; p.i < len(p.b) && (p.b[p.i] == '-' || '0' <= p.b[p.i] && p.b[p.i] <= '9') {
				j := p.i
				for j < len(p.b) && '0' <= p.b[j] && p.b[j] <= '9' {
					j++
				}
				if j > p.i && (p.b[p.i] != '0' || j == p.i+1) && (j == len(p.b) || (p.b[j] != '.' && p.b[j] != 'e' && p.b[j] != 'E')) {
					p.i = j // a plain integer, the usual spelling
				} else if !p.numEnd() {
					return nil, 0, false
				}
				s = scalar{present: true, num: unsafeString(line[start:p.i])}
			} else {
				v, ok := p.value(1)
				if !ok {
					return nil, 0, false
				}
				s = scalarOf(v, true)
			}
			if key == "seq" {
				env.seq = s
			} else {
				env.time = s
			}
		case "surfaceOp":
			if len(p.b)-p.i >= 8 && string(p.b[p.i:p.i+8]) == `"append"` {
				p.i += 8
				env.so, env.hasSO = appendOp, true
				break
			}
			v, ok := p.value(1)
			if !ok {
				return nil, 0, false
			}
			env.set(key, v)
		default:
			v, ok := p.value(1)
			if !ok {
				return nil, 0, false
			}
			env.set(key, v)
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			break
		}
		return nil, 0, false
	}
	return rawData, p.i, true
}

// appendOp is the surfaceOp "append", boxed once.
var appendOp any = "append"

// memberName reads an envelope member's name. The envelope's own names
// come back as constants without a map lookup; any other name, or one
// spelled with escapes, goes through str.
func (p *leanParser) memberName() (string, bool) {
	b, i := p.b, p.i
	if i+2 < len(b) && b[i] == '"' {
		rest := b[i+1:]
		name := ""
		switch rest[0] {
		case 't':
			if isWord(rest, "type") {
				name = "type"
			} else if isWord(rest, "time") {
				name = "time"
			}
		case 's':
			if isWord(rest, "seq") {
				name = "seq"
			} else if isWord(rest, "surfaceOp") {
				name = "surfaceOp"
			} else if isWord(rest, "sourceEventSeqs") {
				name = "sourceEventSeqs"
			}
		case 'd':
			if isWord(rest, "data") {
				name = "data"
			}
		case 'i':
			if isWord(rest, "ignorable") {
				name = "ignorable"
			}
		}
		if name != "" {
			p.i = i + 2 + len(name)
			return name, true
		}
	}
	return p.str()
}

// isWord: rest starts with w and its closing quote.
func isWord(rest []byte, w string) bool {
	return len(rest) > len(w) && rest[len(w)] == '"' && string(rest[:len(w)]) == w
}

// typeValue reads the type member: a known type as its interned string,
// with whether it is one of knownTypes (0 when the reader cannot say).
func (p *leanParser) typeValue() (any, uint8, bool) {
	if end, plain, ok := p.strEnd(); ok && plain {
		if e, ok := intern(p.b[p.i+1 : end-1]); ok {
			p.i = end
			known := typeUnknown
			if e.known {
				known = typeKnown
			}
			return e.boxed, known, true
		}
	}
	v, ok := p.value(1)
	return v, 0, ok
}

const (
	typeKnown uint8 = 1 + iota
	typeUnknown
)

// Top-level members of data the read-time shape tests ask about
// (migrate.go), noted while data is skipped so they cost no second scan.
const (
	dataMessage uint16 = 1 << iota
	dataContent
	dataCallID
	dataID
	dataRole
	dataSource
	dataProvenance
	dataIsError
	dataTrigger
	dataNotObject // data is not an object
)

func dataKeyBit(name []byte) uint16 {
	switch string(name) { // no allocation: the compiler compares in place
	case "message":
		return dataMessage
	case "content":
		return dataContent
	case "callId":
		return dataCallID
	case "id":
		return dataID
	case "role":
		return dataRole
	case "source":
		return dataSource
	case "provenance":
		return dataProvenance
	case "isError":
		return dataIsError
	case "trigger":
		return dataTrigger
	}
	return 0
}

func (p *leanParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

func (p *leanParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *leanParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *leanParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// strEnd scans a string starting at its opening quote and returns the index
// after the closing quote and whether it holds an escape or a non-ASCII byte.
// It reads eight bytes at a time until a byte needs a look (a quote, a
// backslash, a control byte, a non-ASCII byte).
func (p *leanParser) strEnd() (end int, plain, ok bool) {
	b, i := p.b, p.i
	if i >= len(b) || b[i] != '"' {
		return 0, false, false
	}
	i++
	plain = true
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if m := stopBytes(x) | x&highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			plain = false
			n, ok := escapeLen(b, i)
			if !ok {
				return 0, false, false
			}
			i += n
		case c >= 0x80:
			plain = false
			i++
		default:
			i++ // in the last few bytes, which the word loop leaves
		}
	}
}

// escapeLen checks the escape sequence starting at the backslash b[i] and
// returns its length.
func escapeLen(b []byte, i int) (int, bool) {
	if i+1 >= len(b) {
		return 0, false
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
		if len(b)-i < 6 {
			return 0, false
		}
		for _, h := range b[i+2 : i+6] {
			if !isHex(h) {
				return 0, false
			}
		}
		return 6, true
	}
	return 0, false
}

// Word-at-a-time string scanning: eight bytes per step, looking for the
// bytes that end the fast path (a quote, a backslash, a control byte). The
// lowest flagged byte of each test is exact, which is all the scanners use.
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

func stopBytes(x uint64) uint64 {
	q := x ^ (lows * '"')
	s := x ^ (lows * '\\')
	return ((q - lows) &^ q & highs) | ((s - lows) &^ s & highs) | ((x - lows*0x20) &^ x & highs)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (p *leanParser) str() (string, bool) {
	start := p.i
	end, plain, ok := p.strEnd()
	if !ok {
		return "", false
	}
	p.i = end
	tok := p.b[start:end]
	if plain {
		if e, ok := intern(tok[1 : len(tok)-1]); ok {
			return e.word, true
		}
	}
	if plain || (utf8.Valid(tok) && noBackslash(tok)) {
		return unsafeString(tok[1 : len(tok)-1]), true
	}
	// Escapes and invalid UTF-8: let encoding/json unquote, so the text is
	// exactly what it would have produced.
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", false
	}
	return s, true
}

func noBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return false
		}
	}
	return true
}

func (p *leanParser) numEnd() bool {
	end, ok := numberEnd(p.b, p.i)
	if ok {
		p.i = end
	}
	return ok
}

// value decodes one value into the generic tree (UseNumber shape).
func (p *leanParser) value(depth int) (any, bool) {
	if p.i >= len(p.b) || depth > maxLeanDepth {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		m := map[string]any{}
		p.ws()
		if p.eat('}') {
			return m, true
		}
		for {
			p.ws()
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.ws()
			if !p.eat(':') {
				return nil, false
			}
			p.ws()
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			p.ws()
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				return m, true
			}
			return nil, false
		}
	case c == '[':
		p.i++
		s := []any{}
		p.ws()
		if p.eat(']') {
			return s, true
		}
		for {
			p.ws()
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			s = append(s, v)
			p.ws()
			if p.eat(',') {
				continue
			}
			if p.eat(']') {
				return s, true
			}
			return nil, false
		}
	case c == '"':
		if end, plain, ok := p.strEnd(); ok && plain {
			if e, ok := intern(p.b[p.i+1 : end-1]); ok {
				p.i = end
				return e.boxed, true
			}
		}
		return p.str()
	case c == 't':
		return true, p.lit("true")
	case c == 'f':
		return false, p.lit("false")
	case c == 'n':
		return nil, p.lit("null")
	default:
		start := p.i
		if !p.numEnd() {
			return nil, false
		}
		return json.Number(unsafeString(p.b[start:p.i])), true
	}
}

// skip checks the syntax of one value and moves past it without building it.
func (p *leanParser) skip(depth int) bool {
	end, ok := skipValue(p.b, p.i, maxLeanDepth+1-depth, nil)
	if ok {
		p.i = end
	}
	return ok
}

// skipValue checks the syntax of the value at b[i] (after whitespace) and
// returns the index after it; containers may nest at most maxDepth deep. It
// is one loop over an explicit stack of open containers rather than a
// recursion: calls are dear under WebAssembly, and this loop sees every byte
// of every data member. With note, the value is an event's data: note
// records which of the members the read-time shape tests ask about its top
// level holds (dataMessage …) and where its message member's value lies, so
// they cost no second scan.
func skipValue(b []byte, i, maxDepth int, note *envelope) (int, bool) {
	var buf [32]byte
	stack := buf[:0] // the closing byte of each open container
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	base := i
	var member uint16 // the data member whose value is being read
	memberStart := 0
	if note != nil {
		// A repeated data member: the last one counts.
		note.dataKeys, note.msgStart, note.msgEnd = 0, 0, 0
		if i >= len(b) || b[i] != '{' {
			note.dataKeys = dataNotObject
			note = nil
		}
	}
	key := false // the next token is an object member's name
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		c := b[i]
		if key && c != '"' {
			return 0, false
		}
		if note != nil && len(stack) == 1 && !key {
			memberStart = i
		}
		switch c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return 0, false
			}
			i++
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			if i < len(b) && b[i] == closer {
				i++
				break // an empty container is a complete value
			}
			stack = append(stack, closer)
			key = c == '{'
			continue
		case '"':
			// The string, eight bytes at a time until a byte needs a look
			// (kept inline: this runs for every name and string value).
			start := i
			escaped := false
			i++
			for {
				for i+8 <= len(b) {
					if m := stopBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
						i += bits.TrailingZeros64(m) >> 3
						break
					}
					i += 8
				}
				for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
					i++
				}
				if i >= len(b) || b[i] < 0x20 {
					return 0, false
				}
				if b[i] == '"' {
					i++
					break
				}
				n, ok := escapeLen(b, i)
				if !ok {
					return 0, false
				}
				i += n
				escaped = true
			}
			if key {
				if note != nil && len(stack) == 1 {
					if member = dataKeyBit(b[start+1 : i-1]); escaped {
						member = memberBit(b[start:i])
					}
				}
				for i < len(b) && isSpace(b[i]) {
					i++
				}
				if i >= len(b) || b[i] != ':' {
					return 0, false
				}
				i++
				key = false
				continue
			}
		case 't':
			if len(b)-i < 4 || string(b[i:i+4]) != "true" {
				return 0, false
			}
			i += 4
		case 'f':
			if len(b)-i < 5 || string(b[i:i+5]) != "false" {
				return 0, false
			}
			i += 5
		case 'n':
			if len(b)-i < 4 || string(b[i:i+4]) != "null" {
				return 0, false
			}
			i += 4
		default:
			// Most numbers are plain non-negative integers (seqs, turns,
			// token counts): read those here, hand anything else to
			// numberEnd.
			j := i
			for j < len(b) && '0' <= b[j] && b[j] <= '9' {
				j++
			}
			if j > i && (b[i] != '0' || j == i+1) && (j == len(b) || (b[j] != '.' && b[j] != 'e' && b[j] != 'E')) {
				i = j
				break
			}
			var ok bool
			if i, ok = numberEnd(b, i); !ok {
				return 0, false
			}
		}
		// A value ended: close containers until one takes another value.
		for {
			if len(stack) == 0 {
				return i, true
			}
			if note != nil && len(stack) == 1 && member != 0 {
				note.dataKeys |= member
				if member == dataMessage {
					note.msgStart, note.msgEnd = memberStart-base, i-base
				}
				member = 0
			}
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			if i >= len(b) {
				return 0, false
			}
			top := stack[len(stack)-1]
			if b[i] == top {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return 0, false
			}
			i++
			key = top == '}'
			break
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// memberBit is dataKeyBit of a member name spelled with escapes, as it
// stands in the text, quotes included.
func memberBit(quoted []byte) uint16 {
	var s string
	json.Unmarshal(quoted, &s)
	return dataKeyBit([]byte(s))
}

// numberEnd scans a JSON number (RFC 8259 grammar) at b[i].
func numberEnd(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i++
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return 0, false
		}
	}
	return i, true
}
