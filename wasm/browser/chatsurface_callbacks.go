//go:build js && wasm

package main

import (
	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/jsvalue"
)

// The host's callbacks into the facade (chatsurface.Callbacks and
// Scheduler): hooks, chat[] access, signals, the host's scheduler.

type surfaceCallbacks struct {
	e    *surfaceEdge
	host int
}

// Nodes cross as their ids; the facade hands the nodes to the hooks.
func (c *surfaceCallbacks) PrepareContent(hook chatsurface.Ref, mesid int, content chatsurface.Node, cl chatsurface.ClaimsID) (chatsurface.Return, *chatsurface.JSValue) {
	return c.e.result(c.e.call("prepare", c.host, int(hook), mesid, int(content), int(cl.Seq), int(cl.Participant)))
}

func (c *surfaceCallbacks) Connected(hook chatsurface.Ref, mesid int, el, content chatsurface.Node, sig chatsurface.Signal) (chatsurface.Return, *chatsurface.JSValue) {
	return c.e.result(c.e.call("connected", c.host, int(hook), mesid, int(el), int(content), int(sig)))
}

func (c *surfaceCallbacks) Activate(fn chatsurface.Ref, src chatsurface.Node, mesid int, el, content chatsurface.Node, sig chatsurface.Signal) (chatsurface.Return, *chatsurface.JSValue) {
	return c.e.result(c.e.call("activate", c.host, int(fn), int(src), mesid, int(el), int(content), int(sig)))
}

func (c *surfaceCallbacks) Dispose(r chatsurface.Ref) (chatsurface.Return, *chatsurface.JSValue) {
	return c.e.result(c.e.call("dispose", int(r)))
}

func (c *surfaceCallbacks) Release(r chatsurface.Ref) { c.e.call("release", int(r)) }

// Messages is the fast-lane structural pass: the facade writes the ids
// into the shared buffer, two units each, once the length is within
// MaxMessages (C146).
func (c *surfaceCallbacks) Messages(room []chatsurface.MessageID) chatsurface.Pass {
	switch n := c.e.call("messages", c.host).Int(); {
	case n == -1:
		return chatsurface.Pass{Bad: c.e.fx.Get("bad").Int()}
	case n == -2:
		return chatsurface.Pass{Bad: -1, Thrown: c.e.takeThrown()}
	case n == -3:
		return chatsurface.Pass{Bad: -1, Length: c.e.fx.Get("bad").Float()}
	default:
		u := bridge.Buf()
		ids := room[:0]
		if cap(ids) < n {
			ids = make([]chatsurface.MessageID, n)
		}
		ids = ids[:n]
		for i := range ids {
			ids[i] = chatsurface.MessageID(uint32(u[2*i]) | uint32(u[2*i+1])<<16)
		}
		return chatsurface.Pass{IDs: ids, Bad: -1}
	}
}

func (c *surfaceCallbacks) MessageAt(i int) (chatsurface.MessageID, *chatsurface.JSValue) {
	n := c.e.call("messageAt", c.host, i).Int()
	if n < 0 {
		return 0, c.e.takeThrown()
	}
	return chatsurface.MessageID(n), nil
}

func (c *surfaceCallbacks) Count() (int, *chatsurface.JSValue) {
	n := c.e.call("count", c.host).Int()
	if n < 0 {
		return 0, c.e.takeThrown()
	}
	return n, nil
}

// Materialize: the facade calls materialize, names the root, its first
// .mes_text and that one's parent, and writes flags (1 a .mes, 2 parentless),
// the three ids and, when asked, the content's innerHTML into the buffer;
// -1 means materialize threw (C30).
func (c *surfaceCallbacks) Materialize(msg chatsurface.MessageID, mesid int, html bool) (chatsurface.Materialized, *chatsurface.JSValue) {
	n := c.e.call("materialize", c.host, int(msg), mesid, html).Int()
	if n < 0 {
		return chatsurface.Materialized{}, c.e.takeThrown()
	}
	u := bridge.Buf()[:n]
	id := func(i int) chatsurface.Node { return chatsurface.Node(int32(uint32(u[i]) | uint32(u[i+1])<<16)) }
	x := chatsurface.Materialized{Mes: u[0]&1 != 0, Parentless: u[0]&2 != 0, Root: id(1), Content: id(3), ContentParent: id(5)}
	if html {
		x.HTML = jsvalue.WTF8(u[7:])
	}
	return x, nil
}

func (c *surfaceCallbacks) FormatMessage(msg chatsurface.MessageID, mesid int) (string, *chatsurface.JSValue) {
	n := c.e.call("format", c.host, int(msg), mesid).Int()
	if n < 0 {
		return "", c.e.takeThrown()
	}
	return jsvalue.WTF8(bridge.Buf()[:n]), nil
}

func (c *surfaceCallbacks) NewSignal() chatsurface.Signal {
	return chatsurface.Signal(c.e.call("newSignal").Int())
}

func (c *surfaceCallbacks) Abort(s chatsurface.Signal, reason string) {
	c.e.call("abort", int(s), reason)
}

func (c *surfaceCallbacks) ReleaseSignal(s chatsurface.Signal) { c.e.call("releaseSignal", int(s)) }

func (c *surfaceCallbacks) OnFault(f error) { c.e.call("onFault", c.host, c.e.jsError(f)) }

// The scheduler functions are the host's: the facade answers -1 when one
// threw, and the thrown value faults the epoch (C6).
func (c *surfaceCallbacks) sched(fn string, arg any) (int, *chatsurface.JSValue) {
	if n := c.e.call(fn, c.host, arg).Int(); n >= 0 {
		return n, nil
	}
	return 0, c.e.takeThrown()
}

func (c *surfaceCallbacks) RequestFrame() (int, *chatsurface.JSValue) {
	return c.sched("requestFrame", 0)
}
func (c *surfaceCallbacks) CancelFrame(id int) *chatsurface.JSValue {
	_, t := c.sched("cancelFrame", id)
	return t
}
func (c *surfaceCallbacks) SetTimeout(ms float64) (int, *chatsurface.JSValue) {
	return c.sched("setTimeout", ms)
}
func (c *surfaceCallbacks) ClearTimeout(id int) *chatsurface.JSValue {
	_, t := c.sched("clearTimeout", id)
	return t
}
