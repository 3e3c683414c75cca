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

// findSection returns the start of the first line that begins with
// "### [<id>]", or -1 (O33: headers count only at line starts).
func findSection(r, id []uint16) int {
	for ls := 0; ls < len(r); {
		if lineStartsHeader(r[ls:], id) {
			return ls
		}
		nl := indexUnit(r, '\n', ls)
		if nl < 0 {
			break
		}
		ls = nl + 1
	}
	return -1
}

func lineStartsHeader(s, id []uint16) bool {
	k := len(headerMark)
	return len(s) >= k+len(id)+1 && jsvalue.Equal(s[:k], headerMark) && jsvalue.Equal(s[k:k+len(id)], id) && s[k+len(id)] == ']'
}

// nextHeader returns the start of the first line at or after from (a line
// start) that begins with "### [", or len(r).
func nextHeader(r []uint16, from int) int {
	for ls := from; ls < len(r); {
		if len(r)-ls >= len(headerMark) && jsvalue.Equal(r[ls:ls+len(headerMark)], headerMark) {
			return ls
		}
		nl := indexUnit(r, '\n', ls)
		if nl < 0 {
			break
		}
		ls = nl + 1
	}
	return len(r)
}

func indexUnit(s []uint16, c uint16, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// createSection returns the splice that adds a header after r with its
// trailing line breaks removed (O35).
func createSection(r []uint16, id, status []uint16) Splice {
	end := len(r)
	for end > 0 && r[end-1] == '\n' {
		end--
	}
	var ins []uint16
	if end > 0 {
		ins = jsvalue.U("\n\n")
	}
	ins = append(append(ins, header(id, status)...), '\n')
	return Splice{end, len(r), jsvalue.Str(ins)}
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
	r := reasoning.Units()
	if findSection(r, sid) >= 0 {
		return Edit{Buf: Reasoning, Noop: true}, nil
	}
	return Edit{Buf: Reasoning, Splices: []Splice{createSection(r, sid, st)}}, nil
}

// AppendToReasoningSection is O36 with O34 and O38. An empty delta is a Noop
// once the id is valid.
func AppendToReasoningSection(h HandleKind, reasoning Buffer, id, delta jsvalue.Value) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	if delta.Kind != jsvalue.String {
		return Edit{}, invalid(ReasonNotAString, typeofMsg("appendToReasoningSection requires a string delta, got ", delta))
	}
	sid, err := sectionID(id)
	if err != nil {
		return Edit{}, err
	}
	if len(delta.Str) == 0 {
		return Edit{Buf: Reasoning, Noop: true}, nil
	}
	r := reasoning.Units()
	hs := findSection(r, sid)
	if hs < 0 {
		c := createSection(r, sid, jsvalue.U("running"))
		at := c.Start + len(c.Ins.Str)
		return Edit{Buf: Reasoning, Splices: []Splice{c, {at, at, delta}}}, nil
	}
	he := indexUnit(r, '\n', hs)
	if he < 0 {
		// The header is the last line: start its body on a new line.
		n := len(r)
		return Edit{Buf: Reasoning, Splices: []Splice{{n, n, jsvalue.Str([]uint16{'\n'})}, {n + 1, n + 1, delta}}}, nil
	}
	ns := nextHeader(r, he+1)
	ce := ns
	for ce > he+1 && r[ce-1] == '\n' {
		ce--
	}
	if ns == len(r) || ns-ce >= 2 {
		return Edit{Buf: Reasoning, Splices: []Splice{{ce, ce, delta}}}, nil
	}
	// Keep one blank line before the next header.
	sep := Splice{ce, ns, jsvalue.Str([]uint16{'\n', '\n'})}
	return Edit{Buf: Reasoning, Splices: []Splice{sep, {ce, ce, delta}}}, nil
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
	r := reasoning.Units()
	hs := findSection(r, sid)
	if hs < 0 {
		msg := jsvalue.Cat(jsvalue.U(`section "`), sid, jsvalue.U(`" not found`))
		idv := id
		if len(sid) != len(id.Str) {
			idv = jsvalue.Str(append([]uint16(nil), sid...))
		}
		return Edit{}, invalid(ReasonBadSection, msg).With("id", idv)
	}
	he := indexUnit(r, '\n', hs)
	if he < 0 {
		he = len(r)
	}
	return Edit{Buf: Reasoning, Splices: []Splice{{hs, he, jsvalue.Str(header(sid, st))}}}, nil
}
