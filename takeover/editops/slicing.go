package editops

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// AppendText is O8: setText(getText() + delta). An empty delta still writes.
func AppendText(h HandleKind, text Buffer, delta jsvalue.Value) (Edit, *apierr.Error) {
	return appendTo(h, Text, "appendText", text, delta)
}

// AppendReasoning is O9: setReasoning(getReasoning() + delta). Unlike the
// handle's own method it writes on ” too, so a settled handle throws.
func AppendReasoning(h HandleKind, reasoning Buffer, delta jsvalue.Value) (Edit, *apierr.Error) {
	return appendTo(h, Reasoning, "appendReasoning", reasoning, delta)
}

// CheckAppendArg is appendText's (t = Text) or appendReasoning's argument
// check (O7) for a core handle, when the facade appends the delta itself
// and only its kind crosses.
func CheckAppendArg(t Target, kind jsvalue.Kind) *apierr.Error {
	return checkString(appendOps[t], jsvalue.Value{Kind: kind})
}

var appendOps = [...]string{Text: "appendText", Reasoning: "appendReasoning"}

func appendTo(h HandleKind, t Target, op string, b Buffer, delta jsvalue.Value) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	if err := checkString(op, delta); err != nil {
		return Edit{}, err
	}
	n := b.Len()
	return Edit{Buf: t, Splices: []Splice{{n, n, delta}}}, nil
}

// InsertAt is O10: text first, then offset.
func InsertAt(h HandleKind, text Buffer, offset, ins jsvalue.Value) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	if err := checkString("insertAt", ins); err != nil {
		return Edit{}, err
	}
	sp, err := insertSplice(text.Len(), offset, ins)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Buf: Text, Splices: []Splice{sp}}, nil
}

// ReplaceRange is O11.
func ReplaceRange(h HandleKind, text Buffer, start, end, ins jsvalue.Value) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	if err := checkString("replaceRange", ins); err != nil {
		return Edit{}, err
	}
	sp, err := rangeSplice(text.Len(), start, end, ins)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Buf: Text, Splices: []Splice{sp}}, nil
}

// DeleteRange is O12: replaceRange with ” and no text check.
func DeleteRange(h HandleKind, text Buffer, start, end jsvalue.Value) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	sp, err := rangeSplice(text.Len(), start, end, emptyString)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Buf: Text, Splices: []Splice{sp}}, nil
}

// emptyString is the ” the core inserts for deletions.
var emptyString = jsvalue.Value{Kind: jsvalue.String}

// insertSplice checks the offset of an insertion whose text is checked.
func insertSplice(n int, offset, ins jsvalue.Value) (Splice, *apierr.Error) {
	o, err := checkOffset("offset", offset, n)
	if err != nil {
		return Splice{}, err
	}
	return Splice{o, o, ins}, nil
}

// rangeSplice checks start, end and their order (O11 steps 2–4).
func rangeSplice(n int, start, end, ins jsvalue.Value) (Splice, *apierr.Error) {
	s, err := checkOffset("start", start, n)
	if err != nil {
		return Splice{}, err
	}
	e, err := checkOffset("end", end, n)
	if err != nil {
		return Splice{}, err
	}
	if e < s {
		msg := jsvalue.Cat(jsvalue.U("replaceRange end ("), end.Display(), jsvalue.U(") must be >= start ("), start.Display(), jsvalue.U(")"))
		return Splice{}, invalid(ReasonEndBeforeStart, msg).With("start", start).With("end", end)
	}
	return Splice{s, e, ins}, nil
}
