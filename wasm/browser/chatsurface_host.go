//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/chatsurface/domjs"
	"tavern-core/jsvalue"
	"tavern-core/protocol"
)

// A chat surface host: createHost, its operations and snapshot, and claims.

func (e *surfaceEdge) createHost(a bridge.Args) any {
	e.enter(nil)
	defer e.exit(nil)
	o := a.Value(0)
	g := js.Global()
	get := func(name string) chatsurface.Value {
		v, _ := e.value(o.Get(name), false)
		return v
	}
	rootID := chatsurface.Node(a.Int(1)) // the facade named the root when it is an element
	id := a.Int(2)                       // and chose the host's id
	opts := chatsurface.HostOptions{
		GetMessages: get("getMessages"), Materialize: get("materialize"), FormatMessage: get("formatMessage"),
		Emit: get("emit"), Managed: get("managed"), OnFault: get("onFault"),
		RequestAnimationFrame: get("requestAnimationFrame"), CancelAnimationFrame: get("cancelAnimationFrame"),
		SetTimeout: get("setTimeout"), ClearTimeout: get("clearTimeout"),
		HasMutationObserver: g.Get("MutationObserver").Type() == js.TypeFunction,
		HasResizeObserver:   g.Get("ResizeObserver").Type() == js.TypeFunction,
	}
	opts.RuntimeLimit, _ = e.value(o.Get("runtimeLimit"), false)
	if rootID != 0 {
		opts.Root = chatsurface.Object("[object Element]")
	}
	s := &surfaceHost{id: id}
	apply := e.fx.Get("apply").Call("bind", js.Null(), id)
	s.dom = domjs.New(apply, e.takeThrown)
	s.cb = &surfaceCallbacks{e: e, host: s.id}
	h, err := e.page.CreateHost(opts, chatsurface.Env{DOM: s.dom, JS: s.cb, Sched: s.cb, Root: rootID})
	if err != nil {
		s.dom.Close()
		return e.fail(err)
	}
	s.h = h
	e.hosts[s.id] = s
	return s.id
}

// host finds a live host or a tomb (a disposed host's object names one).
func (e *surfaceEdge) host(id int) *surfaceHost {
	if s := e.hosts[id]; s != nil {
		return s
	}
	for _, t := range e.tombs {
		if t.id == id {
			return t
		}
	}
	return nil
}

// knownHost is host for an id the facade must have had from createHost.
func (e *surfaceEdge) knownHost(id int) *surfaceHost {
	s := e.host(id)
	if s == nil {
		panic("chatsurface: unknown host")
	}
	return s
}

func (e *surfaceEdge) op(a bridge.Args) any {
	s := e.knownHost(a.Int(0))
	e.enter(s)
	defer e.exit(s)
	h := s.h
	var err error
	switch a.Int(1) {
	case protocol.SurfaceOpen:
		if err = h.Open(); err == nil && a.Truthy(4) {
			h.WaitMounted(chatsurface.Wait(a.Int(4)))
		}
	case protocol.SurfaceRender:
		o := chatsurface.RenderOptions{}
		if a.Truthy(5) { // reading the options threw: after C112a's checks
			o.Err = e.takeThrown()
		} else if rep := a.Value(2); bridge.TypeOf(rep) == js.TypeObject {
			list, _, over, thrown := e.list(rep, chatsurface.MaxMessages)
			switch {
			case thrown != nil:
				o.Err = thrown
			case over > 0:
				o.Err = chatsurface.ErrReplaceTooLong(over)
			default:
				for i, n := 0, list.Length(); i < n; i++ {
					if v := list.Index(i); bridge.TypeOf(v) == js.TypeNumber {
						o.Replace = append(o.Replace, v.Int())
					}
				}
			}
		}
		var thrown *chatsurface.JSValue
		first := a.Value(3)
		if o.First, thrown = e.value(first, bridge.TypeOf(first) != js.TypeUndefined); thrown != nil {
			return e.fail(thrown)
		}
		if err = h.Render(o); err == nil && a.Truthy(4) {
			h.WaitMounted(chatsurface.Wait(a.Int(4)))
		}
	case protocol.SurfaceUpdate:
		if a.Truthy(5) {
			err = h.Render(chatsurface.RenderOptions{Err: e.takeThrown(), Label: chatsurface.LabelUpdateContent})
			break
		}
		m, _ := e.value(a.Value(2), false)
		var mounted bool
		mounted, err = h.UpdateContent(m, a.Truthy(3))
		if err == nil {
			return mounted
		}
	case protocol.SurfaceJump:
		t, thrown := e.value(a.Value(2), true)
		if thrown != nil {
			return e.fail(thrown)
		}
		var n chatsurface.Node
		n, err = h.JumpToMessage(t)
		if err == nil {
			return int(n) // the facade hands out the node
		}
	case protocol.SurfaceScrollToEnd:
		err = h.ScrollToEnd()
	case protocol.SurfaceHeld:
		err = h.SetProjectionHeld(a.Truthy(2))
	case protocol.SurfaceRefreshLayout:
		err = h.RefreshLayout()
	case protocol.SurfaceReset:
		err = h.ResetEpoch()
	case protocol.SurfaceDispose:
		was := h.Snapshot().State == chatsurface.StateDisposed
		err = h.Dispose()
		// A dispose refused as reentrant (C109) leaves the host as it was.
		if !was && h.Snapshot().State == chatsurface.StateDisposed {
			s.dom.Close()
			s.dom = nil
			delete(e.hosts, s.id)
			sn := h.Snapshot()
			k := tombKey{managed: sn.Mode == "managed", mode: sn.Runtime.Mode, max: sn.Runtime.MaxActive}
			t := e.tombs[k]
			if t == nil {
				t = s
				e.tombs[k] = s
			}
			e.call("disposed", s.id, t.id)
		}
	case protocol.SurfaceElement:
		m, _ := e.value(a.Value(2), false)
		if m.Kind != jsvalue.Number || m.Num != float64(int(m.Num)) || s.dom == nil {
			return 0
		}
		return int(h.MessageElement(int(m.Num)))
	case protocol.SurfaceFault:
		return e.jsError(h.Fault())
	case protocol.SurfaceSnapshot:
		return e.snapshot(h)
	}
	if err != nil {
		return e.fail(err)
	}
	return nil
}

func (e *surfaceEdge) snapshot(h *chatsurface.Host) js.Value {
	sn := h.Snapshot()
	var w bridge.Encoder
	w.Unit(0) // the record's length, set below, so the facade knows how much to read
	w.Unit(0)
	str := func(s string) { w.Units(jsvalue.U(s)) }
	num := func(n int) { w.F64(float64(n)) }
	ints := func(xs []int) {
		num(len(xs))
		for _, x := range xs {
			num(x)
		}
	}
	bit := func(b bool) {
		if b {
			w.Unit(1)
		} else {
			w.Unit(0)
		}
	}
	str(sn.Mode)
	str(string(sn.State))
	num(sn.MessageCount)
	ints(sn.Mounted)
	num(len(sn.Ranges))
	for _, r := range sn.Ranges {
		num(r.Start)
		num(r.End)
	}
	ints(sn.Viewport)
	bit(sn.FollowingTail)
	bit(sn.ProjectionHeld)
	rt := sn.Runtime
	str(rt.Mode)
	num(rt.MaxActive)
	num(rt.Active)
	num(rt.Pending)
	bit(rt.Scheduled)
	bit(rt.Suspended)
	num(len(rt.Candidates))
	for _, c := range rt.Candidates {
		str(c.ParticipantID)
		num(c.Mesid)
		str(c.State)
	}
	ints(sn.PendingPreparations)
	out := w.Out()
	n := len(out) - 2
	out[0], out[1] = uint16(n), uint16(n>>16)
	bridge.Write(out)
	return e.jsError(sn.Fault)
}

// cs_claim is claims.claim(source, activate) of the prepareContent call
// seq for participant pidx on host (C36, C37), through the fast lane: it
// runs once per claimed source of every mount, where js.FuncOf's entry
// cost more than the claim. src is the source's node id (0: not a node),
// act the activate function's ref (0: not a function). It returns 0, or
// Failed with the error for the facade to throw (fail) or, for a contained
// panic, in tc_err.
//
//go:wasmexport cs_claim
func csClaim(host, seq, pidx, src, act int32) (st int32) {
	defer bridge.Contain(&st)
	e := surface
	s := e.hosts[int(host)]
	if s != nil && s.dom == nil {
		s = nil
	}
	e.enter(s) // (the error's JS value is let go at the exit, as for any call)
	defer e.exit(s)
	if s == nil { // disposed since: its hook returned (the facade took no holds)
		e.fail(e.page.LateClaim(pidx))
		return protocol.ClaimFailed
	}
	id := chatsurface.ClaimsID{Seq: seq, Participant: pidx}
	if err := s.h.Claim(id, chatsurface.Node(src), chatsurface.Ref(act)); err != nil {
		e.fail(err)
		return protocol.ClaimFailed
	}
	return bridge.OK
}
