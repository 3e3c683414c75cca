package bridge

import (
	"strconv"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// MaxDepth is how many calls into the module may be active at once. A call
// made from inside a callback that Go called out to (onUpdate, a host
// effect) nests inside the call that ran it, and every level holds Go and
// JavaScript frames on the engine's one native stack. Measured with
// cross-handle onUpdate → setText chains, that stack ran out after about
// 665 levels in Node and 451 in Chromium — inside Go, where the runtime
// cannot recover ("fatal error: unexpected signal"). So calls deeper than
// MaxDepth are refused with a coded error before they do anything; 64 is
// far beyond what plugins nest and far below where engines fail.
const MaxDepth = 64

// CodeTooDeep is the refused call's error code.
const CodeTooDeep = "reentry_too_deep"

var depth int

// Enter counts an export's entry. It returns false, with the error stored
// for the facade (status Failed), when the call would nest deeper than
// MaxDepth; nothing else has happened then. A call that entered defers
// Exit:
//
//	if !bridge.Enter() {
//		return bridge.Failed
//	}
//	defer bridge.Exit(&status)
func Enter() bool {
	if depth >= MaxDepth {
		Fail(apierr.New(apierr.Internal, CodeTooDeep,
			"tavern-core: calls nested more than "+strconv.Itoa(MaxDepth)+" deep through callbacks; this call was refused").
			With("depth", jsvalue.Int(MaxDepth)))
		return false
	}
	depth++
	return true
}

// Exit ends an entered call and contains its panics (Contain).
func Exit(status *int32) {
	depth--
	if r := recover(); r != nil {
		*status = Fail(Internal(r))
	}
}
