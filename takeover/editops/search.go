package editops

import (
	"sync/atomic"

	"tavern-core/jsvalue"
)

// matcher finds exact code-unit occurrences of a pattern (T4).
//
// Long patterns use Horspool's skip on the window's last two units (a hashed
// bigram table, as in Lecroq's q-gram hashing): in prose most bigrams are
// absent from the pattern, so the scan advances about m−1 units per probe
// instead of the few a single-unit table allows with common letters. Hash
// collisions only shorten skips, so the scan stays exact. Short patterns and
// short texts use a first-unit scan, which needs no table.
type matcher struct {
	p     []uint16
	skip  *[1 << bigramBits]uint8 // bigram hash → safe shift; nil until a long scan needs it
	shift int                     // shift after a candidate whose last bigram matched
}

const (
	bigramBits = 12
	bigramMask = 1<<bigramBits - 1
	minBigramM = 4    // below this the table cannot skip much
	minBigramN = 2048 // below this the table costs more than it saves
)

func newMatcher(p []uint16) matcher { return matcher{p: p} }

// spareTable keeps one bigram table for the next long scan: a
// context_replace per patch entry would otherwise allocate one per entry.
// One spare is all a single-threaded page needs, and an atomic swap instead
// of a sync.Pool keeps the Pool's ~10 KB of code out of the browser module.
var spareTable atomic.Pointer[[1 << bigramBits]uint8]

// release returns the table; the matcher must not be used afterwards.
func (mt *matcher) release() {
	if mt.skip != nil {
		spareTable.Store(mt.skip)
		mt.skip = nil
	}
}

func bigram(a, b uint16) uint32 {
	return (uint32(a)<<5 ^ uint32(b) ^ uint32(a)>>7 ^ uint32(b)>>9) & bigramMask
}

func (mt *matcher) table() {
	p := mt.p
	m := len(p)
	maxShift := min(m-1, 0xFF)
	if mt.skip = spareTable.Swap(nil); mt.skip == nil {
		mt.skip = new([1 << bigramBits]uint8)
	}
	for i := range mt.skip {
		mt.skip[i] = uint8(maxShift)
	}
	// The bigram ending at p[j] allows shifting by m-1-j; the rightmost
	// occurrence (smallest shift) wins. The final bigram gets 0, marking a
	// candidate window; its own safe shift is kept in mt.shift.
	for j := 1; j < m-1; j++ {
		mt.skip[bigram(p[j-1], p[j])] = uint8(min(m-1-j, maxShift))
	}
	last := bigram(p[m-2], p[m-1])
	mt.shift = max(int(mt.skip[last]), 1)
	mt.skip[last] = 0
}

// index is s.indexOf(p, from) for a non-empty p, or -1.
func (mt *matcher) index(s []uint16, from int) int {
	p := mt.p
	m := len(p)
	n := len(s)
	if m < minBigramM || n-from < minBigramN {
		return scanIndex(s, p, from)
	}
	if mt.skip == nil {
		mt.table()
	}
	skip := mt.skip
	first := p[0]
	// e is the index of the window's last unit.
	for e := from + m - 1; e < n; {
		sh := skip[bigram(s[e-1], s[e])]
		if sh != 0 {
			e += int(sh)
			continue
		}
		i := e - m + 1
		if s[i] == first && jsvalue.Equal(s[i:e+1], p) {
			return i
		}
		e += mt.shift
	}
	return -1
}

// scanIndex finds p by its first unit, then compares.
func scanIndex(s, p []uint16, from int) int {
	m := len(p)
	first := p[0]
	for i := from; i <= len(s)-m; i++ {
		if s[i] == first && jsvalue.Equal(s[i:i+m], p) {
			return i
		}
	}
	return -1
}
