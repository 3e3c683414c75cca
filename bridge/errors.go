package bridge

import (
	"runtime"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// Status values of fast-lane calls.
const (
	OK     = 0
	Failed = -1 // an error record waits (tc_err)
)

// last is the pending error record, cleared when read.
var last *apierr.Error

// Fail stores err for the facade and returns Failed.
func Fail(err *apierr.Error) int32 {
	last = err
	return Failed
}

// Contain turns a panic into an `internal` error. Every export defers it:
//
//	defer bridge.Contain(&status)
func Contain(status *int32) {
	if r := recover(); r != nil {
		*status = Fail(Internal(r))
	}
}

// Internal describes a recovered panic: the one formatter for both
// binaries (a JS exception surfacing through syscall/js is an error whose
// text names it). A panic with an `internal` *apierr.Error keeps that
// error.
func Internal(r any) *apierr.Error {
	if e, ok := r.(*apierr.Error); ok && e.Class == apierr.Internal {
		return e // already coded (Args): its code says what broke
	}
	msg := "tavern-core internal error: "
	switch v := r.(type) {
	case error:
		msg += errorText(v)
	case string:
		msg += v
	default:
		msg += "panic"
	}
	// The first frames below the panic tell a maintainer where it was.
	// runtime.Stack, not runtime/debug: that package links fmt, os and time.
	b := make([]byte, 4096)
	stack := string(b[:runtime.Stack(b, false)])
	// By hand, not strings.Index: the strings package's import alone links
	// the unicode package's init into the browser module.
	for i := 0; i+len("panic(") <= len(stack); i++ {
		if stack[i:i+len("panic(")] == "panic(" {
			stack = stack[i:]
			break
		}
	}
	if len(stack) > 1500 {
		stack = stack[:1500]
	}
	return apierr.New(apierr.Internal, "internal", msg).With("stack", jsvalue.ASCII(stack))
}

// errorText is err.Error(), never a panic: it runs inside a containment,
// where a panic of its own would end the program. describeError, set under
// js/wasm (slowlane.go), describes a thrown JS value: syscall/js's own text
// reads .message from whatever was thrown and panics on a number or null.
func errorText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = "an error that cannot describe itself"
		}
	}()
	if describeError != nil {
		if d, ok := describeError(err); ok {
			return d
		}
	}
	return err.Error()
}

var describeError func(error) (string, bool)

// EncodeErr writes an error record: class unit, code, message, details,
// cause.
func EncodeErr(e *Encoder, err *apierr.Error) {
	e.Unit(uint16(err.Class))
	e.Units(jsvalue.U(err.Code))
	e.Units(err.Message)
	if err.Details == nil {
		e.Unit(TagNull)
	} else {
		e.Record(err.Details)
	}
	if err.Cause.Kind == jsvalue.Undefined && err.Cause.Ref == 0 {
		e.Unit(TagNull)
	} else {
		e.Value(err.Cause)
	}
}
