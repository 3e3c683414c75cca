package jsvalue

import (
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// WTF-8 is UTF-8 that may also encode lone surrogates (as their 3-byte
// form). A core that keeps JS text as Go strings (chatsurface) uses it, so
// every JS string, ill-formed ones included, round-trips exactly.

// WTF8 converts code units to WTF-8.
func WTF8(u []uint16) string {
	// The ASCII run (all of most HTML, of every version) in one pass: its
	// bytes are its units.
	b := make([]byte, len(u))
	n := len(u)
	for i, c := range u {
		if c >= 0x80 {
			n = i
			break
		}
		b[i] = byte(c)
	}
	b = b[:n]
	for i := n; i < len(u); i++ {
		c := rune(u[i])
		if utf16.IsSurrogate(c) {
			if c < 0xDC00 && i+1 < len(u) && u[i+1] >= 0xDC00 && u[i+1] < 0xE000 {
				b = utf8.AppendRune(b, utf16.DecodeRune(c, rune(u[i+1])))
				i++
				continue
			}
			b = append(b, byte(0xE0|c>>12), byte(0x80|(c>>6)&0x3F), byte(0x80|c&0x3F))
			continue
		}
		b = utf8.AppendRune(b, c)
	}
	return owned(b)
}

// owned is b as a string without a copy: b is the caller's own and never
// written again. Every string from JS passes here (the DOM, formatMessage,
// processor results, versions), so the copy was one allocation per string.
func owned(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// FromWTF8 converts WTF-8 back to code units.
func FromWTF8(s string) []uint16 { return AppendUnits(make([]uint16, 0, len(s)), s) }

// AppendUnits appends the code units of WTF-8 s to dst: encoding into a
// buffer that is already there (the DOM batch, the shared text buffer)
// costs no allocation per string.
func AppendUnits(dst []uint16, s string) []uint16 {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			dst = append(dst, uint16(c))
			i++
			continue
		}
		if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 { // an encoded lone surrogate
			dst = append(dst, uint16(c&0x0F)<<12|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F))
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		dst = utf16.AppendRune(dst, r)
		i += n
	}
	return dst
}
