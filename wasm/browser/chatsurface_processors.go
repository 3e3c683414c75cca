//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/jsvalue"
	"tavern-core/protocol"
)

// Content processors (C113–C131): registration, refresh, finishContent,
// the fast-lane calls of a running processor chain, and the host's
// ProcessorCallbacks.

// processor is registerContentProcessor (C113): Go checks in order; a
// registered prepare stays in the facade's ref table for the page.
func (e *surfaceEdge) processor(a bridge.Args) any {
	e.enter(nil)
	defer e.exit(nil)
	id, prepare := chatsurface.Undefined, chatsurface.Undefined
	d := a.Value(0)
	if t := bridge.TypeOf(d); !e.page.ContentStarted() && (t == js.TypeObject || t == js.TypeFunction) {
		iv := e.call("get", d, "id")
		if iv.Equal(e.failMark) {
			return e.fail(e.takeThrown())
		}
		id, _ = e.value(iv, false)
		pv := e.call("get", d, "prepare")
		if pv.Equal(e.failMark) {
			return e.fail(e.takeThrown())
		}
		if bridge.TypeOf(pv) == js.TypeFunction {
			prepare = chatsurface.Value{Kind: jsvalue.Function, Func: chatsurface.Ref(e.call("addRef", pv).Int())}
		}
	}
	idx, err := e.page.RegisterContentProcessor(id, prepare)
	if err != nil {
		if prepare.Func != 0 {
			e.call("release", int(prepare.Func))
		}
		return e.fail(err)
	}
	return idx
}

// cs_refresh is a processor registration's refresh() (C129), through the
// fast lane: phase 0 clears synchronously, phase 1 (a later microtask)
// updates and settles wait. It returns 1, or 0 when there is no live host
// (the facade then resolves), or Failed for a contained panic.
//
//go:wasmexport cs_refresh
func csRefresh(phase, wait int32) (st int32) {
	defer bridge.Contain(&st)
	e := surface
	s := e.liveHost()
	if s == nil {
		return 0
	}
	e.enter(s)
	defer e.exit(s)
	if phase == 0 {
		s.h.RefreshClear()
	} else {
		s.h.RefreshApply(chatsurface.Wait(wait))
	}
	return 1
}

// finish is finishContent(mesid, event, ...args) (C131): the
// arguments are the host, mesid, whether an event was given, the wait id.
func (e *surfaceEdge) finish(a bridge.Args) any {
	s := e.knownHost(a.Int(0))
	e.enter(s)
	defer e.exit(s)
	m, _ := e.value(a.Value(1), false)
	if err := s.h.FinishContent(m, chatsurface.Wait(a.Int(3)), a.Truthy(2)); err != nil {
		return e.fail(err)
	}
	return nil
}

// The content processors' calls into Go run per layer of every request, so
// they take the fast lane (no js.Value per call).

// A renderBase Promise's fulfilment can come back as the return value of
// the running cs_render_base or cs_processor_done instead of a settleBase
// call: the last layer's base (C117) and an inner layer's result for the
// layer outside it (C115) settle this way, one crossing fewer. Any other
// call out to the facade first settles it the usual way (call), so Promises
// still settle in the order Go settles them. Only those two calls fulfil a
// base (a rejection always calls settleBase); one a contained panic left is
// settled at the start of the next.
func (e *surfaceEdge) flushInline() {
	e.inlineSet = false
	if e.inlineFrom != 0 {
		e.call("settleBaseHeld", int(e.inlineToken), int(e.inlineFrom))
		return
	}
	e.call("settleBase", int(e.inlineToken), false, bridge.WriteString(0, e.inlineHTML))
}

// takeInline returns 0, or the number of units in the buffer when the call
// left a settlement: its token (two units), then protocol InlineHTML and
// the HTML's units, or InlineHeld and the token whose kept result it is.
func (e *surfaceEdge) takeInline() int32 {
	if !e.inlineSet {
		return 0
	}
	e.inlineSet = false
	if e.inlineFrom != 0 {
		out := bridge.Reserve(5)
		out[0], out[1] = uint16(uint32(e.inlineToken)), uint16(uint32(e.inlineToken)>>16)
		out[2] = protocol.InlineHeld
		out[3], out[4] = uint16(uint32(e.inlineFrom)), uint16(uint32(e.inlineFrom)>>16)
		return 5
	}
	n := bridge.WriteString(3, e.inlineHTML)
	out := bridge.Buf()
	out[0], out[1] = uint16(uint32(e.inlineToken)), uint16(uint32(e.inlineToken)>>16)
	out[2] = protocol.InlineHTML
	return 3 + n
}

// cs_render_base is renderBase() of processor call token on host (C115):
// 1 when the facade must make the Promise, 0 for the one made before, and
// 1 + m when it must also settle one (m as takeInline returns).
//
//go:wasmexport cs_render_base
func csRenderBase(host, token int32) (st int32) {
	defer bridge.Contain(&st)
	e := surface
	if e.inlineSet { // left by a contained panic
		e.flushInline()
	}
	made := false
	e.event(int(host), func(s *surfaceHost) { made = s.h.RenderBase(chatsurface.Token(token)) })
	if made {
		st = 1 + e.takeInline()
	}
	return st
}

// cs_processor_done delivers prepare's fulfilment value for call token: its
// kind (protocol KIND) and, for a string, its n units in the buffer or
// protocol ProcessorResultHeld when the facade keeps it for this call, with
// C119's read that goes with it (cur: protocol VERSION_READ SAME, CHANGED,
// NOT_THERE or UNREAD). It returns 0, or a settlement as takeInline
// describes.
//
//go:wasmexport cs_processor_done
func csProcessorDone(host, token, kind, n, cur int32) (st int32) {
	defer bridge.Contain(&st)
	e := surface
	if e.inlineSet { // left by a contained panic
		e.flushInline()
	}
	e.read = versionRead{} // one a contained panic left is not this call's
	v := chatsurface.Value{Kind: jsvalue.Object}
	held := false
	if jsvalue.Kind(kind) == jsvalue.String {
		if held = n == protocol.ProcessorResultHeld; !held {
			v = chatsurface.Str(jsvalue.WTF8(bridge.Buf()[:n]))
		}
		if cur == protocol.VersionSame || cur == protocol.VersionChanged || cur == protocol.VersionNotThere {
			e.read = versionRead{set: true, there: cur != protocol.VersionNotThere, same: cur == protocol.VersionSame}
		}
	}
	e.event(int(host), func(s *surfaceHost) {
		if held {
			s.h.ProcessorDoneHeld(chatsurface.Token(token))
		} else {
			s.h.ProcessorDone(chatsurface.Token(token), v)
		}
	})
	e.read = versionRead{}
	return e.takeInline()
}

// cs_processor_failed delivers prepare's rejection, which the facade
// recorded (tRef, tErr).
//
//go:wasmexport cs_processor_failed
func csProcessorFailed(host, token int32) (st int32) {
	defer bridge.Contain(&st)
	e := surface
	s := e.hosts[int(host)]
	if s == nil || s.dom == nil {
		e.call("release", e.fx.Get("tRef").Int())
		if r := e.fx.Get("tErr").Int(); r != e.fx.Get("tRef").Int() {
			e.call("release", r)
		}
		return bridge.OK
	}
	e.enter(s)
	defer e.exit(s)
	s.h.ProcessorFailed(chatsurface.Token(token), e.takeThrown())
	return bridge.OK
}

// The facade keeps each request's version (C121) with its message object
// and answers Go's comparisons with protocol VERSION_READ codes: SAME,
// CHANGED, or THREW (the throw recorded).
func (c *surfaceCallbacks) same(r int) (bool, *chatsurface.JSValue) {
	if r == protocol.VersionThrew {
		return false, c.e.takeThrown()
	}
	return r == protocol.VersionSame, nil
}

func (c *surfaceCallbacks) SameVersion(msg chatsurface.MessageID, mesid int, req chatsurface.Signal) (bool, *chatsurface.JSValue) {
	return c.same(c.e.call("sameVersion", c.host, int(msg), mesid, int(req)).Int())
}

func (c *surfaceCallbacks) VersionChanged(req chatsurface.Signal) (bool, *chatsurface.JSValue) {
	same, thrown := c.same(c.e.call("versionChanged", int(req)).Int())
	return !same && thrown == nil, thrown
}

func (c *surfaceCallbacks) AdoptVersion(req chatsurface.Signal) { c.e.call("adoptVersion", int(req)) }

// CurrentVersion: NOT_THERE when another object (or none) is at mesid,
// else as SameVersion for the request's own object. The read that came
// with the running cs_processor_done answers, when there is one: no JS has
// run since.
func (c *surfaceCallbacks) CurrentVersion(msg chatsurface.MessageID, mesid int, req chatsurface.Signal) (bool, bool, *chatsurface.JSValue) {
	if r := c.e.read; r.set {
		c.e.read = versionRead{}
		return r.there, r.same, nil
	}
	n := c.e.call("currentVersion", c.host, int(msg), mesid, int(req)).Int()
	if n == protocol.VersionNotThere {
		return false, false, nil
	}
	same, thrown := c.same(n)
	return true, same, thrown
}

func (c *surfaceCallbacks) NewRequest(msg chatsurface.MessageID, mesid int) chatsurface.Signal {
	return chatsurface.Signal(c.e.call("newRequest", c.host, int(msg), mesid).Int())
}

// VersionedRequest: the request's signal, or THREW when the version threw
// (no request was made).
func (c *surfaceCallbacks) VersionedRequest(msg chatsurface.MessageID, mesid int) (chatsurface.Signal, *chatsurface.JSValue) {
	n := c.e.call("versionedRequest", c.host, int(msg), mesid).Int()
	if n == protocol.VersionThrew {
		return 0, c.e.takeThrown()
	}
	return chatsurface.Signal(n), nil
}

func (c *surfaceCallbacks) CallProcessor(token chatsurface.Token, prepare chatsurface.Ref, msg chatsurface.MessageID, mesid int, sig chatsurface.Signal) {
	c.e.call("callProcessor", c.host, int(token), int(prepare), int(msg), mesid, int(sig))
}

func (c *surfaceCallbacks) SettleBase(token chatsurface.Token, html string, err error) {
	if e := c.e; err == nil && !e.inlineSet {
		e.inlineSet, e.inlineToken, e.inlineHTML, e.inlineFrom = true, token, html, 0
		return
	}
	if err != nil {
		c.e.call("settleBase", int(token), true, c.e.jsError(err))
		return
	}
	c.e.call("settleBase", int(token), false, bridge.WriteString(0, html)) // the facade reads the units
}

// SettleBaseHeld goes inline like SettleBase: the facade resolves token's
// base with the result it keeps for from.
func (c *surfaceCallbacks) SettleBaseHeld(token, from chatsurface.Token) {
	if e := c.e; !e.inlineSet {
		e.inlineSet, e.inlineToken, e.inlineHTML, e.inlineFrom = true, token, "", from
		return
	}
	c.e.call("settleBaseHeld", int(token), int(from))
}

// HeldText is the result the facade keeps for from, read into Go.
func (c *surfaceCallbacks) HeldText(from chatsurface.Token) string {
	n := c.e.call("heldText", int(from)).Int()
	return jsvalue.WTF8(bridge.Buf()[:n])
}

func (c *surfaceCallbacks) AbortRequest(s chatsurface.Signal) { c.e.call("abortRequest", int(s)) }

func (c *surfaceCallbacks) Settle(w chatsurface.Wait, emit bool, err error) {
	if err != nil {
		c.e.call("settle", int(w), false, true, c.e.jsError(err))
		return
	}
	c.e.call("settle", int(w), emit, false, js.Undefined())
}
