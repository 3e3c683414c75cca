package editops

import (
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// section runs the ops in sequence on a reasoning string, as the facade
// would, counting writes.
type section struct {
	t      *testing.T
	r      string
	writes int
}

func (s *section) apply(e Edit, err *apierr.Error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("unexpected %v", err)
	}
	if e.Buf != Reasoning {
		s.t.Fatal("section ops write only reasoning (O38)")
	}
	if e.Noop {
		return
	}
	s.writes++
	s.r = jsvalue.GoString(Apply(jsvalue.U(s.r), e.Splices))
}

func (s *section) ensure(id string) {
	s.apply(EnsureReasoningSection(CoreHandle, B(s.r), S(id), undef, undef))
}
func (s *section) append(id, text string) {
	s.apply(AppendToReasoningSection(CoreHandle, B(s.r), S(id), S(text)))
}
func (s *section) mark(id, st string) {
	s.apply(MarkReasoningSectionStatus(CoreHandle, B(s.r), S(id), S(st)))
}
func (s *section) want(r string, writes int) {
	s.t.Helper()
	if s.r != r || s.writes != writes {
		s.t.Fatalf("reasoning %q (%d writes), want %q (%d)", s.r, s.writes, r, writes)
	}
}

// O33 (S137): headers count only at the start of a line; the format.
func TestO33_HeadersAtLineStart(t *testing.T) {
	s := &section{t: t, r: "x ### [a] (running)\n"}
	s.ensure("a")
	s.want("x ### [a] (running)\n\n### [a] (running)\n", 1)
	s = &section{t: t, r: "### [ab] (running)\n"}
	s.ensure("a") // "### [ab]" is not a header of a
	s.want("### [ab] (running)\n\n### [a] (running)\n", 1)
	s = &section{t: t, r: "### [a]x\n"}
	s.ensure("a") // a line that begins with "### [a]" is a's header
	s.want("### [a]x\n", 0)
	if got := jsvalue.GoString(header(jsvalue.U("a"), nil)); got != "### [a]" {
		t.Fatal(got)
	}
}

// O34 (S136, S139): ids and statuses.
func TestO34_IdsAndStatuses(t *testing.T) {
	s := &section{t: t}
	s.ensure(" a ")
	s.ensure("\ufeffa\t")
	s.append(" a ", "x")
	s.want("### [a] (running)\nx", 2)
	for _, id := range []jsvalue.Value{S(""), S("   "), N(5), S("a\nb"), S("a\rb"), S("a]b"), undef, null} {
		_, err := EnsureReasoningSection(CoreHandle, B(""), id, undef, undef)
		wantErr(t, err, CodeInvalidOffset, `section id must be a non-empty string without line breaks or "]"`, D("reason", "bad_section", "id", id))
		_, err = AppendToReasoningSection(CoreHandle, B(""), id, S("x"))
		wantErr(t, err, CodeInvalidOffset, `section id must be a non-empty string without line breaks or "]"`, nil)
		_, err = MarkReasoningSectionStatus(CoreHandle, B(""), id, S("x"))
		wantErr(t, err, CodeInvalidOffset, `section id must be a non-empty string without line breaks or "]"`, nil)
	}
	// U+0085 is not trimmed, so it stays in the id.
	e, err := EnsureReasoningSection(CoreHandle, B(""), S("a\u0085"), undef, undef)
	wantUnits(t, Reasoning, "", e, err, jsvalue.U("### [a\u0085] (running)\n"))
	for _, st := range []jsvalue.Value{N(1), S("a\nb"), S("x\ry"), obj} {
		_, err := MarkReasoningSectionStatus(CoreHandle, B("### [a]\n"), S("a"), st)
		wantErr(t, err, CodeInvalidOffset, "section status must be a string without line breaks", D("reason", "bad_section", "status", st))
	}
	e, err = EnsureReasoningSection(CoreHandle, B(""), S("a"), S("  queued "), undef)
	wantUnits(t, Reasoning, "", e, err, jsvalue.U("### [a] (queued)\n"))
}

// O35 (S132, S139): ensure adds a header once; status forms.
func TestO35_Ensure(t *testing.T) {
	s := &section{t: t}
	s.ensure("subagent-0")
	s.want("### [subagent-0] (running)\n", 1)
	s.ensure("subagent-0")
	s.want("### [subagent-0] (running)\n", 1)
	s = &section{t: t, r: "### [main]\nstart\n"}
	s.ensure("subagent-0")
	s.want("### [main]\nstart\n\n### [subagent-0] (running)\n", 1)
	s = &section{t: t, r: "body\n\n\n"}
	s.ensure("b")
	s.want("body\n\n### [b] (running)\n", 1)

	cases := []struct {
		status, field jsvalue.Value
		want          string
	}{
		{obj, S("queued"), "### [a] (queued)\n"},
		{obj, undef, "### [a] (running)\n"},
		{obj, null, "### [a]\n"},
		{S("queued"), S("ignored"), "### [a] (queued)\n"},
		{null, undef, "### [a]\n"},
		{S(""), undef, "### [a]\n"},
	}
	for _, c := range cases {
		e, err := EnsureReasoningSection(CoreHandle, B(""), S("a"), c.status, c.field)
		wantUnits(t, Reasoning, "", e, err, jsvalue.U(c.want))
	}
	_, err := EnsureReasoningSection(CoreHandle, B(""), S("a"), obj, N(3))
	wantErr(t, err, CodeInvalidOffset, "section status must be a string without line breaks", D("reason", "bad_section", "status", N(3)))
}

// O36 (S133, S134, S135, S140): appends into section bodies.
func TestO36_Append(t *testing.T) {
	s := &section{t: t}
	s.ensure("a")
	s.ensure("b")
	s.append("a", "X")
	s.append("a", "Y")
	s.want("### [a] (running)\nXY\n\n### [b] (running)\n", 4)

	s = &section{t: t}
	s.ensure("critic-0")
	s.ensure("planner-1")
	s.append("critic-0", "c1")
	s.append("planner-1", "p1")
	s.append("critic-0", " c2")
	s.append("planner-1", " p2")
	s.want("### [critic-0] (running)\nc1 c2\n\n### [planner-1] (running)\np1 p2", 6)

	s = &section{t: t}
	s.append("c", "hi")
	s.want("### [c] (running)\nhi", 1)
	s = &section{t: t, r: "intro\n"}
	s.append("c", "hi")
	s.want("intro\n\n### [c] (running)\nhi", 1)
	s = &section{t: t, r: "### [a] (running)\nfoo\n"}
	s.append("a", "bar")
	s.want("### [a] (running)\nfoobar\n", 1)
	s = &section{t: t, r: "### [a] (running)"}
	s.append("a", "x")
	s.want("### [a] (running)\nx", 1)
	// Trailing newlines of a body stay after later text.
	s = &section{t: t}
	s.append("a", "a\n")
	s.append("a", "b")
	s.want("### [a] (running)\nab\n", 2)
	// A separator of three line breaks is kept as it is.
	s = &section{t: t, r: "### [a]\nx\n\n\n### [b]\n"}
	s.append("a", "y")
	s.want("### [a]\nxy\n\n\n### [b]\n", 1)

	_, err := AppendToReasoningSection(CoreHandle, B(""), S("a"), N(123))
	wantErr(t, err, CodeInvalidOffset, "appendToReasoningSection requires a string delta, got number", D("reason", "not_a_string"))
	// The delta type is checked before the id (O38).
	_, err = AppendToReasoningSection(CoreHandle, B(""), S(""), N(123))
	wantErr(t, err, CodeInvalidOffset, "appendToReasoningSection requires a string delta, got number", nil)
	b := B("### [a]\n")
	e, err := AppendToReasoningSection(CoreHandle, b, S("a"), S(""))
	if err != nil || !e.Noop || b.unitCalls != 0 {
		t.Fatalf("empty append: %+v %v", e, err)
	}
	// The delta is passed through by identity.
	e, _ = AppendToReasoningSection(CoreHandle, B(""), S("a"), R(S("d"), 4))
	if last := e.Splices[len(e.Splices)-1]; last.Ins.Ref != 4 {
		t.Fatal("delta must keep its ref")
	}
}

// O37 (S138): marking rewrites the header line and always writes.
func TestO37_MarkStatus(t *testing.T) {
	s := &section{t: t, r: "### [subagent-0] (running)\nbody"}
	s.mark("subagent-0", "")
	s.want("### [subagent-0]\nbody", 1)
	s.mark(" subagent-0 ", "error: timeout")
	s.want("### [subagent-0] (error: timeout)\nbody", 2)
	s.mark("subagent-0", "error: timeout")
	s.want("### [subagent-0] (error: timeout)\nbody", 3)
	s = &section{t: t, r: "### [a] (running)"}
	s.mark("a", "done")
	s.want("### [a] (done)", 1)
	for _, st := range []jsvalue.Value{undef, null} {
		e, err := MarkReasoningSectionStatus(CoreHandle, B("### [a] (x)\n"), S("a"), st)
		wantUnits(t, Reasoning, "### [a] (x)\n", e, err, jsvalue.U("### [a]\n"))
	}
	_, err := MarkReasoningSectionStatus(CoreHandle, B("### [a]\n"), S("nope"), S("x"))
	wantErr(t, err, CodeInvalidOffset, `section "nope" not found`, D("reason", "bad_section", "id", "nope"))
	_, err = MarkReasoningSectionStatus(CoreHandle, B(""), S(" nope "), S("x"))
	wantErr(t, err, CodeInvalidOffset, `section "nope" not found`, D("reason", "bad_section", "id", "nope"))
}

// O38: handle, delta, id, status, then lookup.
func TestO38_CheckOrder(t *testing.T) {
	b := B("")
	_, err := MarkReasoningSectionStatus(CoreHandle, b, S(""), N(1))
	wantErr(t, err, CodeInvalidOffset, `section id must be a non-empty string without line breaks or "]"`, nil)
	_, err = MarkReasoningSectionStatus(CoreHandle, b, S("zz"), N(1))
	wantErr(t, err, CodeInvalidOffset, "section status must be a string without line breaks", nil)
	_, err = EnsureReasoningSection(CoreHandle, b, S(""), N(1), undef)
	wantErr(t, err, CodeInvalidOffset, `section id must be a non-empty string without line breaks or "]"`, nil)
	if b.unitCalls+b.lenCalls != 0 {
		t.Fatal("lookup before validation")
	}
}
