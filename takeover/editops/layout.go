package editops

import (
	"slices"

	"tavern-core/jsvalue"
)

// Reader is a value held outside the layout and read in small pieces. For
// a handle it is the facade's JS string (charCodeAt and indexOf): a section
// op then copies only the units its rules look at, and scans with the
// engine's own indexOf, as plain JS does, instead of copying the reasoning
// into Go.
type Reader interface {
	// ReadUnits fills dst with the value's units from `from` on.
	ReadUnits(from int, dst []uint16)
	// IndexUnits is String.prototype.indexOf(needle, from) on the value.
	IndexUnits(needle []uint16, from int) int
}

// unitsReader is a value held in Go.
type unitsReader []uint16

func (u unitsReader) ReadUnits(from int, dst []uint16)         { copy(dst, u[from:]) }
func (u unitsReader) IndexUnits(needle []uint16, from int) int { return jsvalue.Index(u, needle, from) }

// wholeReader reads a Buffer that can only be copied whole (Units), once,
// on first use.
type wholeReader struct {
	b Buffer
	u unitsReader
}

func (w *wholeReader) units() unitsReader {
	if w.u == nil {
		w.u = append(unitsReader{}, w.b.Units()...)
	}
	return w.u
}
func (w *wholeReader) ReadUnits(from int, dst []uint16) { w.units().ReadUnits(from, dst) }
func (w *wholeReader) IndexUnits(needle []uint16, from int) int {
	return w.units().IndexUnits(needle, from)
}

// readerOf is b's Reader, or one that copies b whole when first read.
func readerOf(b Buffer) Reader {
	if r, ok := b.(Reader); ok {
		return r
	}
	return &wholeReader{b: b}
}

// lastK is how many units a layout holds from before the run of '\n' that
// ends the value (the last section's body end, where O36 appends): every
// rule that looks there (a header mark and the unit before it, the last
// line of a permit) stays inside them and the run, so a stream of appends
// to the last section reads nothing.
const lastK = 32

// headRead is how far a header line is read at a time: a whole
// "### [id] (status)" line, usually, so ids are matched and the line's end
// found in Go.
const headRead = 48

// Sections is the layout of a reasoning value: its length, the starts of
// its lines that begin with "### [" (O33: every section boundary), the run
// of '\n' ending it, the units before that run, and what was read of each header
// line. It holds no copy of the value: an op binds it to a Reader of the
// value it was given and reads the few units its rules need, and it is
// kept up to date edit by edit (Apply), so a stream of section ops on a
// kept layout costs O(delta) each.
//
// The units held are exact except for runs added by AppendPlain, which
// stand in for text that holds no line break and cannot touch a header
// (appended under a permit, AppendsAtEnd): every rule here reads only line
// breaks, header lines and the units around a splice, which such runs
// never are, and no edit takes its content from the layout.
type Sections struct {
	n     int
	heads []head // ascending
	// tail counts the '\n' ending the value. An append to the last section
	// goes before them (O36), so a stream whose deltas end in line breaks
	// piles them up there; counting them keeps bodyEnd O(1).
	tail int
	// last holds the lastLen = min(n-tail, lastK) units before the tail.
	last    [lastK]uint16
	lastLen int
	lastOK  bool // false while Apply has not brought last up to date

	// While an op runs: the Reader of the value it was given (src; srcN
	// units, of which srcTail, srcLast and srcLastLen are the layout's
	// tail, last and lastLen) and the current value as runs of it and of
	// inserted text (the op's splices so far).
	src        Reader
	srcN       int
	srcTail    int
	srcLast    [lastK]uint16
	srcLastLen int
	runs       []run
	spare      []run
	scratch    []uint16
	needle     [1]uint16
}

// head is a line that begins with "### [".
type head struct {
	at  int
	pre []uint16 // the line's first units, as far as read (owned)
	// line is the line's length without its '\n' when known, else -1; nl
	// says whether a '\n' ends it (else it runs to the end of the value).
	line int
	nl   bool
}

// run is units [from, to) of the bound value (ins == nil) or of ins.
type run struct {
	from, to int
	ins      []uint16
}

var nlMark = jsvalue.U("\n### [")

// NewSections is the layout of a value held in Go, bound to it for good.
func NewSections(r []uint16) *Sections { return newSections(unitsReader(r), len(r)) }

// newSections lays out the n-unit value r holds: its first and last units
// are read, and its headers found with r.IndexUnits. It stays bound to r.
func newSections(r Reader, n int) *Sections {
	s := &Sections{n: n}
	s.bind(r) // nothing held yet: every read is r's
	s.tail = s.breaksBefore(n, 0)
	s.readLast()
	s.bind(r)
	if n >= len(headerMark) {
		s.heads = append(s.heads, head{line: -1})
		if !jsvalue.HasPrefix(s.prefix(0, len(headerMark)), headerMark) {
			s.heads = s.heads[:0]
		}
	}
	for from, found := 0, 0; ; found++ {
		if found == maxSearches {
			s.scanFrom(r, from)
			break
		}
		q := r.IndexUnits(nlMark, from)
		if q < 0 {
			break
		}
		s.heads = append(s.heads, head{at: q + 1, line: -1})
		from = q + 1
	}
	return s
}

// maxSearches bounds the headers newSections finds one IndexUnits call (one
// crossing, for a handle) at a time; past them the rest of the value is
// read in one piece and scanned here.
const maxSearches = 32

// scanFrom adds the headers after from (a header's start) from the value's
// units, with what a header line read would give.
func (s *Sections) scanFrom(r Reader, from int) {
	u := make([]uint16, s.n-from)
	r.ReadUnits(from, u)
	for i := jsvalue.Index(u, nlMark, 0); i >= 0; i = jsvalue.Index(u, nlMark, i+1) {
		h := head{at: from + i + 1, line: -1}
		line := u[i+1 : min(len(u), i+1+headRead)]
		if k := indexUnit(line, '\n', 0); k >= 0 {
			line, h.line, h.nl = line[:k], k, true
		} else if i+1+len(line) == len(u) {
			h.line = len(line) // runs to the end
		}
		h.pre = append([]uint16(nil), line...)
		s.heads = append(s.heads, h)
	}
}

// readLast brings last up to date with the current value.
func (s *Sections) readLast() {
	s.lastOK = false
	be := s.n - s.tail
	s.lastLen = min(be, lastK)
	s.read(be-s.lastLen, s.last[:s.lastLen])
	s.lastOK = true
}

// bind makes r, which holds the value the layout describes, the source of
// this op's reads.
func (s *Sections) bind(r Reader) {
	s.src, s.srcN, s.srcTail, s.srcLast, s.srcLastLen = r, s.n, s.tail, s.last, 0
	if s.lastOK {
		s.srcLastLen = s.lastLen
	}
	s.runs = append(s.runs[:0], run{0, s.n, nil})
}

// unbind ends the op: the Reader (and inserted text, which may alias a
// call's buffer) is not kept.
func (s *Sections) unbind() {
	s.src = nil
	clear(s.runs)
	s.runs = s.runs[:0]
	clear(s.spare)
}

// AppendPlain appends n stand-in units (see Sections), where AppendsAtEnd
// held: no header line runs to the end, so no cached line changes.
func (s *Sections) AppendPlain(n int) {
	if n <= 0 {
		return
	}
	// The units before the new (empty) tail end in n stand-ins, after the
	// old tail's line breaks and the old last.
	s.n += n
	m := min(s.n, lastK)
	var last [lastK]uint16
	i := max(0, m-n)
	for ; i > 0 && s.tail > 0; s.tail-- {
		i--
		last[i] = '\n'
	}
	copy(last[:i], s.last[s.lastLen-i:s.lastLen])
	s.last, s.lastLen, s.tail = last, m, 0
}

// Len is the value's length.
func (s *Sections) Len() int { return s.n }

func (s *Sections) tmp(n int) []uint16 {
	if cap(s.scratch) < n {
		s.scratch = make([]uint16, n, max(n, 2*cap(s.scratch)))
	}
	return s.scratch[:n]
}

// read fills dst with the current value's units from p on.
func (s *Sections) read(p int, dst []uint16) {
	if s.lastOK && p >= s.n-s.tail-s.lastLen {
		held(dst, p, s.n-s.tail, s.last[:s.lastLen])
		return
	}
	pos := 0
	for _, r := range s.runs {
		if len(dst) == 0 {
			return
		}
		ln := r.to - r.from
		if p < pos+ln {
			off := p - pos
			k := min(ln-off, len(dst))
			if r.ins != nil {
				copy(dst[:k], r.ins[r.from+off:])
			} else {
				s.readSrc(r.from+off, dst[:k])
			}
			dst, p = dst[k:], p+k
		}
		pos += ln
	}
	if len(dst) > 0 {
		panic("editops: read past the end of the value")
	}
}

// held fills dst with the units from p on of a value whose units from be
// on are '\n' and that has last just before be.
func held(dst []uint16, p, be int, last []uint16) {
	for i := range dst {
		if q := p + i; q >= be {
			dst[i] = '\n'
		} else {
			dst[i] = last[q-be+len(last)]
		}
	}
}

// heldFrom is where the units held of the bound value start.
func (s *Sections) heldFrom() int { return s.srcN - s.srcTail - s.srcLastLen }

// readSrc reads the bound value, the units held from the layout.
func (s *Sections) readSrc(p int, dst []uint16) {
	lo := s.heldFrom()
	if k := min(len(dst), lo-p); k > 0 {
		s.src.ReadUnits(p, dst[:k])
		dst, p = dst[k:], p+k
	}
	held(dst, p, s.srcN-s.srcTail, s.srcLast[:s.srcLastLen])
}

// unitAt is the current value's unit at p.
func (s *Sections) unitAt(p int) uint16 {
	var u [1]uint16
	s.read(p, u[:])
	return u[0]
}

// indexBreak is the first '\n' at or after from in the current value, or
// -1. The bound value is searched with its own indexOf; its final units
// (stand-ins included: they are never '\n') in Go.
func (s *Sections) indexBreak(from int) int {
	pos := 0
	for _, r := range s.runs {
		ln := r.to - r.from
		if from < pos+ln {
			off := max(0, from-pos)
			if r.ins != nil {
				if i := indexUnit(r.ins[r.from+off:r.to], '\n', 0); i >= 0 {
					return pos + off + i
				}
			} else if i := s.indexSrcBreak(r.from+off, r.to); i >= 0 {
				return pos + i - r.from
			}
		}
		pos += ln
	}
	return -1
}

func (s *Sections) indexSrcBreak(from, to int) int {
	lo := s.heldFrom()
	if from < lo {
		s.needle[0] = '\n'
		if i := s.src.IndexUnits(s.needle[:], from); i >= 0 && i < min(to, lo) {
			return i
		}
		from = lo
	}
	for i := from; i < to; i++ {
		if i >= s.srcN-s.srcTail || s.srcLast[i-lo] == '\n' {
			return i
		}
	}
	return -1
}

// breaksBefore is the length of the run of '\n' that ends at p, never
// reaching below floor.
func (s *Sections) breaksBefore(p, floor int) int {
	c := 0
	for chunk := 16; p-c > floor; chunk *= 2 {
		k := min(chunk, p-c-floor)
		buf := s.tmp(k)
		s.read(p-c-k, buf)
		for i := k - 1; i >= 0; i-- {
			if buf[i] != '\n' {
				return c + k - 1 - i
			}
		}
		c += k
	}
	return c
}

// prefix returns at least the first need units of head k's line, or the
// whole line when it is shorter.
func (s *Sections) prefix(k, need int) []uint16 {
	h := &s.heads[k]
	for len(h.pre) < need && (h.line < 0 || len(h.pre) < h.line) {
		p := h.at + len(h.pre)
		m := min(max(need-len(h.pre), headRead), s.n-p)
		if h.line >= 0 {
			m = min(m, h.line-len(h.pre))
		}
		if m == 0 {
			h.line, h.nl = len(h.pre), false // the line runs to the end
			break
		}
		buf := s.tmp(m)
		s.read(p, buf)
		if i := indexUnit(buf, '\n', 0); i >= 0 {
			h.pre = append(h.pre, buf[:i]...)
			h.line, h.nl = len(h.pre), true
			break
		}
		h.pre = append(h.pre, buf...)
	}
	return h.pre
}

// find returns the index in heads of the first header of id, or -1.
func (s *Sections) find(id []uint16) int {
	need := len(headerMark) + len(id) + 1
	for k := range s.heads {
		if lineStartsHeader(s.prefix(k, need), id) {
			return k
		}
	}
	return -1
}

// lineEnd is the index of the '\n' ending head k's line, or -1 when the
// line runs to the end of the value.
func (s *Sections) lineEnd(k int) int {
	h := &s.heads[k]
	if h.line < 0 {
		if q := s.indexBreak(h.at + len(h.pre)); q >= 0 {
			h.line, h.nl = q-h.at, true
		} else {
			h.line, h.nl = s.n-h.at, false
		}
	}
	if !h.nl {
		return -1
	}
	return h.at + h.line
}

// next is the start of the header after heads[k], or the length.
func (s *Sections) next(k int) int {
	if k+1 < len(s.heads) {
		return s.heads[k+1].at
	}
	return s.n
}

// bodyEnd is O36's ce: ns minus the run of '\n' before it, never before
// the body's start.
func (s *Sections) bodyEnd(bodyStart, ns int) int {
	if ns == s.n {
		return max(bodyStart, ns-s.tail)
	}
	return ns - s.breaksBefore(ns, bodyStart)
}

// trimmedEnd is the length without all trailing '\n' (O35's R).
func (s *Sections) trimmedEnd() int { return s.n - s.tail }

// Apply applies an edit's splices, in order, to the layout.
func (s *Sections) Apply(splices []Splice) {
	for _, sp := range splices {
		s.apply(sp)
	}
}

// apply applies one splice. It can only change which lines are headers
// where it lands: lines starting at most 4 units before it (their "### ["
// overlaps it), lines starting inside the inserted text, and the line
// right after it. A header line it reaches into forgets what was read of
// it from there on.
func (s *Sections) apply(sp Splice) {
	ins := sp.Ins.Str
	d := len(ins) - (sp.End - sp.Start)
	lo := max(0, sp.Start-(len(headerMark)-1))
	tail := s.tailAfter(sp)
	// Headers from lo through the old end are re-examined below; later
	// ones move with the text.
	i := 0
	for i < len(s.heads) && s.heads[i].at < lo {
		s.heads[i].cut(sp.Start)
		i++
	}
	j := i
	for j < len(s.heads) && s.heads[j].at <= sp.End {
		j++
	}
	rest := s.heads[j:]
	for k := range rest {
		rest[k].at += d
	}
	s.spliceRuns(sp.Start, sp.End, ins)
	s.n += d
	s.lastOK = false
	end := sp.Start + len(ins)
	from, to := max(0, lo-1), min(s.n, end+len(headerMark))
	w := s.tmp(to - from)
	s.read(from, w)
	var found []head
	for p := lo; p <= end && p < s.n; p++ {
		if p > sp.Start && p < end && ins[p-sp.Start-1] != '\n' {
			continue // inside the inserted text and not after a line break
		}
		if (p == 0 || w[p-1-from] == '\n') && s.n-p >= len(headerMark) && jsvalue.Equal(w[p-from:p-from+len(headerMark)], headerMark) {
			found = append(found, head{at: p, line: -1})
		}
	}
	if i != j || len(found) > 0 { // else the headers are the same, moved in place
		s.heads = slices.Concat(s.heads[:i], found, rest)
	}
	s.tail = tail
	s.readLast()
}

// cut forgets what a splice at p changed of the line (which starts
// before p).
func (h *head) cut(p int) {
	if h.line >= 0 {
		if h.nl && p > h.at+h.line {
			return // the splice is after the line's '\n'
		}
		h.line = -1
	}
	if p < h.at+len(h.pre) {
		h.pre = h.pre[:p-h.at]
	}
}

// spliceRuns replaces [start, end) of the current value with ins.
func (s *Sections) spliceRuns(start, end int, ins []uint16) {
	out := s.spare[:0]
	pos := 0
	for _, r := range s.runs {
		if k := min(r.to-r.from, start-pos); k > 0 {
			out = append(out, run{r.from, r.from + k, r.ins})
		}
		pos += r.to - r.from
	}
	if len(ins) > 0 {
		out = append(out, run{0, len(ins), ins})
	}
	pos = 0
	for _, r := range s.runs {
		ln := r.to - r.from
		if pos+ln > end {
			out = append(out, run{r.from + max(0, end-pos), r.to, r.ins})
		}
		pos += ln
	}
	s.runs, s.spare = out, s.runs
}

// tailAfter is the trailing '\n' count once sp is applied: the old count
// when something else follows the splice, else what follows (all line
// breaks), the inserted text's own trailing run and, when that is all of
// it, the run ending where the splice starts.
func (s *Sections) tailAfter(sp Splice) int {
	after := s.n - sp.End
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
		t += s.breaksBefore(sp.Start, 0)
	}
	return t
}
