//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"syscall/js"
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

// panicError describes a recovered panic; a JS exception keeps its message.
func panicError(r any) error {
	var je js.Error
	if e, ok := r.(error); ok && errors.As(e, &je) {
		return errors.New(jsMessage(je.Value))
	}
	return fmt.Errorf("panic: %v", r)
}

// jsMessage is the message of a thrown value: err.message for Error
// objects, String(v) for anything else.
func jsMessage(v js.Value) string {
	if v.Type() == js.TypeObject && v.Get("message").Type() == js.TypeString {
		return v.Get("message").String()
	}
	return js.Global().Call("String", v).String()
}

func isThenable(v js.Value) bool {
	return (v.Type() == js.TypeObject || v.Type() == js.TypeFunction) && v.Get("then").Type() == js.TypeFunction
}

type settled struct {
	v   js.Value
	err error
}

// await blocks the calling goroutine until a thenable settles; other values
// pass through. It must not run on the goroutine of a js.FuncOf callback
// that JS is waiting on synchronously: the callback would never return.
// Callers are the request goroutines started by the fetch handler.
func await(v js.Value) (js.Value, error) {
	if !isThenable(v) {
		return v, nil
	}
	ch := make(chan settled, 1)
	var onOK, onErr js.Func
	release := func() { onOK.Release(); onErr.Release() }
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		ch <- settled{v: arg(args, 0)}
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		ch <- settled{err: errors.New(jsMessage(arg(args, 0)))}
		return nil
	})
	if _, err := jsCall(func() js.Value { return v.Call("then", onOK, onErr) }); err != nil {
		release()
		return js.Undefined(), err
	}
	r := <-ch
	return r.v, r.err
}

// callAwait calls a JS function and awaits its result if it is a promise.
func callAwait(f func() js.Value) (js.Value, error) {
	v, err := jsCall(f)
	if err != nil {
		return v, err
	}
	return await(v)
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
func bytesOf(v js.Value) []byte {
	if v.Type() == js.TypeString {
		return []byte(v.String())
	}
	if v.InstanceOf(js.Global().Get("Uint8Array")) {
		b := make([]byte, v.Get("byteLength").Int())
		js.CopyBytesToGo(b, v)
		return b
	}
	return nil
}

// newPromise returns a Promise whose settlement run decides on a new
// goroutine, so run may await other promises.
func newPromise(run func() (js.Value, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		executor.Release()
		resolve, reject := arg(args, 0), arg(args, 1)
		go func() {
			v, err := run()
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}
