package editops

import (
	"unicode/utf8"
	"unsafe"

	"github.com/agnivade/levenshtein"
)

// nearMissBudget is O24's cap on W·m·w, the cost of scoring every window.
const nearMissBudget = 20_000_000

// nearest finds the window of text closest to find (O24): windows of length
// w = min(n, m) at every offset, the smallest Levenshtein distance, ties to
// the smallest offset. ok is false when the work budget rules the search out.
//
// Distances come from github.com/agnivade/levenshtein, which compares runes,
// so each code unit u is passed as the rune u, or 0x10000+u for a surrogate
// (distinct, and valid in UTF-8). Windows are encoded into one reused buffer,
// and a window is scored only when a cheap lower bound says it could beat the
// best so far: for equal lengths every edit changes a unit histogram by at
// most two, so distance ≥ Σ|histogram difference| / 2. The histogram slides
// in O(1) per offset; buckets keyed by the low byte only weaken the bound.
func nearest(text, find []uint16) (offset, distance int, ok bool) {
	n, m := len(text), len(find)
	if !nearMissAllowed(n, m) {
		return 0, 0, false
	}
	w := min(n, m)
	W := n - w + 1
	fb := encodeRunes(nil, find)
	fs := unsafe.String(unsafe.SliceData(fb), len(fb))
	if W == 1 {
		wb := encodeRunes(nil, text[:w])
		return 0, levenshtein.ComputeDistance(fs, string(wb)), true
	}
	var diff [256]int32 // window count minus find count, per bucket
	for _, u := range find {
		diff[u&0xFF]--
	}
	D := m // Σ|diff| before the first window is added
	for _, u := range text[:w] {
		b := u & 0xFF
		if diff[b] < 0 {
			D--
		} else {
			D++
		}
		diff[b]++
	}
	best, bestAt := m+1, 0
	buf := make([]byte, 0, 4*w)
	for o := 0; ; o++ {
		if D/2 < best {
			buf = encodeRunes(buf[:0], text[o:o+w])
			d := levenshtein.ComputeDistance(fs, unsafe.String(unsafe.SliceData(buf), len(buf)))
			if d < best {
				best, bestAt = d, o
				if d == 0 {
					break
				}
			}
		}
		if o+1 == W {
			break
		}
		out, in := text[o]&0xFF, text[o+w]&0xFF
		if out != in {
			if diff[out] > 0 {
				D--
			} else {
				D++
			}
			diff[out]--
			if diff[in] < 0 {
				D--
			} else {
				D++
			}
			diff[in]++
		}
	}
	return bestAt, best, true
}

// nearMissAllowed is O24's limit for text length n and find length m.
func nearMissAllowed(n, m int) bool {
	w := min(n, m)
	W := n - w + 1
	return m <= 65535 && int64(W)*int64(m)*int64(w) <= nearMissBudget
}

// encodeRunes appends the UTF-8 form of units mapped to runes as O24 says.
func encodeRunes(dst []byte, units []uint16) []byte {
	for _, u := range units {
		switch {
		case u < utf8.RuneSelf:
			dst = append(dst, byte(u))
		case u >= 0xD800 && u <= 0xDFFF:
			dst = utf8.AppendRune(dst, 0x10000+rune(u))
		default:
			dst = utf8.AppendRune(dst, rune(u))
		}
	}
	return dst
}
