package editops

import (
	"strings"
	"testing"

	"tavern-core/jsvalue"
)

func rr(start, end float64, text string) Patch {
	return Patch{Entry: obj, Kind: S("replace_range"), Start: N(start), End: N(end), Text: S(text)}
}
func ia(off float64, text string) Patch {
	return Patch{Entry: obj, Kind: S("insert_at"), Offset: N(off), Text: S(text)}
}
func dr(start, end float64) Patch {
	return Patch{Entry: obj, Kind: S("delete_range"), Start: N(start), End: N(end)}
}
func cr(find, repl jsvalue.Value) Patch {
	return Patch{Entry: obj, Kind: S("context_replace"), Find: find, ReplaceWith: repl}
}

const (
	notFoundMsg  = "find string not present in current message body. The body may have been changed by an earlier patch — re-read getText() and produce a fresh `find` based on the current content."
	ambiguousMsg = "find string is not unique in the current message body. Extend the `find` string to include surrounding context (a few lines before and/or after the target) until it matches exactly one location."
)

// O13 (S105): an empty list does nothing, not even read the buffer.
func TestO13_EmptyArrayIsNoop(t *testing.T) {
	b := B("ab")
	e, err := ApplyPatch(CoreHandle, b, nil)
	if err != nil || !e.Noop || b.lenCalls+b.unitCalls != 0 {
		t.Fatalf("edit %+v err %v calls %d/%d", e, err, b.lenCalls, b.unitCalls)
	}
}

// O14 (S102, S106, S107): entry shapes and kinds.
func TestO14_EntryKinds(t *testing.T) {
	e, err := ApplyPatch(CoreHandle, B("Hello, old world."), []Patch{rr(7, 10, "new")})
	wantText(t, "Hello, old world.", e, err, "Hello, new world.")
	e, err = ApplyPatch(CoreHandle, B("Hello, junk world."), []Patch{dr(5, 11)})
	wantText(t, "Hello, junk world.", e, err, "Hello world.")

	_, err = ApplyPatch(CoreHandle, B(""), []Patch{{Entry: null}})
	wantErr(t, err, CodeInvalidOffset, "patch must be an object, got object", D("reason", "not_an_object", "index", 0))
	_, err = ApplyPatch(CoreHandle, B(""), []Patch{{Entry: S("s")}})
	wantErr(t, err, CodeInvalidOffset, "patch must be an object, got string", D("reason", "not_an_object", "index", 0))
	_, err = ApplyPatch(CoreHandle, B(""), []Patch{{Entry: fn, Kind: S("insert_at"), Offset: N(0), Text: S("x")}})
	wantErr(t, err, CodeInvalidOffset, "patch must be an object, got function", nil)
	_, err = ApplyPatch(CoreHandle, B("ab"), []Patch{ia(0, "x"), {Entry: null}})
	wantErr(t, err, CodeInvalidOffset, "patch must be an object, got object", D("reason", "not_an_object", "index", 1))

	_, err = ApplyPatch(CoreHandle, B(""), []Patch{{Entry: obj, Kind: R(S("nonsense"), 3)}})
	wantErr(t, err, CodeInvalidOffset, "unknown patch kind: nonsense", D("reason", "unknown_kind", "kind", R(S("nonsense"), 3), "index", 0))
	_, err = ApplyPatch(CoreHandle, B(""), []Patch{{Entry: obj}})
	wantErr(t, err, CodeInvalidOffset, "unknown patch kind: undefined", D("reason", "unknown_kind", "kind", undef, "index", 0))
	_, err = ApplyPatch(CoreHandle, B(""), []Patch{{Entry: obj, Kind: S("REPLACE_RANGE")}})
	wantErr(t, err, CodeInvalidOffset, "unknown patch kind: REPLACE_RANGE", nil)
	_, err = ApplyPatch(CoreHandle, B("ab"), []Patch{{Entry: obj, Kind: S("replace_range"), Start: N(0), End: N(1)}})
	wantErr(t, err, CodeInvalidOffset, "replaceRange requires a string, got undefined", D("reason", "not_a_string", "index", 0))
	_, err = ApplyPatch(CoreHandle, B("ab"), []Patch{{Entry: obj, Kind: S("insert_at"), Offset: N(0)}})
	wantErr(t, err, CodeInvalidOffset, "insertAt requires a string, got undefined", nil)
	withText := dr(0, 1)
	withText.Text = S("ZZ")
	e, err = ApplyPatch(CoreHandle, B("abc"), []Patch{withText})
	wantText(t, "abc", e, err, "bc")
}

// O15 (S103, S104, S108, S34): sequential against the scratch, atomic.
func TestO15_SequentialAndAtomic(t *testing.T) {
	b := B("aaa bbb ccc")
	e, err := ApplyPatch(CoreHandle, b, []Patch{rr(0, 3, "AAA"), ia(11, " done")})
	wantText(t, "aaa bbb ccc", e, err, "AAA bbb ccc done")
	if b.unitCalls != 0 {
		t.Fatal("length-only patches must not read content")
	}
	e, err = ApplyPatch(CoreHandle, B("abc"), []Patch{ia(0, "XX"), dr(0, 1)})
	wantText(t, "abc", e, err, "Xabc")
	// S104: the second entry sees the scratch length 4.
	_, err = ApplyPatch(CoreHandle, B("abc"), []Patch{ia(0, "X"), ia(99, "Y")})
	wantErr(t, err, CodeInvalidOffset, "offset 99 out of range [0, 4]", D("reason", "out_of_range", "offset", 99, "max", 4, "index", 1))
	// S108: matching runs against the scratch text.
	_, err = ApplyPatch(CoreHandle, B("cat cat cat"), []Patch{ia(0, ">"), cr(S("cat"), S("dog"))})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", "cat", "replaceWith", "dog", "firstMatch", 1, "secondMatch", 5, "matchCount", 3, "index", 1))
	// S34: intermediate states may break a continue prefix; one edit.
	e, err = ApplyPatch(CoreHandle, B("abcdef"), []Patch{dr(0, 1), ia(0, "a")})
	wantText(t, "abcdef", e, err, "abcdef")
	// A context_replace after edits searches the edited text; the source
	// buffer is read once and never modified.
	b = B("one two three")
	e, err = ApplyPatch(CoreHandle, b, []Patch{rr(4, 7, "TWO"), cr(S("TWO"), S("2")), cr(S("three"), S("3")), ia(0, ">")})
	wantText(t, "one two three", e, err, ">one 2 3")
	if b.unitCalls != 1 || jsvalue.GoString(b.u) != "one two three" {
		t.Fatalf("units calls %d, source %q", b.unitCalls, jsvalue.GoString(b.u))
	}
}

// O16: every entry error carries index after its own keys, 0 for a lone one.
func TestO16_IndexOnEveryEntryError(t *testing.T) {
	_, err := ApplyPatch(CoreHandle, B("abc"), []Patch{cr(S("z"), S("y"))})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, D("find", "z", "replaceWith", "y", "matchCount", 0,
		"nearest", D("offset", 0, "text", "a", "distance", 1), "index", 0))
	_, err = ApplyPatch(CoreHandle, B("abc"), []Patch{ia(0, "x"), ia(0, "y"), cr(S(""), undef)})
	wantErr(t, err, CodePatchNotFound, "context_replace.find must be a non-empty string", D("find", "", "index", 2))
	// patchBySemantic's errors carry no index (O25).
	_, err = PatchBySemantic(CoreHandle, B("abc"), Patch{Entry: obj, Find: S("")})
	wantErr(t, err, CodePatchNotFound, "context_replace.find must be a non-empty string", D("find", ""))
}

// O13: a list longer than MaxPatchEntries fails at the entry past the
// bound, after the entries before it were checked in order (O15); up to
// it, entries are read one at a time and applied in order.
func TestO13_BoundedEntries(t *testing.T) {
	read := 0
	x := func(p *Patch) { read++; *p = ia(0, "x") }
	_, err := ApplyPatches(CoreHandle, B("abc"), MaxPatchEntries, 4_000_000, x)
	wantErr(t, err, CodeInvalidOffset, "applyPatch takes at most 100000 entries, got 4000000",
		D("reason", "too_many_entries", "count", 4_000_000, "max", MaxPatchEntries, "index", MaxPatchEntries))
	if read != MaxPatchEntries {
		t.Fatalf("read %d entries", read)
	}
	// An earlier entry's own failure comes first.
	read = 0
	_, err = ApplyPatches(CoreHandle, B("abc"), MaxPatchEntries, 4_000_000, func(p *Patch) {
		if read++; read == 7 {
			*p = Patch{Entry: null}
		} else {
			*p = ia(0, "x")
		}
	})
	wantErr(t, err, CodeInvalidOffset, "patch must be an object, got object", D("reason", "not_an_object", "index", 6))
	// The handle is checked first (O3), as for any list.
	_, err = ApplyPatches(NotAHandle, B("abc"), 0, 4_000_000, nil)
	wantErr(t, err, CodeInvalidOffset, "handle must be a message editor handle", D("reason", "not_an_object"))
	read = 0
	e, err := ApplyPatches(CoreHandle, B(""), MaxPatchEntries, MaxPatchEntries, x)
	if err != nil || read != MaxPatchEntries || len(e.Splices) != MaxPatchEntries {
		t.Fatalf("at the bound: %v, read %d", err, read)
	}
}

// O17 (S116): find must be a non-empty string; details.find as given.
func TestO17_FindMustBeNonEmptyString(t *testing.T) {
	sym := jsvalue.Opaque(jsvalue.Symbol, 12)
	for _, f := range []jsvalue.Value{R(S(""), 2), null, undef, N(0), obj, sym} {
		b := B("0abc")
		_, err := ApplyPatch(CoreHandle, b, []Patch{cr(f, S("x"))})
		wantErr(t, err, CodePatchNotFound, "context_replace.find must be a non-empty string", D("find", f, "index", 0))
		if b.unitCalls != 0 {
			t.Fatal("invalid arguments must not read content")
		}
	}
}

// O18 (S117): replaceWith strings; undefined/null delete; others rejected.
func TestO18_ReplaceWith(t *testing.T) {
	for _, r := range []jsvalue.Value{undef, null} {
		e, err := ApplyPatch(CoreHandle, B("abc"), []Patch{cr(S("b"), r)})
		wantText(t, "abc", e, err, "ac")
	}
	e, err := ApplyPatch(CoreHandle, B("abc"), []Patch{cr(S("abc"), S(""))})
	wantText(t, "abc", e, err, "")
	_, err = ApplyPatch(CoreHandle, B("abc"), []Patch{cr(S("b"), obj)})
	wantErr(t, err, CodeInvalidOffset, "context_replace.replaceWith must be a string, got object", D("reason", "not_a_string", "index", 0))
	_, err = ApplyPatch(CoreHandle, B("abc"), []Patch{cr(S("b"), N(1))})
	wantErr(t, err, CodeInvalidOffset, "context_replace.replaceWith must be a string, got number", nil)
	// The replacement is the argument itself, by identity.
	e, err = ApplyPatch(CoreHandle, B("abc"), []Patch{cr(S("b"), R(S("B"), 9))})
	wantText(t, "abc", e, err, "aBc")
	if e.Splices[0].Ins.Ref != 9 {
		t.Fatal("replaceWith must pass through with its ref")
	}
	// In details, replaceWith is the normalised string.
	_, err = ApplyPatch(CoreHandle, B("aa"), []Patch{cr(S("a"), null)})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", "a", "replaceWith", "", "firstMatch", 0, "secondMatch", 1, "matchCount", 2, "index", 0))
}

func occ(find, repl string, n jsvalue.Value) Patch {
	p := cr(S(find), S(repl))
	p.Occurrence = n
	return p
}

// O19 (S118): occurrence validation.
func TestO19_Occurrence(t *testing.T) {
	_, err := ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", N(0))})
	wantErr(t, err, CodeInvalidOffset, "occurrence must be >= 1, got 0", D("reason", "out_of_range", "occurrence", 0, "index", 0))
	_, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", N(-3))})
	wantErr(t, err, CodeInvalidOffset, "occurrence must be >= 1, got -3", nil)
	_, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", N(1.5))})
	wantErr(t, err, CodeInvalidOffset, "occurrence must be an integer, got 1.5", D("reason", "not_integer", "occurrence", N(1.5), "index", 0))
	_, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", R(S("2"), 5))})
	wantErr(t, err, CodeInvalidOffset, "occurrence must be an integer, got 2", D("reason", "not_integer", "occurrence", R(S("2"), 5), "index", 0))
	for _, n := range []jsvalue.Value{undef, null} {
		e, err := ApplyPatch(CoreHandle, B("a cat"), []Patch{occ("cat", "dog", n)})
		wantText(t, "a cat", e, err, "a dog")
	}
}

// O20: find, replaceWith, occurrence, then matching; content is read only
// once the arguments are valid.
func TestO20_CheckOrder(t *testing.T) {
	p := cr(N(0), obj)
	p.Occurrence = N(0)
	_, err := ApplyPatch(CoreHandle, B("x"), []Patch{p})
	wantErr(t, err, CodePatchNotFound, "context_replace.find must be a non-empty string", nil)
	p.Find = S("q")
	_, err = ApplyPatch(CoreHandle, B("x"), []Patch{p})
	wantErr(t, err, CodeInvalidOffset, "context_replace.replaceWith must be a string, got object", nil)
	p.ReplaceWith = S("r")
	b := B("x")
	_, err = ApplyPatch(CoreHandle, b, []Patch{p})
	wantErr(t, err, CodeInvalidOffset, "occurrence must be >= 1, got 0", nil)
	if b.unitCalls != 0 {
		t.Fatal("content read before arguments were valid")
	}
}

// O21 (S114): overlapping matches count.
func TestO21_OverlappingMatches(t *testing.T) {
	_, err := ApplyPatch(CoreHandle, B("aaa"), []Patch{cr(S("aa"), S("b"))})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", "aa", "replaceWith", "b", "firstMatch", 0, "secondMatch", 1, "matchCount", 2, "index", 0))
	_, err = ApplyPatch(CoreHandle, B("aaaaa"), []Patch{cr(S("aa"), S("b"))})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", "aa", "replaceWith", "b", "firstMatch", 0, "secondMatch", 1, "matchCount", 4, "index", 0))
}

// O22 (S110, S111, S114, S115, S5): unique, missing and ambiguous finds.
func TestO22_MatchCount(t *testing.T) {
	e, err := ApplyPatch(CoreHandle, B("The cat sat on the mat."), []Patch{cr(S("cat"), S("dog"))})
	wantText(t, "The cat sat on the mat.", e, err, "The dog sat on the mat.")
	find := R(S("xyzzy"), 1)
	repl := R(S("foo"), 2)
	_, err = ApplyPatch(CoreHandle, B("Hello world."), []Patch{cr(find, repl)})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, D("find", find, "replaceWith", repl, "matchCount", 0,
		"nearest", D("offset", 0, "text", "Hello", "distance", 5), "index", 0))
	// S114
	_, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{cr(S("cat"), S("dog"))})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", "cat", "replaceWith", "dog", "firstMatch", 0, "secondMatch", 4, "matchCount", 2, "index", 0))
	if !strings.Contains(jsvalue.GoString(err.Message), "Extend the `find` string") {
		t.Fatal("message")
	}
	// S115: case-sensitive.
	_, err = ApplyPatch(CoreHandle, B("Hello World."), []Patch{cr(S("hello world."), S(""))})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, nil)
	// S5: no normalisation.
	_, err = PatchBySemantic(CoreHandle, B("cafe\u0301"), Patch{Entry: obj, Find: S("café")})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, nil)
	// Lone surrogates match exactly, and a pair half matches alone.
	e, err = ApplyPatch(CoreHandle, B("a😀b"), []Patch{cr(jsvalue.Str([]uint16{0xde00}), S("!"))})
	wantUnits(t, Text, "a😀b", e, err, []uint16{'a', 0xd83d, '!', 'b'})
}

// O23 (S118): occurrence selects the n-th overlapping match.
func TestO23_OccurrenceSelects(t *testing.T) {
	e, err := ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", N(2))})
	wantText(t, "cat cat", e, err, "cat dog")
	e, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", N(1))})
	wantText(t, "cat cat", e, err, "dog cat")
	e, err = ApplyPatch(CoreHandle, B("aaa"), []Patch{occ("aa", "b", N(2))})
	wantText(t, "aaa", e, err, "ab")
	_, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", N(3))})
	wantErr(t, err, CodePatchNotFound, "occurrence 3 exceeds match count 2", D("find", "cat", "replaceWith", "dog", "occurrence", 3, "matchCount", 2, "index", 0))
	_, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{occ("cat", "dog", N(1e21))})
	wantErr(t, err, CodePatchNotFound, "occurrence 1e+21 exceeds match count 2", nil)
	_, err = ApplyPatch(CoreHandle, B("abc"), []Patch{occ("z", "y", N(2))})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, D("find", "z", "replaceWith", "y", "matchCount", 0,
		"nearest", D("offset", 0, "text", "a", "distance", 1), "occurrence", 2, "index", 0))
}

// O25 (S119, S31): patchBySemantic is one context replace.
func TestO25_PatchBySemantic(t *testing.T) {
	spec := Patch{Entry: obj, Kind: S("insert_at"), Offset: N(0), Text: S("Q"), Find: S("b"), ReplaceWith: S("B")}
	e, err := PatchBySemantic(CoreHandle, B("abc"), spec)
	wantText(t, "abc", e, err, "aBc")
	_, err = PatchBySemantic(CoreHandle, B("abc"), Patch{Entry: null})
	wantErr(t, err, CodeInvalidOffset, "patchBySemantic spec must be an object, got object", D("reason", "not_an_object"))
	_, err = PatchBySemantic(CoreHandle, B("abc"), Patch{Entry: N(1)})
	wantErr(t, err, CodeInvalidOffset, "patchBySemantic spec must be an object, got number", D("reason", "not_an_object"))
	// S31: the edit is computed; the continue check is the handle's.
	e, err = PatchBySemantic(CoreHandle, B("Hello world"), Patch{Entry: obj, Find: S("Hello"), ReplaceWith: S("Bye")})
	wantText(t, "Hello world", e, err, "Bye world")
	_, err = PatchBySemantic(CoreHandle, B("cat cat"), Patch{Entry: obj, Find: S("cat"), ReplaceWith: S("dog")})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", "cat", "replaceWith", "dog", "firstMatch", 0, "secondMatch", 4, "matchCount", 2))
}

// O21/O22 through a Buffer's own IndexOf: unedited content is searched
// without being copied; Units is pulled only for edited scratch values and
// for a near-miss search inside the budget.
func TestO22_SearchThroughIndexer(t *testing.T) {
	b := IX("The cat sat on the mat.")
	e, err := PatchBySemantic(CoreHandle, b, Patch{Entry: obj, Find: S("cat"), ReplaceWith: S("dog")})
	wantText(t, "The cat sat on the mat.", e, err, "The dog sat on the mat.")
	if b.unitCalls != 0 || b.indexCalls != 2 {
		t.Fatalf("units %d index %d", b.unitCalls, b.indexCalls)
	}
	b = IX("aaaa")
	_, err = PatchBySemantic(CoreHandle, b, Patch{Entry: obj, Find: S("aa")})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", "aa", "replaceWith", "", "firstMatch", 0, "secondMatch", 1, "matchCount", 3))
	if b.unitCalls != 0 {
		t.Fatal("ambiguity needs no content")
	}
	b = IX(strings.Repeat("a", 10000))
	_, err = PatchBySemantic(CoreHandle, b, Patch{Entry: obj, Find: S(strings.Repeat("b", 100))})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, D("find", strings.Repeat("b", 100), "replaceWith", "", "matchCount", 0))
	if b.unitCalls != 0 {
		t.Fatal("over the budget the content is not needed")
	}
	b = IX("Hello world.")
	_, err = PatchBySemantic(CoreHandle, b, Patch{Entry: obj, Find: S("xyzzy")})
	wantErr(t, err, CodePatchNotFound, notFoundMsg, D("find", "xyzzy", "replaceWith", "", "matchCount", 0,
		"nearest", D("offset", 0, "text", "Hello", "distance", 5)))
	if b.unitCalls != 1 {
		t.Fatal("the near-miss search reads content once")
	}
	// After an edit the scratch lives in Go; later searches use it.
	b = IX("one two")
	e, err = ApplyPatch(CoreHandle, b, []Patch{cr(S("one"), S("1")), cr(S("two"), S("2")), ia(0, ">"), cr(S(">1"), S("<"))})
	wantText(t, "one two", e, err, "< 2")
	if b.unitCalls != 1 || b.indexCalls != 2 {
		t.Fatalf("units %d index %d", b.unitCalls, b.indexCalls)
	}
}

// S109: a valid applyPatch is computed whatever the handle's state; the
// caller's single setText raises editor_committed, which carries no index
// because it never passes through ApplyPatch's error path.
func TestS109_ValidPatchIsAnEdit(t *testing.T) {
	e, err := ApplyPatch(CoreHandle, B("abc"), []Patch{ia(0, "x"), cr(S("b"), S("B"))})
	wantText(t, "abc", e, err, "xaBc")
	if len(e.Splices) != 2 || e.Noop {
		t.Fatalf("%+v", e)
	}
}

// Luker's newest context_replace spells find/replaceWith as
// oldString/newString (O17, O18, O22, O25): both spellings work; when a
// patch gives both, find/replaceWith win; a nullish spec field falls back to
// the alias; messages name the field that was read, details keep the spec's
// keys.
func TestO17O18_OldStringNewStringAliases(t *testing.T) {
	luker := func(old, new jsvalue.Value) Patch {
		return Patch{Entry: obj, Kind: S("context_replace"), OldString: old, NewString: new}
	}
	e, err := ApplyPatch(CoreHandle, B("The cat sat."), []Patch{luker(S("cat"), S("dog"))})
	wantText(t, "The cat sat.", e, err, "The dog sat.")
	e, err = PatchBySemantic(CoreHandle, B("The cat sat."), luker(S("sat"), S("stood")))
	wantText(t, "The cat sat.", e, err, "The cat stood.")
	// Both given: the spec's names win, whatever the alias says.
	both := Patch{Entry: obj, Kind: S("context_replace"), Find: S("cat"), ReplaceWith: S("dog"), OldString: S("sat"), NewString: S("ran")}
	e, err = ApplyPatch(CoreHandle, B("The cat sat."), []Patch{both})
	wantText(t, "The cat sat.", e, err, "The dog sat.")
	// Mixed spellings fill each other in.
	mixed := Patch{Entry: obj, Kind: S("context_replace"), Find: null, OldString: S("cat"), NewString: S("cow")}
	e, err = ApplyPatch(CoreHandle, B("The cat sat."), []Patch{mixed})
	wantText(t, "The cat sat.", e, err, "The cow sat.")
	// An empty spec string is a value: it wins and is refused.
	_, err = ApplyPatch(CoreHandle, B("cat"), []Patch{{Entry: obj, Kind: S("context_replace"), Find: S(""), OldString: S("cat")}})
	wantErr(t, err, CodePatchNotFound, "context_replace.find must be a non-empty string", D("find", S(""), "index", 0))
	// Neither given: the spec's field and its value as given (S116).
	_, err = ApplyPatch(CoreHandle, B("cat"), []Patch{{Entry: obj, Kind: S("context_replace"), Find: null}})
	wantErr(t, err, CodePatchNotFound, "context_replace.find must be a non-empty string", D("find", null, "index", 0))
	_, err = ApplyPatch(CoreHandle, B("cat"), []Patch{luker(S(""), S("x"))})
	wantErr(t, err, CodePatchNotFound, "context_replace.oldString must be a non-empty string", D("find", S(""), "index", 0))
	_, err = ApplyPatch(CoreHandle, B("cat"), []Patch{luker(S("cat"), N(5))})
	wantErr(t, err, CodeInvalidOffset, "context_replace.newString must be a string, got number", D("reason", "not_a_string", "index", 0))
	// newString absent deletes the match, as replaceWith does (O18).
	e, err = ApplyPatch(CoreHandle, B("abc"), []Patch{luker(S("b"), undef)})
	wantText(t, "abc", e, err, "ac")
	// Not found and ambiguous report the spec's detail keys.
	_, err = ApplyPatch(CoreHandle, B("cat cat"), []Patch{luker(S("cat"), S("dog"))})
	wantErr(t, err, CodePatchAmbiguous, ambiguousMsg, D("find", S("cat"), "replaceWith", S("dog"), "firstMatch", 0, "secondMatch", 4, "matchCount", 2, "index", 0))
}
