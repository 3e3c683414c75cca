package sessionlog

import (
	"encoding/json"
	"unicode/utf8"
)

// The lean envelope reader. A log line is mostly its data member, which the
// validator and the fold never look at for log-only events (S21) and only
// occasionally for surface-eligible ones. parseEnvelope decodes the envelope's
// other members into the same generic tree decodeValue yields and only checks
// the syntax of data, keeping its bytes; Event.Data decodes them on first use.
//
// The reader is deliberately conservative: it accepts a subset of what
// encoding/json accepts (plain JSON whitespace, no more than maxLeanDepth
// nesting), and on anything else the caller falls back to decodeValue, which
// then decides — and words any error — exactly as before.

const maxLeanDepth = 1000

// interned holds the strings every envelope repeats (member names, types,
// surfaceOp words), so reading them allocates nothing; internedAny holds
// the same strings already boxed for use as values.
var interned, internedAny = func() (map[string]string, map[string]any) {
	words := []string{"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs",
		"ignorable", "op", "append", "replace", "startSeq", "endSeq", "start", "end"}
	for t := range knownTypes {
		words = append(words, t)
	}
	s := make(map[string]string, len(words))
	a := make(map[string]any, len(words))
	for _, w := range words {
		s[w], a[w] = w, w
	}
	return s, a
}()

type leanParser struct {
	b []byte
	i int
}

// parseEnvelope returns the envelope's members other than data, data's raw
// bytes (nil when absent) and ok; ok is false when the line is not an object
// the lean reader is sure about.
func parseEnvelope(line []byte) (fields map[string]any, rawData []byte, ok bool) {
	p := leanParser{b: line}
	p.ws()
	if !p.eat('{') {
		return nil, nil, false
	}
	fields = make(map[string]any, 6)
	p.ws()
	if p.eat('}') {
		return fields, nil, p.end()
	}
	for {
		p.ws()
		key, ok := p.str()
		if !ok {
			return nil, nil, false
		}
		p.ws()
		if !p.eat(':') {
			return nil, nil, false
		}
		p.ws()
		if key == "data" {
			start := p.i
			if !p.skip(1) {
				return nil, nil, false
			}
			rawData = line[start:p.i]
		} else {
			v, ok := p.value(1)
			if !ok {
				return nil, nil, false
			}
			fields[key] = v
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			break
		}
		return nil, nil, false
	}
	return fields, rawData, p.end()
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
func (p *leanParser) strEnd() (end int, plain, ok bool) {
	b, i := p.b, p.i
	if i >= len(b) || b[i] != '"' {
		return 0, false, false
	}
	i++
	plain = true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, plain, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return 0, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(b)-i < 5 {
					return 0, false, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				i += 5
			default:
				return 0, false, false
			}
		case c >= 0x80:
			plain = false
			i++
		default:
			i++
		}
	}
	return 0, false, false
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
		if s, ok := interned[string(tok[1:len(tok)-1])]; ok {
			return s, true
		}
	}
	if plain || (utf8.Valid(tok) && noBackslash(tok)) {
		return string(tok[1 : len(tok)-1]), true
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

// num scans a JSON number (RFC 8259 grammar) and returns its text.
func (p *leanParser) num() (string, bool) {
	start := p.i
	if !p.numEnd() {
		return "", false
	}
	return string(p.b[start:p.i]), true
}

func (p *leanParser) numEnd() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
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
			return false
		}
	}
	p.i = i
	return true
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
			if v, ok := internedAny[string(p.b[p.i+1:end-1])]; ok {
				p.i = end
				return v, true
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
		n, ok := p.num()
		return json.Number(n), ok
	}
}

// skip checks the syntax of one value and moves past it without building it.
func (p *leanParser) skip(depth int) bool {
	if p.i >= len(p.b) || depth > maxLeanDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		p.ws()
		if p.eat('}') {
			return true
		}
		for {
			p.ws()
			end, _, ok := p.strEnd()
			if !ok {
				return false
			}
			p.i = end
			p.ws()
			if !p.eat(':') {
				return false
			}
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat('}')
		}
	case c == '[':
		p.i++
		p.ws()
		if p.eat(']') {
			return true
		}
		for {
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat(']')
		}
	case c == '"':
		end, _, ok := p.strEnd()
		p.i = end
		return ok
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	default:
		return p.numEnd()
	}
}
