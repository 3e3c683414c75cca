package editops

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

const (
	msgNotFound  = "find string not present in current message body. The body may have been changed by an earlier patch — re-read getText() and produce a fresh `find` based on the current content."
	msgAmbiguous = "find string is not unique in the current message body. Extend the `find` string to include surrounding context (a few lines before and/or after the target) until it matches exactly one location."
)

// contextReplace is O17–O24 against the scratch value, whose content it
// touches only once the arguments are valid (O20: find, replaceWith,
// occurrence, then matching). Messages name the field each argument came
// from (find or oldString, replaceWith or newString, Patch); details keep
// the spec's keys.
func contextReplace(sc *scratch, findArg, replArg ctxArg, occurrence jsvalue.Value) (Splice, *apierr.Error) {
	find := findArg.v
	if find.Kind != jsvalue.String || len(find.Str) == 0 {
		return Splice{}, apierr.New(apierr.EditorOpsError, CodePatchNotFound, "context_replace."+findArg.name+" must be a non-empty string").With("find", find)
	}
	repl := replArg.v
	switch repl.Kind {
	case jsvalue.Undefined, jsvalue.Null:
		repl = emptyString
	case jsvalue.String:
	default:
		return Splice{}, invalid(ReasonNotAString, typeofMsg("context_replace."+replArg.name+" must be a string, got ", repl))
	}
	hasOcc := occurrence.Kind != jsvalue.Undefined && occurrence.Kind != jsvalue.Null
	if hasOcc {
		if !occurrence.IsInteger() {
			msg := jsvalue.Cat(jsvalue.U("occurrence must be an integer, got "), occurrence.Display())
			return Splice{}, invalid(ReasonNotInteger, msg).With("occurrence", occurrence)
		}
		if occurrence.Num < 1 {
			msg := jsvalue.Cat(jsvalue.U("occurrence must be >= 1, got "), occurrence.Display())
			return Splice{}, invalid(ReasonOutOfRange, msg).With("occurrence", occurrence)
		}
	}

	m := len(find.Str)
	f := sc.finder(find)
	defer f.mt.release()
	p1 := f.index(0)
	if p1 < 0 {
		e := apierr.New(apierr.EditorOpsError, CodePatchNotFound, msgNotFound).
			With("find", find).With("replaceWith", repl).With("matchCount", jsvalue.Int(0))
		// The budget depends on lengths only, so content is pulled just
		// when the search will run.
		if nearMissAllowed(sc.n, m) {
			text := sc.units()
			off, d, _ := nearest(text, find.Str)
			w := min(len(text), m)
			hint := jsvalue.NewObj().
				Set("offset", jsvalue.Int(off)).
				Set("text", jsvalue.Str(append([]uint16(nil), text[off:off+w]...))).
				Set("distance", jsvalue.Int(d))
			e.With("nearest", jsvalue.ObjValue(hint))
		}
		if hasOcc {
			e.With("occurrence", occurrence)
		}
		return Splice{}, e
	}

	if hasOcc {
		// O23: the n-th overlapping match, counting all of them only to
		// report a shortfall.
		at, count := p1, 1
		for float64(count) < occurrence.Num {
			next := f.index(at + 1)
			if next < 0 {
				msg := jsvalue.Cat(jsvalue.U("occurrence "), occurrence.Display(), jsvalue.U(" exceeds match count "+itoa(count)))
				return Splice{}, apierr.NewU(apierr.EditorOpsError, CodePatchNotFound, msg).
					With("find", find).With("replaceWith", repl).With("occurrence", occurrence).With("matchCount", jsvalue.Int(count))
			}
			at, count = next, count+1
		}
		return Splice{at, at + m, repl}, nil
	}

	p2 := f.index(p1 + 1)
	if p2 < 0 {
		return Splice{p1, p1 + m, repl}, nil
	}
	count := 2
	for at := f.index(p2 + 1); at >= 0; at = f.index(at + 1) {
		count++
	}
	return Splice{}, apierr.New(apierr.EditorOpsError, CodePatchAmbiguous, msgAmbiguous).
		With("find", find).With("replaceWith", repl).
		With("firstMatch", jsvalue.Int(p1)).With("secondMatch", jsvalue.Int(p2)).With("matchCount", jsvalue.Int(count))
}
