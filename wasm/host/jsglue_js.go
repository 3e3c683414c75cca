//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"syscall/js"
	"time"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/sessionlog"
)

// jsCall runs f, turning a thrown JS exception (js.Value.Call panics with
// js.Error) into an error, so a misbehaving host object never takes the
// module down.
func jsCall(f func() js.Value) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	return f(), nil
}

// panicError describes a recovered panic: a JS exception (a host object
// that threw) by what it says, anything else by the one formatter of both
// binaries, as an internal error (bridge.Internal).
func panicError(r any) error {
	if je, ok := r.(js.Error); ok {
		return errors.New(bridge.ThrownMessage(je.Value))
	}
	return errors.New(jsvalue.GoString(bridge.Internal(r).Message))
}

// prop is v[key] read through Reflect.get by Call, which catches: for
// values a host hands in (a Request, a stream's read result), whose getters
// may throw. syscall/js's Value.Get does not catch, so a throw there would
// unwind through Go's frames. v must be an object or a function.
func prop(v js.Value, key any) (js.Value, error) {
	if t := bridge.TypeOf(v); t != js.TypeObject && t != js.TypeFunction {
		return js.Undefined(), errors.New("not an object")
	}
	return jsCall(func() js.Value { return js.Global().Get("Reflect").Call("get", v, key) })
}

// thenOf is v.then when v is a thenable (read once, as a Promise does),
// else undefined. The read goes through Reflect.get by Call: syscall/js's
// own property read does not catch, so a getter that throws would unwind
// through Go's frames instead of becoming this error.
func thenOf(v js.Value) (js.Value, error) {
	if t := bridge.TypeOf(v); t != js.TypeObject && t != js.TypeFunction {
		return js.Undefined(), nil
	}
	then, err := prop(v, "then")
	if err != nil || bridge.TypeOf(then) != js.TypeFunction {
		return js.Undefined(), err
	}
	return then, nil
}

type settled struct {
	v   js.Value
	err error
}

// await blocks the calling goroutine until a thenable settles; other values
// pass through. It must not run on the goroutine of a js.FuncOf callback
// that JS is waiting on synchronously: the callback would never return.
// Callers are the request goroutines started by the fetch handler.
func await(v js.Value) (js.Value, error) { return awaitWithin(v, 0) }

// errNoAnswer is a host promise that did not settle within the port's
// answer time (awaitWithin).
type errNoAnswer struct{ wait time.Duration }

func (e errNoAnswer) Error() string {
	return fmt.Sprintf("it did not answer within %v", e.wait)
}

// awaitWithin is await that gives up after wait (0: never). A promise
// that never settles would otherwise hold its caller for good: the
// route's session lock, and every later edit of that session behind it
// (S80). What settles later is dropped; its callbacks release themselves.
func awaitWithin(v js.Value, wait time.Duration) (js.Value, error) {
	then, err := thenOf(v)
	if err != nil {
		return js.Undefined(), err
	}
	if then.IsUndefined() {
		return v, nil
	}
	ch := make(chan settled, 1)
	var onOK, onErr js.Func
	release := func() { onOK.Release(); onErr.Release() }
	// The channel holds one answer: the first wins (a callback that failed
	// before sending answers with its error), later ones are dropped, so a
	// callback never blocks.
	answer := func(s settled) {
		select {
		case ch <- s:
		default:
		}
	}
	failed := func(e *apierr.Error) any { answer(settled{err: errors.New(jsvalue.GoString(e.Message))}); return nil }
	onOK = bridge.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		answer(settled{v: arg(args, 0)})
		return nil
	}, failed)
	onErr = bridge.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		answer(settled{err: errors.New(bridge.ThrownMessage(arg(args, 0)))})
		return nil
	}, failed)
	if _, err := jsCall(func() js.Value { return then.Call("call", v, onOK, onErr) }); err != nil {
		release()
		return js.Undefined(), err
	}
	if wait <= 0 {
		r := <-ch
		return r.v, r.err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-timer.C:
		return js.Undefined(), errNoAnswer{wait}
	}
}

// callAwait calls a JS function and awaits its result if it is a promise.
func callAwait(f func() js.Value) (js.Value, error) { return callAwaitWithin(f, 0) }

// callAwaitWithin is callAwait bounded by wait (awaitWithin).
func callAwaitWithin(f func() js.Value, wait time.Duration) (js.Value, error) {
	v, err := jsCall(f)
	if err != nil {
		return v, err
	}
	return awaitWithin(v, wait)
}

func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

func isNullish(v js.Value) bool { return v.IsUndefined() || v.IsNull() }

// bytesOf reads a JS string or Uint8Array. A string goes through UTF-8 (see
// api.go on exactness); bytes are copied as they are.
func bytesOf(v js.Value) ([]byte, error) {
	if bridge.TypeOf(v) == js.TypeString {
		return []byte(v.String()), nil
	}
	if v.InstanceOf(js.Global().Get("Uint8Array")) {
		n := v.Get("byteLength").Float()
		if n > sessionlog.MaxLogBytes {
			return nil, &apiError{Code: sessionlog.CodeReadFailed, Message: fmt.Sprintf("the log is %.0f bytes; at most %d can be read", n, sessionlog.MaxLogBytes)}
		}
		b := make([]byte, int(n))
		js.CopyBytesToGo(b, v)
		return b, nil
	}
	return nil, nil
}

// newPromise returns a Promise whose settlement run decides on a new
// goroutine, so run may await other promises.
func newPromise(run func() (js.Value, error)) js.Value {
	var executor js.Func
	executor = bridge.FuncOf(func(_ js.Value, args []js.Value) any {
		executor.Release()
		resolve, reject := arg(args, 0), arg(args, 1)
		go bridge.Guard(func() {
			v, err := run()
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(v)
		}, func(e *apierr.Error) { reject.Invoke(js.Global().Get("Error").New(jsvalue.GoString(e.Message))) })
		return nil
	}, nil)
	return js.Global().Get("Promise").New(executor)
}
