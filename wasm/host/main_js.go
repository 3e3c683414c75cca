//go:build js && wasm

// Command host is tavern-core's module for the harness host (Node only): the
// session-log entry (validate, fold, transcript, plan, open log handles)
// and the message editor's route (sessionlog/route) bridged to Fetch.
// js/host-core.js puts a boot object on globalThis.__tavernHostBoot before
// running it; main hands the API to boot.ready and parks, so the functions
// stay callable. This binary links encoding/json and net/http; the browser
// binary must not (deps_test.go).
package main

import (
	"syscall/js"
	"time"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/sessionlog"
	"tavern-core/sessionlog/route"
)

func main() {
	g := js.Global()
	boot := g.Get("__tavernHostBoot")
	g.Delete("__tavernHostBoot")
	bridge.SetHelpers(boot.Get("bridge"))
	api := g.Get("Object").New()
	// A contained panic answers as the route's internal envelope; the
	// module keeps serving.
	internal := func(e *apierr.Error) any {
		return string(envelope(nil, &apiError{Code: sessionlog.CodeInternal, Message: jsvalue.GoString(e.Message)}))
	}
	api.Set("call", bridge.FuncOf(apiCall, internal))
	api.Set("mount", bridge.FuncOf(mount, internal))
	boot.Call("ready", api)
	select {}
}

var table logs

// apiCall is call(name, handleId, input, argsJSON) → envelope JSON string.
func apiCall(_ js.Value, args []js.Value) (out any) {
	name := arg(args, 0).String()
	id := 0
	if v := arg(args, 1); bridge.TypeOf(v) == js.TypeNumber {
		id = v.Int()
	}
	input, err := bytesOf(arg(args, 2))
	if err != nil {
		return string(envelope(nil, err))
	}
	var raw []byte
	if v := arg(args, 3); bridge.TypeOf(v) == js.TypeString {
		raw = []byte(v.String())
	}
	v, err := table.call(name, id, input, raw)
	return string(envelope(v, err))
}

// mount(port, registry) activates the editor route on the host's registry
// (S82) and answers the handler function, or an envelope JSON string when
// activation fails.
func mount(_ js.Value, args []js.Value) (out any) {
	port, reg := arg(args, 0), arg(args, 1)
	for _, fn := range []string{"session", "authorize", "origin", "version"} {
		if bridge.TypeOf(port.Get(fn)) != js.TypeFunction {
			return string(envelope(nil, badRequest("the host port needs %s()", fn)))
		}
	}
	// The registry is the host's (a Map, or anything with has and set):
	// read through prop, whose getters may throw.
	has, err1 := prop(reg, "has")
	set, err2 := prop(reg, "set")
	if err1 != nil || err2 != nil || bridge.TypeOf(has) != js.TypeFunction || bridge.TypeOf(set) != js.TypeFunction {
		return string(envelope(nil, badRequest("the route registry needs has(path) and set(path, fn)")))
	}
	r := &jsRegistry{v: reg}
	// How long the route waits for each host answer (js/session-log.js
	// reads and checks the host's answerTimeoutMs).
	wait := time.Duration(0)
	if w := port.Get("answerTimeoutMs"); bridge.TypeOf(w) == js.TypeNumber && w.Float() > 0 {
		wait = time.Duration(w.Float() * float64(time.Millisecond))
	}
	if _, err := route.Activate(r, jsPort{v: port, wait: wait}); err != nil {
		if r.handler.Truthy() {
			r.handler.Release()
		}
		code := codeAlreadyActive
		if err != route.ErrAlreadyActive {
			code = sessionlog.CodeInternal // the registry's set threw; the routes it took were taken back
		}
		return string(envelope(nil, &apiError{Code: code, Message: err.Error()}))
	}
	return r.handler.Value
}

// codeAlreadyActive is the activation failure of S82, which the spec gives
// a message but no code.
const codeAlreadyActive = "already-active"
