package editops

// matcher finds exact code-unit occurrences of a pattern (T4). It uses
// Horspool's bad-character skip keyed by the low byte of the unit under the
// window's last position: a shared bucket only shortens a skip, so the scan
// stays exact while typically advancing several units per probe.
type matcher struct {
	p    []uint16
	skip [256]int32
}

func newMatcher(p []uint16) *matcher {
	mt := &matcher{p: p}
	m := len(p)
	for i := range mt.skip {
		mt.skip[i] = int32(m)
	}
	for j := 0; j < m-1; j++ {
		mt.skip[p[j]&0xFF] = int32(m - 1 - j)
	}
	return mt
}

// index is s.indexOf(p, from) for a non-empty p, or -1.
func (mt *matcher) index(s []uint16, from int) int {
	p := mt.p
	m := len(p)
	if m == 1 {
		c := p[0]
		for i := from; i < len(s); i++ {
			if s[i] == c {
				return i
			}
		}
		return -1
	}
	first, last := p[0], p[m-1]
	mid := p[1 : m-1]
	for i := from; i <= len(s)-m; {
		w := s[i : i+m]
		c := w[m-1]
		if c == last && w[0] == first && equalUnits(w[1:m-1], mid) {
			return i
		}
		i += int(mt.skip[c&0xFF])
	}
	return -1
}

func equalUnits(a, b []uint16) bool {
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
