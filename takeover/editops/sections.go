package editops

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

const (
	msgBadID     = `section id must be a non-empty string without line breaks or "]"`
	msgBadStatus = "section status must be a string without line breaks"
)

var headerMark = jsvalue.U("### [")

// sectionID is O34's id check; it returns the trimmed id.
func sectionID(id jsvalue.Value) ([]uint16, *apierr.Error) {
	if id.Kind == jsvalue.String {
		t := jsvalue.Trim(id.Str)
		ok := len(t) > 0
		for _, c := range t {
			if c == '\n' || c == '\r' || c == ']' {
				ok = false
				break
			}
		}
		if ok {
			return t, nil
		}
	}
	return nil, invalid(ReasonBadSection, jsvalue.U(msgBadID)).With("id", id)
}

// sectionStatus is O34's status check: undefined takes def, null means ”.
func sectionStatus(st jsvalue.Value, def string) ([]uint16, *apierr.Error) {
	switch st.Kind {
	case jsvalue.Undefined:
		return jsvalue.U(def), nil
	case jsvalue.Null:
		return nil, nil
	case jsvalue.String:
		t := jsvalue.Trim(st.Str)
		ok := true
		for _, c := range t {
			if c == '\n' || c == '\r' {
				ok = false
				break
			}
		}
		if ok {
			return t, nil
		}
	}
	return nil, invalid(ReasonBadSection, jsvalue.U(msgBadStatus)).With("status", st)
}

// header is O33's header line, without its line break.
func header(id, status []uint16) []uint16 {
	h := jsvalue.Cat(headerMark, id, []uint16{']'})
	if len(status) > 0 {
		h = jsvalue.Cat(h, jsvalue.U(" ("), status, []uint16{')'})
	}
	return h
}

func lineStartsHeader(s, id []uint16) bool {
	k := len(headerMark)
	return len(s) >= k+len(id)+1 && jsvalue.Equal(s[:k], headerMark) && jsvalue.Equal(s[k:k+len(id)], id) && s[k+len(id)] == ']'
}

func indexUnit(s []uint16, c uint16, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// SectionKeeper is an optional capability of a reasoning Buffer: the layout
// (Sections) of the current value kept from an earlier op, so the section
// ops need not search the text for its headers again. The bridge keeps one
// per core handle, valid while nothing else has written the reasoning.
type SectionKeeper interface {
	// KeptSections returns the current value's layout, or nil.
	KeptSections() *Sections
	// Keep records s as the layout of the value after this op: the same
	// value for a Noop, otherwise the value its one write will store.
	Keep(s *Sections, written bool)
}

// layout returns the reasoning's layout, kept or built, bound to the
// reasoning for this op (the caller unbinds it when the op ends).
func layout(b Buffer) *Sections {
	r := readerOf(b)
	if k, ok := b.(SectionKeeper); ok {
		if s := k.KeptSections(); s != nil {
			s.bind(r)
			return s
		}
	}
	return newSections(r, b.Len())
}

// settle brings a kept layout up to date with the op's edit.
func settle(b Buffer, s *Sections, e *Edit) {
	k, ok := b.(SectionKeeper)
	if !ok {
		return
	}
	if !e.Noop {
		s.Apply(e.Splices)
	}
	k.Keep(s, !e.Noop)
}

// createSection returns the splice that adds a header after the value with
// its trailing line breaks removed (O35).
func createSection(r *Sections, id, status []uint16) Splice {
	end := r.trimmedEnd()
	var ins []uint16
	if end > 0 {
		ins = jsvalue.U("\n\n")
	}
	ins = append(append(ins, header(id, status)...), '\n')
	return Splice{end, r.Len(), jsvalue.Str(ins)}
}

// EnsureReasoningSection is O35 with O34 and O38. status is the third
// argument; when it is an object, statusField is its status property (the
// { status } form), otherwise statusField is ignored. An existing section is
// a Noop.
func EnsureReasoningSection(h HandleKind, reasoning Buffer, id, status, statusField jsvalue.Value) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	sid, err := sectionID(id)
	if err != nil {
		return Edit{}, err
	}
	if isPlainObject(status) {
		status = statusField
	}
	st, err := sectionStatus(status, "running")
	if err != nil {
		return Edit{}, err
	}
	r := layout(reasoning)
	defer r.unbind()
	e := Edit{Buf: Reasoning, Noop: true}
	if r.find(sid) < 0 {
		e = Edit{Buf: Reasoning, Splices: []Splice{createSection(r, sid, st)}}
	}
	settle(reasoning, r, &e)
	return e, nil
}

// appendArgs is O36's checks in O38's order: the handle, the delta, the id.
func appendArgs(h HandleKind, id, delta jsvalue.Value) ([]uint16, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return nil, err
	}
	if delta.Kind != jsvalue.String {
		return nil, invalid(ReasonNotAString, typeofMsg("appendToReasoningSection requires a string delta, got ", delta))
	}
	return sectionID(id)
}

// AppendToReasoningSection is O36 with O34 and O38. An empty delta is a Noop
// once the id is valid.
func AppendToReasoningSection(h HandleKind, reasoning Buffer, id, delta jsvalue.Value) (Edit, *apierr.Error) {
	sid, err := appendArgs(h, id, delta)
	if err != nil {
		return Edit{}, err
	}
	if len(delta.Str) == 0 {
		return Edit{Buf: Reasoning, Noop: true}, nil
	}
	r := layout(reasoning)
	defer r.unbind()
	e := appendToSection(r, sid, delta)
	if _, kept := reasoning.(SectionKeeper); kept {
		settle(reasoning, r, &e)
		// When the section is last (and r now the value after the edit),
		// its next append lands at its body end: the facade keeps the value
		// split there (Edit.Split).
		if k := r.find(sid); k >= 0 && k == len(r.heads)-1 {
			if he := r.lineEnd(k); he >= 0 {
				e.Split = r.bodyEnd(he+1, r.Len())
			}
		}
		e.Permit = r.AppendsAtEnd(sid)
	}
	return e, nil
}

// AppendsAtEnd reports whether appending any non-empty delta without a
// line break to section sid is, on this value, the append of that delta
// and leaves the same true of the result: the section is the last one, its
// body is not empty and runs to the end of the text, the text does not end
// in a line break (so the delta cannot start a line), and its last line is
// not a beginning of "### [" that the delta could complete into a header.
// A facade may then make such appends itself and hand over only their
// length later (Edit.Permit, AppendPlain).
func (s *Sections) AppendsAtEnd(sid []uint16) bool {
	k := s.find(sid)
	if k < 0 || k != len(s.heads)-1 {
		return false
	}
	n := s.Len()
	he := s.lineEnd(k)
	if he < 0 || n <= he+1 || s.unitAt(n-1) == '\n' {
		return false
	}
	m := min(n, len(headerMark))
	var end [lastK]uint16 // the last m units
	s.read(n-m, end[:m])
	ls := n - m
	for i := m - 1; i >= 0; i-- {
		if end[i] == '\n' {
			ls = n - m + i + 1
			break
		}
	}
	if n-ls >= len(headerMark) {
		return true // the line's first five units are there, and no mark
	}
	return !jsvalue.Equal(end[ls-(n-m):m], headerMark[:n-ls])
}

func appendToSection(r *Sections, sid []uint16, delta jsvalue.Value) Edit {
	k := r.find(sid)
	if k < 0 {
		c := createSection(r, sid, jsvalue.U("running"))
		at := c.Start + len(c.Ins.Str)
		return Edit{Buf: Reasoning, Splices: []Splice{c, {at, at, delta}}}
	}
	n := r.Len()
	he := r.lineEnd(k)
	if he < 0 {
		// The header is the last line: start its body on a new line.
		return Edit{Buf: Reasoning, Splices: []Splice{{n, n, jsvalue.Str([]uint16{'\n'})}, {n + 1, n + 1, delta}}}
	}
	ns := r.next(k)
	ce := r.bodyEnd(he+1, ns)
	if ns == n || ns-ce >= 2 {
		return Edit{Buf: Reasoning, Splices: []Splice{{ce, ce, delta}}}
	}
	// Keep one blank line before the next header.
	sep := Splice{ce, ns, jsvalue.Str([]uint16{'\n', '\n'})}
	return Edit{Buf: Reasoning, Splices: []Splice{sep, {ce, ce, delta}}}
}

// MarkReasoningSectionStatus is O37 with O34 and O38: it rewrites the header
// line and always writes.
func MarkReasoningSectionStatus(h HandleKind, reasoning Buffer, id, status jsvalue.Value) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	sid, err := sectionID(id)
	if err != nil {
		return Edit{}, err
	}
	st, err := sectionStatus(status, "")
	if err != nil {
		return Edit{}, err
	}
	r := layout(reasoning)
	defer r.unbind()
	k := r.find(sid)
	if k < 0 {
		msg := jsvalue.Cat(jsvalue.U(`section "`), sid, jsvalue.U(`" not found`))
		idv := id
		if len(sid) != len(id.Str) {
			idv = jsvalue.Str(append([]uint16(nil), sid...))
		}
		return Edit{}, invalid(ReasonBadSection, msg).With("id", idv)
	}
	hs := r.heads[k].at
	he := r.lineEnd(k)
	if he < 0 {
		he = r.Len()
	}
	e := Edit{Buf: Reasoning, Splices: []Splice{{hs, he, jsvalue.Str(header(sid, st))}}}
	settle(reasoning, r, &e)
	return e, nil
}

// Fast is the answer of AppendAtEnd.
type Fast uint8

const (
	FastAppend Fast = iota // the edit is delta inserted at the given point; the layout is updated
	FastNoop               // an empty delta: nothing to write (O36)
	FastNo                 // take the general path; nothing was changed
)

// FastResult is AppendAtEnd's answer.
type FastResult struct {
	Fast
	// Split is where the next append to the section lands (Edit.Split).
	Split int
	// Permit is AppendsAtEnd of the section on the result (Edit.Permit).
	Permit bool
}

// AppendAtEnd is AppendToReasoningSection for a core handle whose layout s
// is kept (nil: none), r its reasoning, in the case a streaming sub-agent
// makes on every token: the section is the last one, so the edit is one
// insertion of delta at its body end, before the line breaks that end the
// text (O36). The caller has put the delta at `at` (where the previous
// append said the next one lands, or the end); the answer is FastAppend
// only when that is where O36 puts it. Errors are the general op's; for
// any other case it answers FastNo and the caller runs the general op.
func AppendAtEnd(s *Sections, r Reader, id, delta jsvalue.Value, at int) (FastResult, *apierr.Error) {
	sid, err := appendArgs(CoreHandle, id, delta)
	if err != nil {
		return FastResult{Fast: FastNo}, err
	}
	if len(delta.Str) == 0 {
		return FastResult{Fast: FastNoop}, nil
	}
	if s == nil {
		return FastResult{Fast: FastNo}, nil
	}
	s.bind(r)
	defer s.unbind()
	k := s.find(sid)
	if k < 0 || k != len(s.heads)-1 {
		return FastResult{Fast: FastNo}, nil
	}
	he := s.lineEnd(k)
	if he < 0 || s.bodyEnd(he+1, s.Len()) != at {
		return FastResult{Fast: FastNo}, nil
	}
	s.Apply([]Splice{{at, at, delta}})
	return FastResult{Fast: FastAppend, Split: s.bodyEnd(he+1, s.Len()), Permit: s.AppendsAtEnd(sid)}, nil
}
