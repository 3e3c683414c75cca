//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/chatsurface/domjs"
	"tavern-core/jsvalue"
	"tavern-core/protocol"
)

// The chat surface edge (spec/chatsurface.md). The core decides everything;
// these files move values between it and js/chat-surface.js:
//
//   - Slow lane (syscall/js): the facade calls the functions newSurfaceEdge
//     sets on its effects object (install, register, createHost, op, claim,
//     frame, timer), which read their arguments with bridge.Args; Go calls
//     the facade's effect functions (hooks, chat[] access, signals,
//     scheduler, errors). DOM goes through chatsurface/domjs.
//   - Fast lane: chat[] crosses as ids, never as objects. The structural pass
//     is one call in which the facade writes every message's WeakMap id into
//     the shared buffer (bridge.Reserve) as two units; Go reads them without
//     a js.Value per message. MessageAt and Count are number-only calls.
//
// Errors: a Go *Error becomes ONE JS object, memoised by pointer, so the
// value thrown, getFault(), snapshot().fault, onFault and later causes are
// identical (C103). A thrown JS value lives in the facade's ref table and is
// rethrown by identity (C6). Refs for thrown values and memo entries are
// dropped at the end of each outermost call unless a fault still names them,
// so memory stays flat.
//
// This file holds the edge itself (its tables, the enter/exit bracket, the
// fast-lane events); chatsurface_values.go moves values and errors,
// chatsurface_page.go the page's registrations, chatsurface_startup.go
// startChatSurfaceExtensions, chatsurface_host.go a host's operations,
// chatsurface_callbacks.go the host's calls into the facade, and
// chatsurface_processors.go the content processors.

type surfaceEdge struct {
	fx       js.Value // the facade's effects object
	failMark js.Value // returned to the facade when an error is pending
	internal js.Value // returned when a panic was contained (tc_err holds it)
	page     *chatsurface.Page
	hosts    map[int]*surfaceHost
	nextHost int
	// tombs holds one disposed host per kind (mode, runtime mode, limit):
	// every disposed host of a kind answers identically, so a disposed
	// host's entry goes and its facade object is retargeted to the tomb,
	// keeping the tables flat over create/dispose cycles (issue 5).
	tombs map[tombKey]*surfaceHost

	fns map[string]js.Value // the facade's functions, by name (call)
	// A base settlement the running processor call returns (flushInline).
	inlineSet   bool
	inlineToken chatsurface.Token
	inlineHTML  string
	inlineFrom  chatsurface.Token // non-zero: the result the facade keeps for that token, not inlineHTML
	// read is C119's version read that came with the running
	// cs_processor_done (CurrentVersion takes it).
	read   versionRead
	memo   map[*chatsurface.Error]js.Value
	thrown []chatsurface.Ref
	depth  int

	// reqs holds the validated requirements of each running
	// startChatSurfaceExtensions call (C133–C137), by call id.
	reqs     map[int][]chatsurface.Requirement
	nextReqs int
}

type tombKey struct {
	managed bool
	mode    string
	max     int
}

type surfaceHost struct {
	id  int
	h   *chatsurface.Host
	dom *domjs.DOM
	cb  *surfaceCallbacks
}

var surface *surfaceEdge

func newSurfaceEdge(fx js.Value) {
	e := &surfaceEdge{fx: fx, failMark: fx.Get("FAIL"), internal: fx.Get("INTERNAL"),
		reqs: map[int][]chatsurface.Requirement{}, page: chatsurface.NewPage(), hosts: map[int]*surfaceHost{}, tombs: map[tombKey]*surfaceHost{}, memo: map[*chatsurface.Error]js.Value{},
		fns: map[string]js.Value{}}
	surface = e
	// A contained panic leaves its record for tc_err; the facade throws it.
	onPanic := func(err *apierr.Error) any { bridge.Fail(err); return e.internal }
	set := func(name string, f func(a bridge.Args) any) {
		fx.Set(name, bridge.FuncOf(func(_ js.Value, args []js.Value) any { return f(bridge.ArgsOf(name, args)) }, onPanic))
	}
	set("install", e.install)
	set("managed", func(bridge.Args) any { return e.page.Managed() })
	set("forget", func(bridge.Args) any { e.page.Forget(); return nil })
	set("register", e.register)
	set("fault", e.participantFault)
	set("createHost", e.createHost)
	set("op", e.op)
	set("processor", e.processor)
	set("finish", e.finish)
	set("tables", e.tables)
	set("startup", e.startup)
}

// call invokes one of the facade's effect functions, looked up once (a
// call by name would convert the name on every call).
func (e *surfaceEdge) call(name string, args ...any) js.Value {
	if e.inlineSet {
		e.flushInline() // it settles before anything else reaches JS
	}
	f, ok := e.fns[name]
	if !ok {
		f = e.fx.Get(name)
		e.fns[name] = f
	}
	return f.Invoke(args...)
}

// cs_event delivers what the browser tells a host — a frame or timer it
// asked for (arg: its id), the root's scroll, scrollend and mutation
// notifications, and resize notifications (arg: how many mounted roots'
// ids wait in the shared buffer, two units each) — through the fast lane:
// no js.Value is made per notification.
//
//go:wasmexport cs_event
func csEvent(host, kind, arg int32) (st int32) {
	defer bridge.Contain(&st)
	e := surface
	var f func(s *surfaceHost)
	switch kind {
	case protocol.SurfaceFrame:
		f = func(s *surfaceHost) { s.h.Frame(int(arg)) }
	case protocol.SurfaceTimer:
		f = func(s *surfaceHost) { s.h.Timer(int(arg)) }
	case protocol.SurfaceScroll, protocol.SurfaceScrollEnd:
		// arg 1: the listener's read of the root waits in the shared buffer,
		// scrollTop, clientHeight and scrollHeight as three raw numbers.
		var read []float64
		if arg == 1 {
			var d bridge.Decoder
			d.Reset(bridge.Buf(), 12)
			read = []float64{d.F64(), d.F64(), d.F64()}
		}
		end := kind == protocol.SurfaceScrollEnd
		f = func(s *surfaceHost) { s.h.ScrollEvent(end, read) }
	case protocol.SurfaceMutation:
		f = func(s *surfaceHost) { s.h.OnMutation() }
	case protocol.SurfaceResize:
		u := bridge.Buf()
		roots := make([]chatsurface.Node, arg)
		for i := range roots {
			roots[i] = chatsurface.Node(int32(uint32(u[2*i]) | uint32(u[2*i+1])<<16))
		}
		f = func(s *surfaceHost) { s.h.OnResize(roots) }
	default:
		return bridge.OK
	}
	e.event(int(host), f)
	return bridge.OK
}

// enter/exit bracket every call into the core: thrown refs live until the
// outermost exit.
func (e *surfaceEdge) enter(s *surfaceHost) { e.depth++ }

// exit is always deferred: a panic under the call abandons the host's
// operation (Host.Abandon) before it goes on to the entry's containment, so
// the host is faulted, not wedged.
func (e *surfaceEdge) exit(s *surfaceHost) {
	if r := recover(); r != nil {
		if s != nil && s.h != nil {
			s.h.Abandon(&chatsurface.Error{Class: apierr.PlainError, Code: "internal",
				Message: jsvalue.WTF8(bridge.Internal(r).Message)})
		}
		defer panic(r)
	}
	e.depth--
	if e.depth > 0 {
		return
	}
	e.depth = 0
	if len(e.thrown) == 0 && len(e.memo) == 0 {
		return // nothing to let go of (the common case)
	}
	keep := map[chatsurface.Ref]bool{}
	live := map[*chatsurface.Error]bool{}
	var mark func(err error)
	mark = func(err error) {
		switch x := err.(type) {
		case *chatsurface.JSValue:
			keep[x.Ref], keep[x.ErrorRef] = true, true
		case *chatsurface.Error:
			live[x] = true
			mark(x.Cause)
		}
	}
	mark(e.page.Registry.FaultError())
	for _, s := range e.hosts {
		if s.h != nil {
			mark(s.h.Fault())
		}
	}
	// Refs a fault names stay listed, so they are let go of at the first
	// exit after a reset or dispose clears that fault (they leaked).
	kept := e.thrown[:0]
	for _, r := range e.thrown {
		if keep[r] {
			kept = append(kept, r)
		} else {
			e.call("release", int(r))
		}
	}
	e.thrown = kept
	for k := range e.memo {
		if !live[k] {
			delete(e.memo, k)
		}
	}
}

// event runs a frame, timer or observer notification for a host.
func (e *surfaceEdge) event(id int, f func(s *surfaceHost)) {
	s := e.hosts[id]
	if s == nil || s.dom == nil {
		return
	}
	e.enter(s)
	defer e.exit(s)
	f(s)
}

// hostTables names the host tables' sums that tables reports, in order.
var hostTables = [...]string{"ids", "mounted", "sizes", "dirty", "candidates", "desired", "openClaims", "transient"}

// tables reports the edge's and the live hosts' table sizes for leak checks
// (issue 5); the facade adds its own and exposes the sum on the core
// instance, never on the public API (C13).
func (e *surfaceEdge) tables(bridge.Args) any {
	o := js.Global().Get("Object").New()
	o.Set("hosts", len(e.hosts))
	o.Set("tombs", len(e.tombs))
	o.Set("startups", len(e.reqs))
	o.Set("memo", len(e.memo))
	o.Set("thrown", len(e.thrown))
	var ids, mounted, sizes, dirty, cands, desired, claims, transient int
	for _, s := range e.hosts {
		if s.h != nil {
			t := s.h.Tables()
			ids += t.IDs
			mounted += t.Mounted
			sizes += t.Sizes
			dirty += t.Dirty
			cands += t.Candidates
			desired += t.Desired
			claims += t.OpenClaims
			transient += t.Transient
		}
	}
	for i, v := range [...]int{ids, mounted, sizes, dirty, cands, desired, claims, transient} {
		o.Set(hostTables[i], v)
	}
	return o
}
