package jsvalue

import "unicode/utf16"

// U converts a Go string (UTF-8) to code units. Use it for the core's own
// text (messages, codes); never for text that came from JS.
func U(s string) []uint16 {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return utf16.Encode([]rune(s))
		}
	}
	out := make([]uint16, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = uint16(s[i])
	}
	return out
}

// Cat concatenates pieces of text into a new slice.
//
//go:noinline
func Cat(parts ...[]uint16) []uint16 {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]uint16, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// GoString decodes code units for Go-side use (logs, test output). Lone
// surrogates become U+FFFD, so never send the result back to JS.
//
//go:noinline
func GoString(u []uint16) string { return string(utf16.Decode(u)) }

// Equal compares code units exactly.
func Equal(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// HasPrefix reports whether s starts with p, by code unit.
//
//go:noinline
func HasPrefix(s, p []uint16) bool { return len(s) >= len(p) && Equal(s[:len(p)], p) }

// Index is String.prototype.indexOf(sub, from) by code unit; -1 when absent.
func Index(s, sub []uint16, from int) int {
	if from < 0 {
		from = 0
	}
	m := len(sub)
	if m == 0 {
		if from > len(s) {
			return len(s)
		}
		return from
	}
	first := sub[0]
	last := len(s) - m
	for i := from; i <= last; i++ {
		if s[i] != first {
			continue
		}
		if Equal(s[i:i+m], sub) {
			return i
		}
	}
	return -1
}

// isJSSpace reports the code units String.prototype.trim removes:
// WhiteSpace and LineTerminator of ECMA-262 (U+FEFF included, U+0085 not).
func isJSSpace(c uint16) bool {
	switch c {
	case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return c >= 0x2000 && c <= 0x200A
}

// Trim is String.prototype.trim.
func Trim(s []uint16) []uint16 {
	i, j := 0, len(s)
	for i < j && isJSSpace(s[i]) {
		i++
	}
	for j > i && isJSSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// JSONQuote is JSON.stringify(s) in its well-formed form: lone surrogates
// and C0 controls become lowercase \uXXXX; everything else stays literal.
func JSONQuote(s []uint16) []uint16 {
	const hex = "0123456789abcdef"
	out := make([]uint16, 0, len(s)+2)
	out = append(out, '"')
	esc := func(c uint16) {
		out = append(out, '\\', 'u', uint16(hex[c>>12]), uint16(hex[c>>8&15]), uint16(hex[c>>4&15]), uint16(hex[c&15]))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			out = append(out, '\\', '"')
		case c == '\\':
			out = append(out, '\\', '\\')
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\t':
			out = append(out, '\\', 't')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c < 0x20:
			esc(c)
		case c >= 0xD800 && c <= 0xDBFF:
			if i+1 < len(s) && s[i+1] >= 0xDC00 && s[i+1] <= 0xDFFF {
				out = append(out, c, s[i+1])
				i++
			} else {
				esc(c)
			}
		case c >= 0xDC00 && c <= 0xDFFF:
			esc(c)
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}
