//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/jsvalue"
	"tavern-core/protocol"
)

// Text, values and errors as they cross between the facade and the core.

// toStr reads String(v) exactly (bridge.String's helper, through the
// facade so that a throwing conversion is caught and its value kept by
// identity, C6); ok is false when it threw.
func (e *surfaceEdge) toStr(v js.Value) (s string, ok bool) {
	n := e.call("toStr", v).Int()
	if n < 0 {
		return "", false
	}
	return jsvalue.WTF8(bridge.Buf()[:n]), true
}

func (e *surfaceEdge) str(v js.Value) string { return bridge.WTF8(v) }

// value describes v for the core; withStr also fills Str with String(v)
// (a throwing conversion is reported as thrown).
func (e *surfaceEdge) value(v js.Value, withStr bool) (chatsurface.Value, *chatsurface.JSValue) {
	var out chatsurface.Value
	switch bridge.TypeOf(v) {
	case js.TypeUndefined:
		out = chatsurface.Undefined
	case js.TypeNull:
		out = chatsurface.Value{Kind: jsvalue.Null}
	case js.TypeBoolean:
		out = chatsurface.Bool(v.Bool())
	case js.TypeNumber:
		out = chatsurface.Value{Kind: jsvalue.Number, Num: v.Float()}
	case js.TypeString:
		out = chatsurface.Value{Kind: jsvalue.String}
	case js.TypeFunction:
		out = chatsurface.Value{Kind: jsvalue.Function}
	case js.TypeSymbol:
		out = chatsurface.Value{Kind: jsvalue.Symbol}
	default:
		out = chatsurface.Value{Kind: jsvalue.Object}
		if e.call("isBigInt", v).Bool() {
			out.Kind = jsvalue.BigInt
		}
	}
	if withStr || out.Kind == jsvalue.String {
		str, ok := e.toStr(v)
		if !ok {
			return out, e.takeThrown()
		}
		out.Str = str
	}
	return out, nil
}

// list reads a host-given list through the facade (fx.list): a plain JS
// array of its entries; isArray false when v is not an array; over > 0, the
// length it claimed, when that is above max (nothing was copied); thrown
// when reading it threw.
func (e *surfaceEdge) list(v js.Value, max int) (out js.Value, isArray bool, over float64, thrown *chatsurface.JSValue) {
	r := e.call("list", v, max)
	switch bridge.TypeOf(r) {
	case js.TypeNull:
		return r, false, 0, nil
	case js.TypeNumber:
		if r.Int() == -1 {
			return r, true, e.fx.Get("bad").Float(), nil
		}
		return r, true, 0, e.takeThrown()
	}
	return r, true, 0, nil
}

// takeThrown names the value the facade just caught (C6): its ref and the
// ref of its error value.
func (e *surfaceEdge) takeThrown() *chatsurface.JSValue {
	ref := chatsurface.Ref(e.fx.Get("tRef").Int())
	er := chatsurface.Ref(e.fx.Get("tErr").Int())
	e.thrown = append(e.thrown, ref)
	if er != ref {
		e.thrown = append(e.thrown, er)
	}
	return &chatsurface.JSValue{Ref: ref, ErrorRef: er}
}

// result decodes a call's classified result (protocol.ResultRefShift), or
// the value it threw.
func (e *surfaceEdge) result(r js.Value) (chatsurface.Return, *chatsurface.JSValue) {
	n := r.Int()
	if n < 0 {
		return chatsurface.Return{}, e.takeThrown()
	}
	return chatsurface.Return{Kind: chatsurface.Kind(n & (1<<protocol.ResultRefShift - 1)),
		Ref: chatsurface.Ref(n >> protocol.ResultRefShift)}, nil
}

// jsError is the JS value of a core error: an *Error's one object, or a
// thrown value by identity.
func (e *surfaceEdge) jsError(err error) js.Value {
	switch x := err.(type) {
	case nil:
		return js.Null()
	case *chatsurface.JSValue:
		return e.call("ref", int(x.Ref))
	case *chatsurface.Error:
		if v, ok := e.memo[x]; ok {
			return v
		}
		cause := js.Undefined()
		if x.Cause != nil {
			cause = e.jsError(x.Cause)
		}
		n := bridge.WriteString(0, x.Message)
		v := e.call("makeError", int(x.Class), bridge.Addr(), n, x.Cause != nil, cause)
		e.memo[x] = v
		return v
	}
	n := bridge.WriteString(0, "tavern-core internal error: "+err.Error())
	return e.call("makeError", int(apierr.PlainError), bridge.Addr(), n, false, js.Undefined())
}

// fail hands err to the facade, which throws it.
func (e *surfaceEdge) fail(err error) js.Value {
	e.call("fail", e.jsError(err))
	return e.failMark
}

// versionRead is a C119 read made by the facade ahead of Go's ask.
type versionRead struct {
	_     noCompare
	set   bool
	there bool // the request's object is still at its mesid
	same  bool // then whether it still has the request's version
}
