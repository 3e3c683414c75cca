// Package editops is the pure logic of the editor ops (spec takeover.md
// §10–11): argument validation, patch application, context matching with
// near-miss hints, reasoning sections and pipeFrom's option and chunk rules.
//
// An op never writes and never builds the final JS string. It validates and
// returns an Edit: splices applied in order to the current value of one
// buffer. The caller writes the result through the handle's setText or
// setReasoning semantics, which raise the handle's own errors (editor_*,
// invalid_op_for_continue). Because every op only computes, all validation,
// including matching, finishes before anything is written (O4).
package editops

import "tavern-core/jsvalue"

// Buffer is the current value of a handle's text or reasoning. Len is cheap;
// Units costs the caller an O(n) copy out of JS, so ops call it only when a
// rule needs content, at most once per op, and never modify what it returns.
// A bridge may abort an op by panicking inside Len or Units (for a duck-typed
// handle whose getText throws): ops hold no state, so nothing is left behind.
// Len and Units are called where the reference calls getText()/getReasoning().
type Buffer interface {
	Len() int
	Units() []uint16
}

// Indexer is an optional Buffer capability: IndexOf is
// String.prototype.indexOf(sub, from) on the current value, where sub is the
// op's find argument as given (its Ref names the JS string). When a Buffer has
// it, a context_replace on unedited content searches through it instead of
// pulling the content with Units: the facade then makes one indexOf call per
// match enumerated (two for a unique match) and copies nothing. Units is still
// used when earlier entries of the same applyPatch changed the scratch value,
// and for the near-miss search of a failed match.
type Indexer interface {
	IndexOf(sub jsvalue.Value, from int) int
}

// Target names the buffer an Edit writes.
type Target uint8

const (
	Text      Target = iota // write with setText
	Reasoning               // write with setReasoning
)

// Splice replaces [Start, End) of the value produced by the previous splices
// with Ins, a String value. When Ins is one of the op's arguments it is that
// argument's Value unchanged (Ref set), so the facade can reuse the original
// JS string; text the core builds has Ref 0 and its units in Ins.Str.
type Splice struct {
	Start, End int
	Ins        jsvalue.Value
}

// Edit is an op's result. When Noop is set the op has nothing to do and the
// caller must make no write (O13 empty array, O35 existing section, O36 empty
// delta). Otherwise the caller makes exactly one write of Buf, even when
// Splices leave the value unchanged (O5).
type Edit struct {
	Buf     Target
	Splices []Splice
	Noop    bool
	// Split, when not 0, is where the next op on the result is expected to
	// cut it (the body end of the last section just appended to): a facade
	// that keeps the result as the two strings either side of Split can
	// serve that op without slicing, and so without V8 flattening, the
	// whole value.
	Split int
	// Permit (on a kept layout only) is Sections.AppendsAtEnd of the
	// appended section on the result.
	Permit bool
}

// Apply returns cur with the splices applied in order. It is the Go-side
// mirror of what the facade does with JS strings; cur is not modified.
func Apply(cur []uint16, s []Splice) []uint16 {
	out := append([]uint16(nil), cur...)
	for _, sp := range s {
		out = splice(out, sp.Start, sp.End, sp.Ins.Str)
	}
	return out
}

// splice replaces buf[start:end] with ins in place when capacity allows.
func splice(buf []uint16, start, end int, ins []uint16) []uint16 {
	n := len(buf) - (end - start) + len(ins)
	if n > cap(buf) {
		out := make([]uint16, n, n+n/4+16)
		copy(out, buf[:start])
		copy(out[start:], ins)
		copy(out[start+len(ins):], buf[end:])
		return out
	}
	tail := len(buf) - end
	buf = buf[:max(len(buf), n)]
	copy(buf[start+len(ins):start+len(ins)+tail], buf[end:end+tail])
	copy(buf[start:], ins)
	return buf[:n]
}

// HandleKind is the facade's classification of an op's first argument (O3).
type HandleKind uint8

const (
	NotAHandle HandleKind = iota // anything else: rejected
	CoreHandle                   // made by createMessageEditorHandle
	DuckHandle                   // an object whose getText, getReasoning, setText and setReasoning are functions
	// DuckNonString is a DuckHandle whose getText or getReasoning, read for
	// the op, returned something other than a string. It has no text to
	// slice or search, so it is rejected as not a handle (O3) rather than
	// written with a value computed from nothing.
	DuckNonString
)
