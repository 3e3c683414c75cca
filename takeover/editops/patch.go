package editops

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// Patch is one applyPatch entry as the facade read it: the entry itself (for
// the not-an-object check) and every field the rules read, Undefined when
// absent. String fields must carry their units in Str.
//
// OldString and NewString are Luker's newest spelling of a context_replace's
// Find and ReplaceWith (its tool schema requires them). For each pair the
// spec's field is used unless it is undefined or null and the alias holds a
// value: a patch that gives both reads as find/replaceWith.
type Patch struct {
	Entry                          jsvalue.Value
	Kind, Start, End, Offset, Text jsvalue.Value
	Find, ReplaceWith, Occurrence  jsvalue.Value
	OldString, NewString           jsvalue.Value
}

// PatchFields names the properties of a patch entry the facade reads, in
// the order they cross (after the entry itself); oldString and newString
// are Luker's newest spelling of find and replaceWith.
var PatchFields = [...]string{"kind", "start", "end", "offset", "text", "find", "replaceWith", "occurrence", "oldString", "newString"}

// Fields are the entry itself, then the field each of PatchFields fills.
func (p *Patch) Fields() [1 + len(PatchFields)]*jsvalue.Value {
	return [...]*jsvalue.Value{&p.Entry, &p.Kind, &p.Start, &p.End, &p.Offset, &p.Text, &p.Find, &p.ReplaceWith, &p.Occurrence, &p.OldString, &p.NewString}
}

// contextArgs picks the find and replacement fields of p, with the names
// the error messages use.
func (p *Patch) contextArgs() (ctxArg, ctxArg) {
	return pick(p.Find, "find", p.OldString, "oldString"), pick(p.ReplaceWith, "replaceWith", p.NewString, "newString")
}

// ctxArg is one context_replace argument and the field it came from.
type ctxArg struct {
	v    jsvalue.Value
	name string
}

func pick(v jsvalue.Value, name string, alias jsvalue.Value, aliasName string) ctxArg {
	if nullish(v) && !nullish(alias) {
		return ctxArg{alias, aliasName}
	}
	return ctxArg{v, name}
}

func nullish(v jsvalue.Value) bool { return v.Kind == jsvalue.Undefined || v.Kind == jsvalue.Null }

// MaxPatchEntries bounds one applyPatch call. The spec sets none; a bound
// keeps a page's array length from sizing the work (each entry becomes a
// splice). No tool produces anywhere near this many.
const MaxPatchEntries = 100_000

// ApplyPatch is O13–O16 over a list already read (ApplyPatches).
func ApplyPatch(h HandleKind, text Buffer, entries []Patch) (Edit, *apierr.Error) {
	k := 0
	return ApplyPatches(h, text, len(entries), len(entries), func(p *Patch) { *p = entries[k]; k++ })
}

// ApplyPatches is O13–O16 for a list of total entries of which the first n
// (at most MaxPatchEntries) are read one at a time with next, never held
// together. They are validated and applied in order to a scratch value;
// the first failure returns that entry's error with details.index appended
// and no edit. Entry MaxPatchEntries, when the list has one, fails as an
// entry past the bound (reason too_many_entries): the entries before it are
// checked first, as O15 orders. On success the Edit holds one splice per
// entry, for a single setText. An empty list is a Noop. Units is called at
// most once, and only if an entry is a context_replace.
func ApplyPatches(h HandleKind, text Buffer, n, total int, next func(*Patch)) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	if total == 0 {
		return Edit{Buf: Text, Noop: true}, nil
	}
	sc := scratch{src: text, n: text.Len()}
	var p Patch
	for k := 0; k < min(n, MaxPatchEntries); k++ {
		next(&p)
		sp, err := sc.entry(&p)
		if err != nil {
			return Edit{}, err.With("index", jsvalue.Int(k))
		}
		sc.push(sp)
	}
	if total > min(n, MaxPatchEntries) {
		return Edit{}, invalid(ReasonTooMany, jsvalue.U("applyPatch takes at most "+itoa(MaxPatchEntries)+" entries, got "+itoa(total))).
			With("count", jsvalue.Int(total)).With("max", jsvalue.Int(MaxPatchEntries)).With("index", jsvalue.Int(MaxPatchEntries))
	}
	return Edit{Buf: Text, Splices: sc.splices}, nil
}

// PatchBySemantic is O25: one context replace from spec's find, replaceWith
// and occurrence; spec.Kind and other fields are ignored, and errors carry no
// index. spec.Entry is the spec argument itself.
func PatchBySemantic(h HandleKind, text Buffer, spec Patch) (Edit, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return Edit{}, err
	}
	if !isPlainObject(spec.Entry) {
		return Edit{}, invalid(ReasonNotAnObject, typeofMsg("patchBySemantic spec must be an object, got ", spec.Entry))
	}
	sc := scratch{src: text, n: text.Len()}
	find, repl := spec.contextArgs()
	sp, err := contextReplace(&sc, find, repl, spec.Occurrence)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Buf: Text, Splices: []Splice{sp}}, nil
}

var kindNames = [...]string{"replace_range", "insert_at", "delete_range", "context_replace"}

// entry validates one patch against the scratch value (O14).
func (sc *scratch) entry(p *Patch) (Splice, *apierr.Error) {
	if !isPlainObject(p.Entry) {
		return Splice{}, invalid(ReasonNotAnObject, typeofMsg("patch must be an object, got ", p.Entry))
	}
	kind := -1
	if p.Kind.Kind == jsvalue.String {
		for i, name := range kindNames {
			if unitsEqualASCII(p.Kind.Str, name) {
				kind = i
				break
			}
		}
	}
	switch kind {
	case 0:
		if err := checkString("replaceRange", p.Text); err != nil {
			return Splice{}, err
		}
		return rangeSplice(sc.n, p.Start, p.End, p.Text)
	case 1:
		if err := checkString("insertAt", p.Text); err != nil {
			return Splice{}, err
		}
		return insertSplice(sc.n, p.Offset, p.Text)
	case 2:
		return rangeSplice(sc.n, p.Start, p.End, emptyString)
	case 3:
		find, repl := p.contextArgs()
		return contextReplace(sc, find, repl, p.Occurrence)
	}
	msg := jsvalue.Cat(jsvalue.U("unknown patch kind: "), p.Kind.Display())
	return Splice{}, invalid(ReasonUnknownKind, msg).With("kind", p.Kind)
}

func unitsEqualASCII(u []uint16, s string) bool {
	if len(u) != len(s) {
		return false
	}
	for i := range u {
		if u[i] != uint16(s[i]) {
			return false
		}
	}
	return true
}

// scratch is applyPatch's working value. Until an entry needs content it is
// only a length and a list of splices; content is fetched once, read in place
// while unchanged, and copied only when a splice must be applied before a
// later search.
type scratch struct {
	src     Buffer
	n       int      // current length
	base    []uint16 // src.Units(), read-only; nil until fetched
	fetched bool
	buf     []uint16 // owned copy once a splice has been applied to content
	applied int      // splices reflected in the content
	splices []Splice
}

func (sc *scratch) push(sp Splice) {
	sc.n += len(sp.Ins.Str) - (sp.End - sp.Start)
	sc.splices = append(sc.splices, sp)
}

// units returns the current content, applying pending splices.
func (sc *scratch) units() []uint16 {
	if !sc.fetched {
		sc.base, sc.fetched = sc.src.Units(), true
	}
	if sc.applied == len(sc.splices) {
		if sc.buf != nil {
			return sc.buf
		}
		return sc.base
	}
	if sc.buf == nil {
		sc.buf = make([]uint16, len(sc.base), len(sc.base)+len(sc.base)/8+64)
		copy(sc.buf, sc.base)
	}
	for _, sp := range sc.splices[sc.applied:] {
		sc.buf = splice(sc.buf, sp.Start, sp.End, sp.Ins.Str)
	}
	sc.applied = len(sc.splices)
	return sc.buf
}

// finder is indexOf(find, from) on the scratch value: through the Buffer's
// own IndexOf while the value is unedited and unfetched, so the facade copies
// nothing, otherwise over the content in Go.
type finder struct {
	ix   Indexer
	find jsvalue.Value
	text []uint16
	mt   matcher
}

func (sc *scratch) finder(find jsvalue.Value) finder {
	if ix, ok := sc.src.(Indexer); ok && len(sc.splices) == 0 && !sc.fetched {
		return finder{ix: ix, find: find}
	}
	return finder{text: sc.units(), mt: newMatcher(find.Str)}
}

func (f *finder) index(from int) int {
	if f.ix != nil {
		return f.ix.IndexOf(f.find, from)
	}
	return f.mt.index(f.text, from)
}
