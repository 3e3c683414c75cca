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
// this file moves values between it and js/chat-surface.js:
//
//   - Slow lane (syscall/js): the facade calls the functions newSurfaceEdge
//     sets on its effects object (install, register, createHost, op, claim,
//     frame, timer); Go calls the facade's effect functions (hooks, chat[]
//     access, signals, scheduler, errors). DOM goes through chatsurface/domjs.
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

	fns    map[string]js.Value // the facade's functions, by name (call)
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
	set := func(name string, f func(args []js.Value) any) {
		fx.Set(name, bridge.FuncOf(func(_ js.Value, args []js.Value) any { return f(args) }, onPanic))
	}
	set("install", e.install)
	set("managed", func([]js.Value) any { return e.page.Managed() })
	set("register", e.register)
	set("fault", e.participantFault)
	set("createHost", e.createHost)
	set("op", e.op)
	set("claim", e.claim)
	set("processor", e.processor)
	set("finish", e.finish)
	set("refresh", e.refresh)
	set("tables", e.tables)
	set("startup", e.startup)
}

// call invokes one of the facade's effect functions, looked up once (a
// call by name would convert the name on every call).
func (e *surfaceEdge) call(name string, args ...any) js.Value {
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
	case protocol.SurfaceScroll:
		f = func(s *surfaceHost) { s.h.OnScroll() }
	case protocol.SurfaceScrollEnd:
		f = func(s *surfaceHost) { s.h.OnScrollEnd() }
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

// ---- text ----

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

func units(s string) []uint16 { return jsvalue.FromWTF8(s) }

// ---- values and errors ----

// value describes v for the core; withStr also fills Str with String(v)
// (a throwing conversion is reported as thrown).
func (e *surfaceEdge) value(v js.Value, withStr bool) (chatsurface.Value, *chatsurface.JSValue) {
	var out chatsurface.Value
	switch v.Type() {
	case js.TypeUndefined:
		out = chatsurface.Undefined
	case js.TypeNull:
		out = chatsurface.Value{Type: chatsurface.TypeNull}
	case js.TypeBoolean:
		out = chatsurface.Bool(v.Bool())
	case js.TypeNumber:
		out = chatsurface.Value{Type: chatsurface.TypeNumber, Num: v.Float()}
	case js.TypeString:
		out = chatsurface.Value{Type: chatsurface.TypeString}
	case js.TypeFunction:
		out = chatsurface.Value{Type: chatsurface.TypeFunction}
	case js.TypeSymbol:
		out = chatsurface.Value{Type: chatsurface.TypeSymbol}
	default:
		out = chatsurface.Value{Type: chatsurface.TypeObject}
		if e.call("isBigInt", v).Bool() {
			out.Type = chatsurface.TypeBigInt
		}
	}
	if withStr || out.Type == chatsurface.TypeString {
		str, ok := e.toStr(v)
		if !ok {
			return out, e.takeThrown()
		}
		out.Str = str
	}
	return out, nil
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
		n := bridge.Write(units(x.Message))
		v := e.call("makeError", int(x.Class), bridge.Addr(), n, x.Cause != nil, cause)
		e.memo[x] = v
		return v
	}
	n := bridge.Write(units("tavern-core internal error: " + err.Error()))
	return e.call("makeError", 0, bridge.Addr(), n, false, js.Undefined())
}

// fail hands err to the facade, which throws it.
func (e *surfaceEdge) fail(err error) js.Value {
	e.call("fail", e.jsError(err))
	return e.failMark
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
			s.h.Abandon(&chatsurface.Error{Class: chatsurface.ClassError, Code: "internal",
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
	for _, r := range e.thrown {
		if !keep[r] {
			e.call("release", int(r))
		}
	}
	e.thrown = e.thrown[:0]
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

// tables reports the edge's and the live hosts' table sizes for leak checks
// (issue 5); the facade adds its own and exposes the sum on the core
// instance, never on the public API (C13).
func (e *surfaceEdge) tables([]js.Value) any {
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
	for k, v := range map[string]int{"ids": ids, "mounted": mounted, "sizes": sizes,
		"dirty": dirty, "candidates": cands, "desired": desired, "openClaims": claims, "transient": transient} {
		o.Set(k, v)
	}
	return o
}

// ---- page ----

func (e *surfaceEdge) install(a []js.Value) any {
	e.enter(nil)
	defer e.exit(nil)
	var vals [3]chatsurface.Value
	for i := range vals {
		vals[i], _ = e.value(a[i], false)
	}
	if err := e.page.Install(vals[0], vals[1], vals[2]); err != nil {
		return e.fail(err)
	}
	return nil
}

// definition reads a participant definition for Registry.Register (C18).
type definition struct {
	e    *surfaceEdge
	v    js.Value
	refs []chatsurface.Ref
}

func (d *definition) Value() chatsurface.Value {
	v, _ := d.e.value(d.v, false)
	return v
}

func (d *definition) OwnKeys() []string {
	keys := d.e.call("keys", d.v)
	out := make([]string, keys.Length())
	for i := range out {
		out[i] = d.e.str(keys.Index(i))
	}
	return out
}

func (d *definition) Get(name string, withStr bool) (chatsurface.Value, *chatsurface.JSValue) {
	r := d.e.call("get", d.v, name)
	if r.Equal(d.e.failMark) {
		return chatsurface.Value{}, d.e.takeThrown()
	}
	v, thrown := d.e.value(r, withStr)
	if thrown == nil && v.Type == chatsurface.TypeFunction {
		v.Func = chatsurface.Ref(d.e.call("addRef", r).Int())
		d.refs = append(d.refs, v.Func)
	}
	return v, thrown
}

func (e *surfaceEdge) register(a []js.Value) any {
	e.enter(nil)
	defer e.exit(nil)
	d := &definition{e: e, v: a[0]}
	idx, err := e.page.Registry.Register(d)
	if err != nil {
		for _, r := range d.refs {
			e.call("release", int(r))
		}
		return e.fail(err)
	}
	return idx
}

// participantFault is registration.fault(error) (C21): never throws.
func (e *surfaceEdge) participantFault(a []js.Value) any {
	e.enter(nil)
	defer e.exit(nil)
	e.call("hold", a[1])
	e.page.Registry.Fault(a[0].Int(), e.takeThrown())
	return nil
}

// processor is registerContentProcessor (C113): Go checks in order; a
// registered prepare stays in the facade's ref table for the page.
func (e *surfaceEdge) processor(a []js.Value) any {
	e.enter(nil)
	defer e.exit(nil)
	id, prepare := chatsurface.Undefined, chatsurface.Undefined
	d := a[0]
	if t := d.Type(); !e.page.ContentStarted() && (t == js.TypeObject || t == js.TypeFunction) {
		iv := e.call("get", d, "id")
		if iv.Equal(e.failMark) {
			return e.fail(e.takeThrown())
		}
		id, _ = e.value(iv, false)
		pv := e.call("get", d, "prepare")
		if pv.Equal(e.failMark) {
			return e.fail(e.takeThrown())
		}
		if pv.Type() == js.TypeFunction {
			prepare = chatsurface.Value{Type: chatsurface.TypeFunction, Func: chatsurface.Ref(e.call("addRef", pv).Int())}
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

// liveHost is the surfaceHost of the page's live host, or nil.
func (e *surfaceEdge) liveHost() *surfaceHost {
	h := e.page.Host()
	if h == nil {
		return nil
	}
	for _, s := range e.hosts {
		if s.h == h && s.dom != nil {
			return s
		}
	}
	return nil
}

// refresh is a processor registration's refresh() (C129): phase 0 clears
// synchronously, phase 1 (a later microtask) updates and settles wait a[1].
// It returns false when there is no live host (the facade then resolves).
func (e *surfaceEdge) refresh(a []js.Value) any {
	s := e.liveHost()
	if s == nil {
		return false
	}
	e.enter(s)
	defer e.exit(s)
	if a[0].Int() == 0 {
		s.h.RefreshClear()
	} else {
		s.h.RefreshApply(chatsurface.Wait(a[1].Int()))
	}
	return true
}

// finish is finishContent(mesid, event, ...args) (C131): a[0] host,
// a[1] mesid, a[2] whether an event was given, a[3] the wait id.
func (e *surfaceEdge) finish(a []js.Value) any {
	s := e.host(a[0].Int())
	if s == nil {
		panic("chatsurface: unknown host")
	}
	e.enter(s)
	defer e.exit(s)
	m, _ := e.value(a[1], false)
	if err := s.h.FinishContent(m, chatsurface.Wait(a[3].Int()), a[2].Truthy()); err != nil {
		return e.fail(err)
	}
	return nil
}

// The content processors' calls into Go run per layer of every request, so
// they take the fast lane (no js.Value per call).

// cs_render_base is renderBase() of processor call token on host (C115):
// 1 when the facade must make the Promise, 0 for the one made before.
//
//go:wasmexport cs_render_base
func csRenderBase(host, token int32) (st int32) {
	defer bridge.Contain(&st)
	surface.event(int(host), func(s *surfaceHost) {
		if s.h.RenderBase(chatsurface.Token(token)) {
			st = 1
		}
	})
	return st
}

// cs_processor_done delivers prepare's fulfilment value for call token: its
// kind (protocol KIND) and, for a string, its n units in the buffer.
//
//go:wasmexport cs_processor_done
func csProcessorDone(host, token, kind, n int32) (st int32) {
	defer bridge.Contain(&st)
	v := chatsurface.Value{Type: chatsurface.TypeObject}
	if jsvalue.Kind(kind) == jsvalue.String {
		v = chatsurface.Str(jsvalue.WTF8(bridge.Buf()[:n]))
	}
	surface.event(int(host), func(s *surfaceHost) { s.h.ProcessorDone(chatsurface.Token(token), v) })
	return bridge.OK
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

// ---- startChatSurfaceExtensions (C133–C139) ----

// startHookOrder is the order of StartHook's hook arguments.
var startHookOrder = [...]chatsurface.HookKey{chatsurface.ChatSurfaceHook, chatsurface.ActivateHook}

// startup runs one step (protocol.Start*) for the facade's walk: a[1] and
// a[2] are the step's arguments.
func (e *surfaceEdge) startup(a []js.Value) any {
	e.enter(nil)
	defer e.exit(nil)
	switch a[0].Int() {
	case protocol.StartDefaults:
		reqs := chatsurface.DefaultRequirements()
		out := js.Global().Get("Array").New(len(reqs))
		for i, r := range reqs {
			o := js.Global().Get("Object").New()
			o.Set("extensionName", r.ExtensionName)
			o.Set("participantId", r.ParticipantID)
			out.SetIndex(i, o)
		}
		return e.call("freezeDeep", out)
	case protocol.StartValidate:
		reqs, err := e.requirements(a[1])
		if err != nil {
			return e.fail(err)
		}
		e.nextReqs++
		e.reqs[e.nextReqs] = reqs
		return e.nextReqs
	case protocol.StartRequired:
		name := ""
		if a[2].Type() == js.TypeString {
			name = e.str(a[2])
		}
		return chatsurface.Required(name, e.reqs[a[1].Int()])
	case protocol.StartHook:
		// a[1], a[2] are hooks.chatSurface and hooks.activate; the answer is
		// the 1-based position of the one to call, 0 for none.
		var hooks [2]*string
		for i, v := range a[1:3] {
			if v.Type() == js.TypeString {
				s := e.str(v)
				hooks[i] = &s
			}
		}
		for i, k := range startHookOrder {
			if chatsurface.StartupHook(hooks[0], hooks[1]) == k {
				return i + 1
			}
		}
		return 0
	case protocol.StartHookError:
		// a[3] is the position StartHook answered.
		key := chatsurface.NoHook
		if p := a[3].Int(); p >= 1 && p <= len(startHookOrder) {
			key = startHookOrder[p-1]
		}
		return e.fail(chatsurface.ErrHookNotFunction(key, e.str(a[1]), e.str(a[2])))
	case protocol.StartGate:
		var names []string
		for i, n := 0, a[2].Length(); i < n; i++ {
			if v := a[2].Index(i); v.Type() == js.TypeString {
				names = append(names, e.str(v))
			}
		}
		if err := e.page.Registry.Gate(names, e.reqs[a[1].Int()]); err != nil {
			return e.fail(err)
		}
	case protocol.StartDone:
		delete(e.reqs, a[1].Int())
	}
	return nil
}

// requirements reads and validates a requirements value (C137): an array
// of non-null objects with string extensionName and participantId.
func (e *surfaceEdge) requirements(v js.Value) ([]chatsurface.Requirement, error) {
	if !js.Global().Get("Array").Call("isArray", v).Bool() {
		return nil, chatsurface.ErrRequirementsNotArray()
	}
	n := v.Length()
	out := make([]chatsurface.Requirement, 0, n)
	for i := 0; i < n; i++ {
		q := v.Index(i)
		if q.Type() != js.TypeObject || q.IsNull() {
			return nil, chatsurface.ErrMalformedRequirement()
		}
		var f [2]string
		for k, name := range [2]string{"extensionName", "participantId"} {
			x := e.call("get", q, name)
			if x.Equal(e.failMark) {
				return nil, e.takeThrown()
			}
			if x.Type() != js.TypeString {
				return nil, chatsurface.ErrMalformedRequirement()
			}
			f[k] = e.str(x)
		}
		out = append(out, chatsurface.Requirement{ExtensionName: f[0], ParticipantID: f[1]})
	}
	return out, nil
}

// ---- host ----

func (e *surfaceEdge) createHost(a []js.Value) any {
	e.enter(nil)
	defer e.exit(nil)
	o := a[0]
	g := js.Global()
	get := func(name string) chatsurface.Value {
		v, _ := e.value(o.Get(name), false)
		return v
	}
	rootID := chatsurface.Node(a[1].Int()) // the facade named the root when it is an element
	id := a[2].Int()                       // and chose the host's id
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

func (e *surfaceEdge) op(a []js.Value) any {
	s := e.host(a[0].Int())
	if s == nil {
		panic("chatsurface: unknown host")
	}
	e.enter(s)
	defer e.exit(s)
	h := s.h
	var err error
	switch a[1].Int() {
	case protocol.SurfaceOpen:
		if err = h.Open(); err == nil && a[4].Truthy() {
			h.WaitMounted(chatsurface.Wait(a[4].Int()))
		}
	case protocol.SurfaceRender:
		o := chatsurface.RenderOptions{}
		if rep := a[2]; rep.Type() == js.TypeObject {
			for i, n := 0, rep.Length(); i < n; i++ {
				if v := rep.Index(i); v.Type() == js.TypeNumber {
					o.Replace = append(o.Replace, v.Int())
				}
			}
		}
		var thrown *chatsurface.JSValue
		if o.First, thrown = e.value(a[3], a[3].Type() != js.TypeUndefined); thrown != nil {
			return e.fail(thrown)
		}
		if err = h.Render(o); err == nil && a[4].Truthy() {
			h.WaitMounted(chatsurface.Wait(a[4].Int()))
		}
	case protocol.SurfaceUpdate:
		m, _ := e.value(a[2], false)
		var mounted bool
		mounted, err = h.UpdateContent(m, a[3].Truthy())
		if err == nil {
			return mounted
		}
	case protocol.SurfaceJump:
		t, thrown := e.value(a[2], true)
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
		err = h.SetProjectionHeld(a[2].Truthy())
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
		m, _ := e.value(a[2], false)
		if m.Type != chatsurface.TypeNumber || m.Num != float64(int(m.Num)) || s.dom == nil {
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
	obj := func() js.Value { return js.Global().Get("Object").New() }
	ints := func(xs []int) js.Value {
		a := js.Global().Get("Array").New(len(xs))
		for i, x := range xs {
			a.SetIndex(i, x)
		}
		return a
	}
	o := obj()
	o.Set("mode", sn.Mode)
	o.Set("state", string(sn.State))
	o.Set("messageCount", sn.MessageCount)
	o.Set("mounted", ints(sn.Mounted))
	ranges := js.Global().Get("Array").New(len(sn.Ranges))
	for i, r := range sn.Ranges {
		x := obj()
		x.Set("start", r.Start)
		x.Set("end", r.End)
		ranges.SetIndex(i, x)
	}
	o.Set("ranges", ranges)
	o.Set("viewport", ints(sn.Viewport))
	o.Set("followingTail", sn.FollowingTail)
	o.Set("projectionHeld", sn.ProjectionHeld)
	rt := obj()
	rt.Set("mode", sn.Runtime.Mode)
	rt.Set("maxActive", sn.Runtime.MaxActive)
	rt.Set("active", sn.Runtime.Active)
	rt.Set("pending", sn.Runtime.Pending)
	rt.Set("scheduled", sn.Runtime.Scheduled)
	rt.Set("suspended", sn.Runtime.Suspended)
	cands := js.Global().Get("Array").New(len(sn.Runtime.Candidates))
	for i, c := range sn.Runtime.Candidates {
		x := obj()
		x.Set("participantId", c.ParticipantID)
		x.Set("mesid", c.Mesid)
		x.Set("state", c.State)
		cands.SetIndex(i, x)
	}
	rt.Set("candidates", cands)
	o.Set("runtime", rt)
	o.Set("pendingPreparations", ints(sn.PendingPreparations))
	o.Set("fault", e.jsError(sn.Fault))
	return e.call("freezeDeep", o)
}

func (e *surfaceEdge) claim(a []js.Value) any {
	s := e.hosts[a[0].Int()]
	if s == nil || s.dom == nil {
		panic("chatsurface: unknown host")
	}
	e.enter(s)
	defer e.exit(s)
	id := chatsurface.ClaimsID{Seq: int32(a[1].Int()), Participant: int32(a[2].Int())}
	src := chatsurface.Node(a[3].Int()) // the facade named the source (0: not a node)
	if err := s.h.Claim(id, src, chatsurface.Ref(a[4].Int())); err != nil {
		return e.fail(err)
	}
	return nil
}

// ---- Callbacks and Scheduler ----

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
func (c *surfaceCallbacks) Messages() chatsurface.Pass {
	switch n := c.e.call("messages", c.host).Int(); {
	case n == -1:
		return chatsurface.Pass{Bad: c.e.fx.Get("bad").Int()}
	case n == -2:
		return chatsurface.Pass{Bad: -1, Thrown: c.e.takeThrown()}
	case n == -3:
		return chatsurface.Pass{Bad: -1, Length: c.e.fx.Get("bad").Float()}
	default:
		u := bridge.Buf()
		ids := make([]chatsurface.MessageID, n)
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

// ---- ProcessorCallbacks (C113–C131) ----

// Version is C121's version, written into the buffer (-1: it threw).
func (c *surfaceCallbacks) Version(msg chatsurface.MessageID, mesid int, req chatsurface.Signal) (string, *chatsurface.JSValue) {
	n := c.e.call("version", c.host, int(msg), mesid, int(req)).Int()
	if n < 0 {
		return "", c.e.takeThrown()
	}
	return jsvalue.WTF8(bridge.Buf()[:n]), nil
}

func (c *surfaceCallbacks) NewRequest(msg chatsurface.MessageID, mesid int) chatsurface.Signal {
	return chatsurface.Signal(c.e.call("newRequest", c.host, int(msg), mesid).Int())
}

func (c *surfaceCallbacks) CallProcessor(token chatsurface.Token, prepare chatsurface.Ref, msg chatsurface.MessageID, mesid int, sig chatsurface.Signal) {
	c.e.call("callProcessor", c.host, int(token), int(prepare), int(msg), mesid, int(sig))
}

func (c *surfaceCallbacks) SettleBase(token chatsurface.Token, html string, err error) {
	if err != nil {
		c.e.call("settleBase", int(token), true, c.e.jsError(err))
		return
	}
	c.e.call("settleBase", int(token), false, bridge.Write(units(html))) // the facade reads the units
}

func (c *surfaceCallbacks) AbortRequest(s chatsurface.Signal) { c.e.call("abortRequest", int(s)) }

func (c *surfaceCallbacks) Settle(w chatsurface.Wait, emit bool, err error) {
	if err != nil {
		c.e.call("settle", int(w), false, true, c.e.jsError(err))
		return
	}
	c.e.call("settle", int(w), emit, false, js.Undefined())
}
