//go:build js && wasm

package bridge

import (
	"syscall/js"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// The slow lane: every entry from JavaScript into Go that is not a
// //go:wasmexport (js.FuncOf callbacks, event listeners, observers, timers,
// promise reactions) is made with FuncOf, and every string that carries
// user text is read with String. Both binaries use these, so containment and
// exactness are written once.

// helpers is the loader's bridge object (SetHelpers): str(s) writes s's code
// units into the shared buffer, growing it through tc_buf, and returns the
// length; text(n) returns the JS string of the buffer's first n units.
// describe(v) is a thrown value's message, or null (ThrownMessage). Both
// loaders give it; the host's module has no str or text.
var helpers, strFn, textFn, describeFn js.Value

// SetHelpers takes the loader's bridge helpers; main calls it first.
func SetHelpers(h js.Value) {
	helpers = h
	strFn, textFn, describeFn = h.Get("str"), h.Get("text"), h.Get("describe")
}

// FuncOf is js.FuncOf with containment: a panic in f (a Go bug, or a JS
// exception surfacing through syscall/js) never leaves the callback, so the
// Go program cannot exit. The panic becomes an `internal` error handed to
// onPanic, whose result the callback returns; with onPanic nil it is logged
// with console.error and the callback returns undefined. A panic inside
// onPanic is logged too.
func FuncOf(f func(this js.Value, args []js.Value) any, onPanic func(*apierr.Error) any) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) (ret any) {
		defer func() {
			if r := recover(); r != nil {
				ret = contained(Internal(r), onPanic)
			}
		}()
		return f(this, args)
	})
}

// Guard runs f with the same containment, for work inside an entry that
// must not end it (one listener of several, a best-effort cleanup).
func Guard(f func(), onPanic func(*apierr.Error)) {
	defer func() {
		if r := recover(); r != nil {
			contained(Internal(r), func(e *apierr.Error) any {
				if onPanic != nil {
					onPanic(e)
				} else {
					Report(e)
				}
				return nil
			})
		}
	}()
	f()
}

func contained(err *apierr.Error, onPanic func(*apierr.Error) any) (ret any) {
	if onPanic == nil {
		Report(err)
		return js.Undefined()
	}
	defer func() {
		if r := recover(); r != nil {
			Report(Internal(r))
			ret = js.Undefined()
		}
	}()
	return onPanic(err)
}

func init() { describeError = describeJSError }

func describeJSError(err error) (string, bool) {
	je, ok := err.(js.Error)
	if !ok {
		return "", false
	}
	return "JavaScript error: " + ThrownMessage(je.Value), true
}

// ThrownMessage is what a thrown JS value says, for an error message: an
// object's message when that is a string (an Error, or an object shaped
// like one), otherwise String(v). It never panics and reads no property
// itself: it runs after a containment's recover, where a panic of its own
// would end the program (syscall/js's Get panics on a number or null), and
// syscall/js's property reads do not catch, so a throwing getter would
// unwind through Go's frames and leave the runtime unable to unwind its
// stack later ("unexpected return pc"). The loader's describe helper does
// the reading, and catches whatever a getter or conversion throws.
func ThrownMessage(v js.Value) string {
	if describeFn.Type() == js.TypeFunction {
		if d := describeFn.Invoke(v); d.Type() == js.TypeString {
			return d.String()
		}
	}
	return "a thrown value that cannot be converted to a string"
}

// Report logs an error that has no caller to go to (a listener, a timer).
func Report(err *apierr.Error) {
	defer func() { _ = recover() }() // a broken console must not end the entry either
	c := js.Global().Get("console")
	if c.Type() == js.TypeObject && c.Get("error").Type() == js.TypeFunction {
		c.Call("error", jsvalue.GoString(err.Message))
	}
}

// String reads a JS string exactly: its UTF-16 code units, lone surrogates
// kept. js.Value.String() goes through UTF-8 and would replace them. A
// value that is not a string reads as its String(v), which may throw (a
// panic with js.Error, contained by the entry). The result is a copy.
//
// Both need the loader's helpers (SetHelpers); the fallbacks are set only
// by bridge's own tests, which run without the loader (helpers_test.go).
func String(v js.Value) []uint16 {
	if strFn.Type() != js.TypeFunction {
		return stringFallback(v)
	}
	n := strFn.Invoke(v).Int() // the helper wrote n units into the (maybe moved) buffer
	out := make([]uint16, n)
	copy(out, buf[:n])
	return out
}

// WTF8 is String as a WTF-8 Go string (jsvalue.WTF8).
func WTF8(v js.Value) string { return jsvalue.WTF8(String(v)) }

// Text makes the JS string of u exactly (js.ValueOf(string) goes through
// UTF-8).
func Text(u []uint16) js.Value {
	if textFn.Type() != js.TypeFunction {
		return textFallback(u)
	}
	n := Write(u)
	return textFn.Invoke(n)
}

var (
	stringFallback func(js.Value) []uint16
	textFallback   func([]uint16) js.Value
)

// TextWTF8 is Text for a WTF-8 Go string. ASCII goes through js.ValueOf,
// which is exact for it and needs no buffer copy.
func TextWTF8(s string) js.Value {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return Text(jsvalue.FromWTF8(s))
		}
	}
	return js.ValueOf(s)
}
