package editops

import (
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// O2: every invalid_offset error carries details.reason first.
func TestO2_ReasonAlwaysPresent(t *testing.T) {
	h := CoreHandle
	errs := []*apierr.Error{}
	add := func(_ Edit, err *apierr.Error) { errs = append(errs, err) }
	add(InsertAt(h, B("ab"), N(9), S("x")))
	add(InsertAt(h, B("ab"), N(1.5), S("x")))
	add(ReplaceRange(h, B("abcd"), N(3), N(1), S("x")))
	add(AppendText(h, B(""), null))
	add(ApplyPatch(h, B(""), []Patch{{Entry: null}}))
	add(ApplyPatch(h, B(""), []Patch{{Entry: obj, Kind: S("x")}}))
	add(ApplyPatch(h, B(""), []Patch{{Entry: obj, Kind: S("context_replace"), Find: S("a"), ReplaceWith: obj}}))
	add(EnsureReasoningSection(h, B(""), S(""), undef, undef))
	m, err := CheckPipe(h, PipeArgs{Mode: S("x")})
	_ = m
	errs = append(errs, err)
	for i, e := range errs {
		if e == nil || e.Code != CodeInvalidOffset || e.Details == nil || e.Details.Keys[0] != "reason" {
			t.Fatalf("#%d: %v", i, e)
		}
	}
}

// O3: a non-handle is rejected before any other argument; both handle kinds
// are accepted.
func TestO3_HandleCheckedFirst(t *testing.T) {
	const msg = "handle must be a message editor handle"
	want := D("reason", "not_an_object")
	b := B("abc")
	calls := []func() (Edit, *apierr.Error){
		func() (Edit, *apierr.Error) { return AppendText(NotAHandle, b, null) },
		func() (Edit, *apierr.Error) { return AppendReasoning(NotAHandle, b, null) },
		func() (Edit, *apierr.Error) { return InsertAt(NotAHandle, b, N(-1), null) },
		func() (Edit, *apierr.Error) { return ReplaceRange(NotAHandle, b, null, null, null) },
		func() (Edit, *apierr.Error) { return DeleteRange(NotAHandle, b, null, null) },
		func() (Edit, *apierr.Error) { return ApplyPatch(NotAHandle, b, []Patch{{Entry: null}}) },
		func() (Edit, *apierr.Error) { return ApplyPatch(NotAHandle, b, nil) },
		func() (Edit, *apierr.Error) { return PatchBySemantic(NotAHandle, b, Patch{Entry: null}) },
		func() (Edit, *apierr.Error) { return EnsureReasoningSection(NotAHandle, b, N(5), obj, N(1)) },
		func() (Edit, *apierr.Error) { return AppendToReasoningSection(NotAHandle, b, N(5), N(1)) },
		func() (Edit, *apierr.Error) { return MarkReasoningSectionStatus(NotAHandle, b, N(5), N(1)) },
		func() (Edit, *apierr.Error) {
			_, err := CheckPipe(NotAHandle, PipeArgs{Opts: N(1)})
			return Edit{}, err
		},
	}
	for _, c := range calls {
		_, err := c()
		wantErr(t, err, CodeInvalidOffset, msg, want)
	}
	if b.lenCalls+b.unitCalls != 0 {
		t.Fatal("a rejected handle's buffer must not be read")
	}
	// A duck whose getter returned a non-string is not a handle either.
	for _, c := range []func() (Edit, *apierr.Error){
		func() (Edit, *apierr.Error) { return AppendText(DuckNonString, b, S("x")) },
		func() (Edit, *apierr.Error) { return InsertAt(DuckNonString, b, N(0), S("x")) },
		func() (Edit, *apierr.Error) { return ApplyPatch(DuckNonString, b, nil) },
		func() (Edit, *apierr.Error) { return AppendToReasoningSection(DuckNonString, b, S("a"), S("x")) },
	} {
		_, err := c()
		wantErr(t, err, CodeInvalidOffset, msg, want)
	}
	// S83: a duck-typed handle gets the same single write.
	for _, h := range []HandleKind{CoreHandle, DuckHandle} {
		e, err := InsertAt(h, B("ab"), N(0), S("x"))
		wantText(t, "ab", e, err, "xab")
	}
}

// O4 (S82, S120): validation only computes, so an invalid request fails with
// its own error whatever the handle's state, and a valid one yields an edit
// whose write is where the handle raises editor_<state>.
func TestO4_ValidationBeforeWrite(t *testing.T) {
	_, err := InsertAt(CoreHandle, B("ab"), N(9), S("x"))
	wantErr(t, err, CodeInvalidOffset, "offset 9 out of range [0, 2]", nil)
	e, err := InsertAt(CoreHandle, B("ab"), N(0), S("x"))
	wantText(t, "ab", e, err, "xab")
	// S120
	_, err = PatchBySemantic(CoreHandle, B("abc"), Patch{Entry: obj, Find: S("z")})
	if err == nil || err.Code != CodePatchNotFound {
		t.Fatalf("got %v", err)
	}
	e, err = PatchBySemantic(CoreHandle, B("abc"), Patch{Entry: obj, Find: S("b")})
	wantText(t, "abc", e, err, "ac")
	// S82: the op appendReasoning(h, '') writes (so a settled handle throws).
	e, err = AppendReasoning(CoreHandle, B("r"), S(""))
	wantUnits(t, Reasoning, "r", e, err, jsvalue.U("r"))
}

// O5 (S80): a successful op is one write even when nothing changes.
func TestO5_OneWriteEvenWhenUnchanged(t *testing.T) {
	e, err := DeleteRange(CoreHandle, B("abcd"), N(2), N(2))
	wantText(t, "abcd", e, err, "abcd")
	if len(e.Splices) != 1 {
		t.Fatalf("splices %+v", e.Splices)
	}
	e, err = ReplaceRange(CoreHandle, B("abcd"), N(2), N(2), S("X"))
	wantText(t, "abcd", e, err, "abXcd")
}

// O6 (S76, S77): offsets.
func TestO6_Offsets(t *testing.T) {
	cases := []struct {
		off  jsvalue.Value
		msg  string
		want *jsvalue.Obj
	}{
		{N(9), "offset 9 out of range [0, 2]", D("reason", "out_of_range", "offset", 9, "max", 2)},
		{N(-1), "offset -1 out of range [0, 2]", D("reason", "out_of_range", "offset", -1, "max", 2)},
		{N(1.5), "offset must be an integer, got 1.5", D("reason", "not_integer", "offset", N(1.5), "max", 2)},
		{N(nan()), "offset must be an integer, got NaN", D("reason", "not_integer", "offset", N(nan()), "max", 2)},
		{R(S("1"), 4), "offset must be an integer, got 1", D("reason", "not_integer", "offset", R(S("1"), 4), "max", 2)},
		{N(1e21), "offset 1e+21 out of range [0, 2]", D("reason", "out_of_range", "offset", N(1e21), "max", 2)},
		{N(inf()), "offset must be an integer, got Infinity", nil},
		{undef, "offset must be an integer, got undefined", nil},
		{obj, "offset must be an integer, got object", D("reason", "not_integer", "offset", obj, "max", 2)},
	}
	for _, c := range cases {
		_, err := InsertAt(CoreHandle, B("ab"), c.off, S("X"))
		wantErr(t, err, CodeInvalidOffset, c.msg, c.want)
	}
	e, err := InsertAt(CoreHandle, B("ab"), N(1.0), S("X"))
	wantText(t, "ab", e, err, "aXb")
	e, err = InsertAt(CoreHandle, B("ab"), negZ, S("X"))
	wantText(t, "ab", e, err, "Xab")
}

// O7 (S78, S81): text arguments must be strings; details is { reason }.
func TestO7_TextMustBeString(t *testing.T) {
	_, err := ReplaceRange(CoreHandle, B("ab"), N(5), N(1), N(7))
	wantErr(t, err, CodeInvalidOffset, "replaceRange requires a string, got number", D("reason", "not_a_string"))
	_, err = AppendText(CoreHandle, B("ab"), null)
	wantErr(t, err, CodeInvalidOffset, "appendText requires a string, got object", D("reason", "not_a_string"))
	_, err = AppendReasoning(CoreHandle, B("ab"), jsvalue.Opaque(jsvalue.Symbol, 3))
	wantErr(t, err, CodeInvalidOffset, "appendReasoning requires a string, got symbol", D("reason", "not_a_string"))
	_, err = InsertAt(CoreHandle, B("ab"), N(99), fn)
	wantErr(t, err, CodeInvalidOffset, "insertAt requires a string, got function", D("reason", "not_a_string"))
}

// O8 (S81): appendText appends, writes on ”, reads only the length, and
// passes the argument through by identity.
func TestO8_AppendText(t *testing.T) {
	b := B("ab")
	arg := R(S("cd"), 7)
	e, err := AppendText(CoreHandle, b, arg)
	wantText(t, "ab", e, err, "abcd")
	if e.Splices[0].Ins.Ref != 7 || b.unitCalls != 0 {
		t.Fatalf("edit %+v units %d", e, b.unitCalls)
	}
	e, err = AppendText(CoreHandle, B("ab"), S(""))
	wantText(t, "ab", e, err, "ab")
}

// O9: appendReasoning targets the reasoning buffer and writes on ”.
func TestO9_AppendReasoning(t *testing.T) {
	b := B("r")
	e, err := AppendReasoning(CoreHandle, b, S(""))
	wantUnits(t, Reasoning, "r", e, err, jsvalue.U("r"))
	e, err = AppendReasoning(CoreHandle, b, S("s"))
	wantUnits(t, Reasoning, "r", e, err, jsvalue.U("rs"))
	if b.unitCalls != 0 {
		t.Fatal("append must not read content")
	}
}

// O10 (S75, S4): insertAt, text checked before the offset.
func TestO10_InsertAt(t *testing.T) {
	for _, c := range []struct {
		off  float64
		want string
	}{{6, "Hello beautiful world."}, {0, "beautiful Hello world."}, {12, "Hello world.beautiful "}} {
		b := B("Hello world.")
		e, err := InsertAt(CoreHandle, b, N(c.off), S("beautiful "))
		wantText(t, "Hello world.", e, err, c.want)
		if b.unitCalls != 0 {
			t.Fatal("insertAt must not read content")
		}
	}
	_, err := InsertAt(CoreHandle, B("ab"), N(-5), N(1))
	wantErr(t, err, CodeInvalidOffset, "insertAt requires a string, got number", nil)
	// S4: an offset between the halves of a pair splits it.
	e, err := InsertAt(CoreHandle, B("a😀b"), N(2), S("|"))
	wantUnits(t, Text, "a😀b", e, err, []uint16{0x61, 0xd83d, 0x7c, 0xde00, 0x62})
}

// O11 (S78, S79, S80, S4): replaceRange checks text, start, end, order.
func TestO11_ReplaceRange(t *testing.T) {
	_, err := ReplaceRange(CoreHandle, B("ab"), N(-1), N(99), S("x"))
	wantErr(t, err, CodeInvalidOffset, "start -1 out of range [0, 2]", D("reason", "out_of_range", "start", -1, "max", 2))
	_, err = ReplaceRange(CoreHandle, B("ab"), N(0), N(99), S("x"))
	wantErr(t, err, CodeInvalidOffset, "end 99 out of range [0, 2]", D("reason", "out_of_range", "end", 99, "max", 2))
	_, err = ReplaceRange(CoreHandle, B("abcd"), N(3), N(1), S("x"))
	wantErr(t, err, CodeInvalidOffset, "replaceRange end (1) must be >= start (3)", D("reason", "end_before_start", "start", 3, "end", 1))
	e, err := ReplaceRange(CoreHandle, B("abcd"), N(2), N(2), S("X"))
	wantText(t, "abcd", e, err, "abXcd")
	e, err = ReplaceRange(CoreHandle, B("a😀b"), N(1), N(3), S("E"))
	wantText(t, "a😀b", e, err, "aEb")
	e, err = ReplaceRange(CoreHandle, B("a😀b"), N(2), N(4), S(""))
	wantUnits(t, Text, "a😀b", e, err, []uint16{0x61, 0xd83d})
}

// O12 (S79, S80): deleteRange skips the text check and reuses
// replaceRange's messages.
func TestO12_DeleteRange(t *testing.T) {
	_, err := DeleteRange(CoreHandle, B("abcd"), N(3), N(1))
	wantErr(t, err, CodeInvalidOffset, "replaceRange end (1) must be >= start (3)", D("reason", "end_before_start", "start", 3, "end", 1))
	b := B("abcd")
	e, err := DeleteRange(CoreHandle, b, N(1), N(3))
	wantText(t, "abcd", e, err, "ad")
	if b.unitCalls != 0 {
		t.Fatal("deleteRange must not read content")
	}
}

// S29, S30: continue handles; the prefix check belongs to the handle's
// setText, so here only the edits are checked.
func TestS29S30_ContinueEdits(t *testing.T) {
	e, err := InsertAt(CoreHandle, B("aaa"), N(0), S("a"))
	wantText(t, "aaa", e, err, "aaaa")
	e, err = ReplaceRange(CoreHandle, B("Hello world"), N(0), N(5), S("Hello"))
	wantText(t, "Hello world", e, err, "Hello world")
	e, err = DeleteRange(CoreHandle, B("Hello world"), N(0), N(1))
	wantText(t, "Hello world", e, err, "ello world")
}
