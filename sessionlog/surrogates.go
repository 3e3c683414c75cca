package sessionlog

import "bytes"

// Lone surrogates through the generic tree. A log written by JavaScript may
// hold text with a lone UTF-16 surrogate, escaped ("\ud800"); encoding/json
// decodes that to U+FFFD, so a planned copy of such an event (S6: carried
// through unchanged) or an undo restoring it (S72, S73) would change the
// text and answer ok. decodeValue first rewrites each lone surrogate escape
// as the noncharacter U+FDD0 (kept for process-internal use) and the
// escape's four hex digits, and EncodeJSON writes those back as the escape.
// A U+FDD0 already in the text is rewritten the same way (as "FDD0"), so
// the mapping is one to one.

const surrogateMark = "\ufdd0"

// mayHoldSurrogates is a cheap pre-test: an escape starting \ud or \uf, or
// a raw U+FDD0.
func mayHoldSurrogates(b []byte) bool {
	return bytes.Contains(b, []byte(`\ud`)) || bytes.Contains(b, []byte(`\uD`)) ||
		bytes.Contains(b, []byte(`\uf`)) || bytes.Contains(b, []byte(`\uF`)) || bytes.Contains(b, []byte(surrogateMark))
}

func hex4(b []byte) (int, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v := 0
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// protectSurrogates rewrites lone surrogate escapes (and U+FDD0) inside the
// strings of JSON text b; text without them is returned as it is.
func protectSurrogates(b []byte) []byte {
	if !mayHoldSurrogates(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	mark := func(x int) {
		const digits = "0123456789abcdef"
		out = append(out, surrogateMark...)
		out = append(out, digits[x>>12&15], digits[x>>8&15], digits[x>>4&15], digits[x&15])
	}
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !in:
			in = c == '"'
			out = append(out, c)
		case c == '"':
			in = false
			out = append(out, c)
		case c == '\\' && i+1 < len(b) && b[i+1] == 'u':
			x, ok := hex4(b[i+2:])
			if !ok {
				out = append(out, c)
				continue
			}
			if x >= 0xD800 && x <= 0xDBFF && i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if y, ok := hex4(b[i+8:]); ok && y >= 0xDC00 && y <= 0xDFFF { // a pair: as it is
					out = append(out, b[i:i+12]...)
					i += 11
					continue
				}
			}
			if x >= 0xD800 && x <= 0xDFFF || x == 0xFDD0 {
				mark(x)
			} else {
				out = append(out, b[i:i+6]...)
			}
			i += 5
		case c == '\\' && i+1 < len(b):
			out = append(out, c, b[i+1])
			i++
		case bytes.HasPrefix(b[i:], []byte(surrogateMark)):
			mark(0xFDD0)
			i += len(surrogateMark) - 1
		default:
			out = append(out, c)
		}
	}
	return out
}

// restoreSurrogates turns what protectSurrogates made back into escapes in
// encoded JSON.
func restoreSurrogates(b []byte) []byte {
	if !bytes.Contains(b, []byte(surrogateMark)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if bytes.HasPrefix(b[i:], []byte(surrogateMark)) {
			if _, ok := hex4(b[i+len(surrogateMark):]); ok {
				out = append(out, '\\', 'u')
				out = append(out, b[i+len(surrogateMark):i+len(surrogateMark)+4]...)
				i += len(surrogateMark) + 3
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}
