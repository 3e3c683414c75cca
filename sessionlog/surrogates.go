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

// hex4 reads the four hex digits at b[at:].
func hex4(b []byte, at int) (int, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[at : at+4] {
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

// eachMarkable walks the strings of JSON text b and calls f(at, end, x)
// for each piece protectSurrogates rewrites, b[at:end]: a lone surrogate
// escape (x its unit) or a U+FDD0, escaped or raw (x 0xFDD0). It stops
// when f returns false, and at a malformed or truncated escape, which the
// decoder reports.
func eachMarkable(b []byte, f func(at, end, x int) bool) {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\':
			if i+1 >= len(b) {
				return
			}
			if b[i+1] != 'u' {
				i++
				continue
			}
			x, ok := hex4(b, i+2)
			if !ok {
				return
			}
			if x >= 0xD800 && x <= 0xDBFF && i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if y, ok := hex4(b, i+8); ok && y >= 0xDC00 && y <= 0xDFFF { // a pair
					i += 11
					continue
				}
			}
			if (x >= 0xD800 && x <= 0xDFFF || x == 0xFDD0) && !f(i, i+6, x) {
				return
			}
			i += 5
		case bytes.HasPrefix(b[i:], []byte(surrogateMark)):
			if !f(i, i+len(surrogateMark), 0xFDD0) {
				return
			}
			i += len(surrogateMark) - 1
		}
	}
}

// LoneSurrogate reports the first escape in the strings of JSON text b
// that names half of a surrogate pair, and that half: what encoding/json
// would turn into U+FFFD (the route refuses such a request body, S83).
func LoneSurrogate(b []byte) (unit int, found bool) {
	eachMarkable(b, func(_, _, x int) bool {
		if x == 0xFDD0 {
			return true
		}
		unit, found = x, true
		return false
	})
	return unit, found
}

// protectSurrogates rewrites lone surrogate escapes (and U+FDD0) inside the
// strings of JSON text b; text without them is returned as it is.
func protectSurrogates(b []byte) []byte {
	if !mayHoldSurrogates(b) {
		return b
	}
	var out []byte
	last := 0
	eachMarkable(b, func(at, end, x int) bool {
		const digits = "0123456789abcdef"
		out = append(append(out, b[last:at]...), surrogateMark...)
		out = append(out, digits[x>>12&15], digits[x>>8&15], digits[x>>4&15], digits[x&15])
		last = end
		return true
	})
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
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
			if _, ok := hex4(b, i+len(surrogateMark)); ok {
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
