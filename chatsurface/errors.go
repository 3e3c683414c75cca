package chatsurface

// Class names the JavaScript constructor the bridge must throw an *Error as.
type Class uint8

const (
	ClassError Class = iota
	ClassTypeError
	ClassRangeError
)

// String returns the JS constructor name.
func (c Class) String() string {
	switch c {
	case ClassTypeError:
		return "TypeError"
	case ClassRangeError:
		return "RangeError"
	}
	return "Error"
}

// Stable error codes. The JS message is the contract (the spec fixes it
// exactly); the code lets Go callers and logs branch without parsing text.
const (
	CodeInvalidArgument = "invalid-argument" // bad value from JS; never faults by itself
	CodeRegistration    = "registration"
	CodeProjection      = "projection"
	CodeContract        = "participant-contract" // a hook or activate broke its contract
	CodeOwnership       = "ownership"            // DOM ownership diverged
	CodeCleanup         = "cleanup"
	CodeFaulted         = "epoch-faulted"
	CodeDisposed        = "host-disposed"
	CodeReentered       = "reentered"
	CodeState           = "invalid-state"
	CodeAdmission       = "admission"
	CodeParticipant     = "participant-fault"
	CodeProcessor       = "content-processor"
)

// Error is an error created by the core. The bridge materialises each *Error
// into ONE JS error object (memoised by pointer), so the value thrown to a
// caller, getFault(), onFault and a later cause are the identical object (C103).
type Error struct {
	Class   Class
	Code    string
	Message string // WTF-8: echoed JS text round-trips exactly
	Cause   error  // nil, *Error or *JSValue
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Cause }

func newError(code, msg string) *Error { return &Error{Class: ClassError, Code: code, Message: msg} }
func newTypeError(code, msg string) *Error {
	return &Error{Class: ClassTypeError, Code: code, Message: msg}
}
func newRangeError(code, msg string) *Error {
	return &Error{Class: ClassRangeError, Code: code, Message: msg}
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
	return &Error{Class: ClassError, Code: CodeFaulted, Message: "ChatSurface epoch is faulted", Cause: cause}
}

func errDisposed() *Error { return newError(CodeDisposed, "ChatSurface host is disposed") }
