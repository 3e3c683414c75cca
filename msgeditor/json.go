package msgeditor

import (
	"errors"
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// A tiny JSON reader and string writer. The browser module must stay free of
// encoding/json (it costs ~245 KB brotli and drags reflect-heavy code in),
// and the editor only ever reads the route's small envelopes, so a
// dedicated ~150-line parser is the cheaper cut.

// Kind of a JSON value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a parsed JSON value. Object keys keep their order.
type Value struct {
	Kind  Kind
	B     bool
	N     float64
	S     string
	Items []*Value
	Keys  []string
	Vals  []*Value
}

// Get returns the member named key of an object, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i]
		}
	}
	return nil
}

// Str is the string value, or "" for anything else.
func (v *Value) Str() string {
	if v == nil || v.Kind != String {
		return ""
	}
	return v.S
}

// Int is the number as an int, or -1 when v is not a number.
func (v *Value) Int() int {
	if v == nil || v.Kind != Number {
		return -1
	}
	return int(v.N)
}

// Truth is true only for JSON true.
func (v *Value) Truth() bool { return v != nil && v.Kind == Bool && v.B }

var errSyntax = errors.New("invalid JSON")

// Parse reads one JSON document.
func Parse(s string) (*Value, error) {
	p := parser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, errSyntax
	}
	return v, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) lit(word string) bool {
	if len(p.s)-p.i >= len(word) && p.s[p.i:p.i+len(word)] == word {
		p.i += len(word)
		return true
	}
	return false
}

// maxDepth keeps recursion shallow: browsers give Go few stack frames.
const maxDepth = 64

func (p *parser) value(depth int) (*Value, error) {
	if depth > maxDepth {
		return nil, errSyntax
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, errSyntax
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		v := &Value{Kind: Object}
		p.space()
		if p.lit("}") {
			return v, nil
		}
		for {
			p.space()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if !p.lit(":") {
				return nil, errSyntax
			}
			m, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.Keys, v.Vals = append(v.Keys, k), append(v.Vals, m)
			p.space()
			if p.lit("}") {
				return v, nil
			}
			if !p.lit(",") {
				return nil, errSyntax
			}
		}
	case c == '[':
		p.i++
		v := &Value{Kind: Array}
		p.space()
		if p.lit("]") {
			return v, nil
		}
		for {
			m, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.Items = append(v.Items, m)
			p.space()
			if p.lit("]") {
				return v, nil
			}
			if !p.lit(",") {
				return nil, errSyntax
			}
		}
	case c == '"':
		s, err := p.str()
		return &Value{Kind: String, S: s}, err
	case p.lit("true"):
		return &Value{Kind: Bool, B: true}, nil
	case p.lit("false"):
		return &Value{Kind: Bool}, nil
	case p.lit("null"):
		return &Value{Kind: Null}, nil
	default:
		j := p.i
		for j < len(p.s) && (p.s[j] == '-' || p.s[j] == '+' || p.s[j] == '.' || p.s[j] == 'e' || p.s[j] == 'E' || (p.s[j] >= '0' && p.s[j] <= '9')) {
			j++
		}
		n, ok := number(p.s[p.i:j])
		if !ok {
			return nil, errSyntax
		}
		p.i = j
		return &Value{Kind: Number, N: n}, nil
	}
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number reads a JSON number (RFC 8259 grammar). Integers of up to 15
// digits, which is every number the route sends (seqs, counts, times), are
// exact; others are within a unit in the last place. (strconv.ParseFloat
// would link its error type and the Unicode tables into the module.)
func number(s string) (float64, bool) {
	i := 0
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if digits < 19 {
			mant = mant*10 + uint64(s[i]-'0')
			digits++
		} else {
			exp++
		}
		i++
	}
	if i == start || (s[start] == '0' && i-start > 1) {
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		f := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if digits < 19 {
				mant = mant*10 + uint64(s[i]-'0')
				digits++
				exp--
			}
			i++
		}
		if i == f {
			return 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		sign := 1
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			if s[i] == '-' {
				sign = -1
			}
			i++
		}
		e, f := 0, i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if e < 10000 {
				e = e*10 + int(s[i]-'0')
			}
			i++
		}
		if i == f {
			return 0, false
		}
		exp += sign * e
	}
	if i != len(s) {
		return 0, false
	}
	v := float64(mant)
	switch {
	case exp > 0:
		v *= math.Pow10(exp)
	case exp < 0:
		v /= math.Pow10(-exp)
	}
	if neg {
		v = -v
	}
	return v, true
}

func (p *parser) str() (string, error) {
	if !p.lit(`"`) {
		return "", errSyntax
	}
	var b []byte
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < 0x20:
			return "", errSyntax
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", errSyntax
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(p.s[p.i:])
				if !ok {
					return "", errSyntax
				}
				p.i += 4
				if utf16.IsSurrogate(r) {
					// A pair joins; a lone half stays itself, in WTF-8
					// (jsvalue.WTF8), as the page's strings cross
					// (bridge.TextWTF8): a message that holds one shows it,
					// and an untouched draft of it is the message's text
					// (S48), where U+FFFD made an unchanged save a change.
					joined := false
					if r < 0xDC00 && p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
						if r2, ok := hex4(p.s[p.i+2:]); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
							p.i += 6
							r = utf16.DecodeRune(r, r2)
							joined = true
						}
					}
					if !joined {
						b = append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
						continue
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", errSyntax
			}
		default:
			b = append(b, c)
			p.i++
		}
	}
	return "", errSyntax
}

// Quote writes s as a JSON string literal.
func Quote(s string) string {
	const hexd = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 { // a lone surrogate (WTF-8): \uXXXX
			u := uint16(c&0x0F)<<12 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F)
			b = append(b, '\\', 'u', hexd[u>>12], hexd[u>>8&15], hexd[u>>4&15], hexd[u&15])
			i += 3
			continue
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&15])
		default:
			b = append(b, c)
		}
		i++
	}
	return string(append(b, '"'))
}
