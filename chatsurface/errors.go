package chatsurface

import "tavern-core/apierr"

// Stable error codes, spelled as the apierr cores' are (takeover, editor
// ops). The JS message is the contract (the spec fixes it exactly); the code
// lets Go callers and logs branch without parsing text.
const (
	CodeInvalidArgument = "invalid_argument" // bad value from JS; never faults by itself
	CodeRegistration    = "registration"
	CodeProjection      = "projection"
	CodeContract        = "participant_contract" // a hook or activate broke its contract
	CodeOwnership       = "ownership"            // DOM ownership diverged
	CodeCleanup         = "cleanup"
	CodeFaulted         = "epoch_faulted"
	CodeDisposed        = "host_disposed"
	CodeReentered       = "reentered"
	CodeState           = "invalid_state"
	CodeAdmission       = "admission"
	CodeParticipant     = "participant_fault"
	CodeProcessor       = "content_processor"
)

// Error is an error created by the core. The bridge materialises each *Error
// into ONE JS error object (memoised by pointer), so the value thrown to a
// caller, getFault(), onFault and a later cause are the identical object (C103).
// Its class is an apierr.Class, published once in js/protocol.js (CLASS). It
// is not an *apierr.Error because its cause is a Go chain (nil, *Error or a
// thrown *JSValue) that the edge turns into JS objects by identity, and its
// text is WTF-8 like the core's Values.
type Error struct {
	_       noCompare
	Class   apierr.Class // PlainError, TypeError or RangeError
	Code    string
	Message string // WTF-8: echoed JS text round-trips exactly
	Cause   error  // nil, *Error or *JSValue
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Cause }

func newError(code, msg string) *Error {
	return &Error{Class: apierr.PlainError, Code: code, Message: msg}
}

// causedError is a plain Error with a cause (C103's chain).
func causedError(code, msg string, cause error) *Error {
	return &Error{Class: apierr.PlainError, Code: code, Message: msg, Cause: cause}
}

func newTypeError(code, msg string) *Error {
	return &Error{Class: apierr.TypeError, Code: code, Message: msg}
}
func newRangeError(code, msg string) *Error {
	return &Error{Class: apierr.RangeError, Code: code, Message: msg}
}

// JSValue is a value thrown by JS code (a hook, a disposer, activate, a host
// callback, a getter). Go never looks inside: Ref names the thrown value so the
// bridge can rethrow it by identity (C6), and ErrorRef names its C6 error value
// (Ref itself when the value is an Error instance), computed by the bridge once
// when it caught the value so that every fault sees the same object.
type JSValue struct {
	Ref      Ref
	ErrorRef Ref
}

func (v *JSValue) Error() string { return "JavaScript exception" }

// errorValue is C6's error value of err: what a fault records.
func errorValue(err error) error {
	if v, ok := err.(*JSValue); ok && v.Ref != v.ErrorRef {
		return &JSValue{Ref: v.ErrorRef, ErrorRef: v.ErrorRef}
	}
	return err
}

func errFaulted(cause error) *Error {
	return causedError(CodeFaulted, "ChatSurface epoch is faulted", cause)
}

func errDisposed() *Error { return newError(CodeDisposed, "ChatSurface host is disposed") }
