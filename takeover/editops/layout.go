package editops

import (
	"slices"

	"tavern-core/jsvalue"
)

// Sections is a reasoning value with the starts of its lines that begin
// with "### [" (O33: every section boundary), in order. Built once from the
// text, it is kept up to date edit by edit (Apply), so a stream of section
// ops costs O(delta) each instead of a copy and a scan of the whole
// reasoning per op.
//
// The units are exact except for runs added by AppendPlain, which stand in
// for text that holds no line break and cannot touch a header (appended
// under a permit, AppendsAtEnd): every rule here reads only line breaks,
// header lines and the units around a splice, which such runs never are,
// and no edit takes its content from the layout.
type Sections struct {
	u     []uint16 // the value, owned
	heads []int    // line starts beginning with "### [", ascending
	// tail counts the '\n' ending the value. An append to the last section
	// goes before them (O36), so a stream whose deltas end in line breaks
	// piles them up there; counting them keeps bodyEnd O(1).
	tail int
}

// NewSections indexes a copy of r.
func NewSections(r []uint16) *Sections {
	s := &Sections{u: slices.Clone(r)}
	for ls := 0; ls < len(r); {
		if s.markAt(ls) {
			s.heads = append(s.heads, ls)
		}
		nl := indexUnit(r, '\n', ls)
		if nl < 0 {
			break
		}
		ls = nl + 1
	}
	for s.tail < len(r) && r[len(r)-1-s.tail] == '\n' {
		s.tail++
	}
	return s
}

// AppendPlain appends n stand-in units (see Sections).
func (s *Sections) AppendPlain(n int) {
	m := len(s.u)
	s.reserve(n)
	s.u = s.u[:m+n]
	clear(s.u[m:])
}

// reserve makes room for n more units, doubling: a streamed reasoning is
// appended to thousands of times, and each copy is garbage for Go's GC.
func (s *Sections) reserve(n int) {
	if len(s.u)+n > cap(s.u) {
		s.u = slices.Grow(s.u, max(n, len(s.u)))
	}
}

// Len is the value's length.
func (s *Sections) Len() int { return len(s.u) }

// Units is the value (read-only).
func (s *Sections) Units() []uint16 { return s.u }

// markAt reports whether "### [" starts at p (a line start is the caller's
// concern).
func (s *Sections) markAt(p int) bool {
	return len(s.u)-p >= len(headerMark) && jsvalue.Equal(s.u[p:p+len(headerMark)], headerMark)
}

func (s *Sections) lineStart(p int) bool { return p == 0 || s.u[p-1] == '\n' }

// find returns the index in heads of the first header of id, or -1.
func (s *Sections) find(id []uint16) int {
	for k, hs := range s.heads {
		if lineStartsHeader(s.u[hs:], id) {
			return k
		}
	}
	return -1
}

// lineEnd is the index of the '\n' ending the line that starts at ls, or -1.
func (s *Sections) lineEnd(ls int) int { return indexUnit(s.u, '\n', ls) }

// next is the start of the header after heads[k], or the length.
func (s *Sections) next(k int) int {
	if k+1 < len(s.heads) {
		return s.heads[k+1]
	}
	return len(s.u)
}

// bodyEnd is O36's ce: ns minus the run of '\n' before it, never before
// the body's start.
func (s *Sections) bodyEnd(bodyStart, ns int) int {
	if ns == len(s.u) {
		return max(bodyStart, ns-s.tail)
	}
	ce := ns
	for ce > bodyStart && s.u[ce-1] == '\n' {
		ce--
	}
	return ce
}

// trimmedEnd is the length without all trailing '\n' (O35's R).
func (s *Sections) trimmedEnd() int { return len(s.u) - s.tail }

// Apply applies an edit's splices, in order, to the value and the index.
// A splice can only change which lines are headers where it lands: lines
// starting at most 4 units before it (their "### [" overlaps it), lines
// starting inside the inserted text, and the line right after it.
func (s *Sections) Apply(splices []Splice) {
	for _, sp := range splices {
		ins := sp.Ins.Str
		d := len(ins) - (sp.End - sp.Start)
		lo := max(0, sp.Start-(len(headerMark)-1))
		// Headers from lo through the old end are re-examined below; later
		// ones move with the text.
		i := 0
		for i < len(s.heads) && s.heads[i] < lo {
			i++
		}
		j := i
		for j < len(s.heads) && s.heads[j] <= sp.End {
			j++
		}
		rest := s.heads[j:]
		for k := range rest {
			rest[k] += d
		}
		s.tail = s.tailAfter(sp)
		s.reserve(d)
		s.u = splice(s.u, sp.Start, sp.End, ins)
		var found []int
		for p := lo; p <= sp.Start+len(ins) && p <= len(s.u); p++ {
			if p > sp.Start && p < sp.Start+len(ins) && ins[p-sp.Start-1] != '\n' {
				continue // inside the inserted text and not after a line break
			}
			if p < len(s.u) && s.lineStart(p) && s.markAt(p) {
				found = append(found, p)
			}
		}
		if i != j || len(found) > 0 { // else the headers are the same, moved in place
			s.heads = slices.Concat(s.heads[:i], found, rest)
		}
	}
}

// tailAfter is the trailing '\n' count once sp is applied: the old count
// when something else follows the splice, else what follows (all line
// breaks), the inserted text's own trailing run and, when that is all of
// it, the run ending where the splice starts.
func (s *Sections) tailAfter(sp Splice) int {
	after := len(s.u) - sp.End
	if after > s.tail {
		return s.tail
	}
	ins := sp.Ins.Str
	t := after
	k := len(ins)
	for k > 0 && ins[k-1] == '\n' {
		k--
	}
	t += len(ins) - k
	if k == 0 {
		for p := sp.Start; p > 0 && s.u[p-1] == '\n'; p-- {
			t++
		}
	}
	return t
}
