package takeover

import (
	"strings"
	"testing"

	"tavern-core/jsvalue"
)

// fakeHost interprets driver actions the way js/takeover-host.js does and
// records every host callback but isCurrentGeneration, like the spec's
// driver scenarios (§13).
type fakeHost struct {
	t        *testing.T
	d        *Driver
	log      []string
	errs     []string
	warns    []string
	live     bool
	fails    map[HostFn]bool
	snapshot [2]jsvalue.Kind
	cleanup  jsvalue.Kind
	status   State
	// hooks
	onDispatch  func(*Dispatch)
	onSubscribe func()
	onCall      map[HostFn]func()
	result      Result
}

func newFakeHost(t *testing.T) *fakeHost {
	return &fakeHost{t: t, live: true, fails: map[HostFn]bool{}, onCall: map[HostFn]func(){},
		snapshot: [2]jsvalue.Kind{jsvalue.String, jsvalue.String}, cleanup: jsvalue.String, status: Committed}
}

func fullHost() HostDesc {
	var d HostDesc
	d.Init = jsvalue.Opaque(jsvalue.Object, 1)
	d.InitSignalValid = true
	d.Host = jsvalue.Opaque(jsvalue.Object, 2)
	for f := range d.Members {
		d.Members[f] = jsvalue.Function
	}
	return d
}

func desc(typ string, drop ...HostFn) HostDesc {
	d := fullHost()
	d.Type = str(typ)
	for _, f := range drop {
		d.Members[f] = jsvalue.Undefined
	}
	return d
}

func argNames(a []Arg) string {
	names := map[Arg]string{ArgSlot: "slot", ArgType: "type", ArgPayload: "payload", ArgToken: "token",
		ArgFinalText: "finalText", ArgFinalReasoning: "finalReasoning", ArgCleaned: "cleaned", ArgSnapText: "snapText",
		ArgSnapReasoning: "snapReasoning", ArgTypeObj: "{type}", ArgCleanupObj: "{type,isContinue}", ArgAfterObj: "{type,text}",
		ArgEventDefault: "event", ArgEventOverride: "eventOverride", ArgLive: "live"}
	var out []string
	for _, x := range a {
		out = append(out, names[x])
	}
	return strings.Join(out, ",")
}

func (h *fakeHost) exec(a Action) Input {
	switch a.Op {
	case OpDispatch:
		if h.onDispatch != nil {
			h.onDispatch(h.d.Dispatch())
		}
		h.log = append(h.log, "emit(dispatch)")
		if h.fails[FnEmit] {
			h.errs = append(h.errs, jsvalue.GoString(a.Log))
		}
		return Input{}
	case OpCall:
		if a.Fn == FnIsCurrentGeneration {
			return Input{Live: h.live}
		}
		name := a.Fn.String()
		if a.Fn == FnEmit {
			name += " " + EventDefault(a.Event)
		}
		h.log = append(h.log, name+"("+argNames(a.Args)+")")
		if f := h.onCall[a.Fn]; f != nil {
			f()
		}
		if h.fails[a.Fn] {
			h.errs = append(h.errs, jsvalue.GoString(a.Log))
			return Input{Failed: true}
		}
		switch a.Store {
		case StoreSnapshot:
			return Input{Kinds: h.snapshot}
		case StoreCleanup:
			return Input{Kinds: [2]jsvalue.Kind{h.cleanup}}
		}
		return Input{}
	case OpWarn:
		h.warns = append(h.warns, jsvalue.GoString(a.Message))
	case OpSubscribe:
		h.log = append(h.log, "subscribe")
		if h.onSubscribe != nil {
			h.onSubscribe()
		}
	case OpAwaitComplete:
		return Input{Status: h.status}
	case OpUnsubscribe:
		h.log = append(h.log, "unsubscribe")
	case OpUseCleaned:
		if a.Log != nil {
			h.errs = append(h.errs, jsvalue.GoString(a.Log)+": "+jsvalue.GoString(a.Message))
		}
		h.log = append(h.log, map[bool]string{true: "cleaned=result", false: "cleaned=finalText"}[a.Keep[0]])
	case OpUseSnapshot:
		h.log = append(h.log, "snapshot="+map[bool]string{true: "text", false: "''"}[a.Keep[0]]+"/"+map[bool]string{true: "reasoning", false: "''"}[a.Keep[1]])
	}
	return Input{}
}

// liveUpdate is the handle delivering an update to the driver.
func (h *fakeHost) liveUpdate() {
	acts := h.d.LiveUpdate(false, false)
	if len(acts) == 1 && acts[0].Fn == FnIsCurrentGeneration {
		acts = h.d.LiveUpdate(true, h.exec(acts[0]).Live)
	}
	for _, a := range acts {
		h.exec(a)
	}
}

func (h *fakeHost) run(k *Kernel, d HostDesc) Result {
	drv, err := k.StartDriver(d)
	if err != nil {
		h.t.Fatalf("start: %v", err)
	}
	h.d = drv
	in := Input{}
	for i := 0; i < 100; i++ {
		a := drv.Next(in)
		if a.Op == OpDone {
			h.result = a.Result
			return a.Result
		}
		in = h.exec(a)
	}
	h.t.Fatal("driver did not finish")
	return Result{}
}

func claimWith(w *world, owner string, gen string) func(*Dispatch) {
	return func(d *Dispatch) {
		h := w.H(func(o *opts) { o.owner = str(owner); o.gen = str(gen) })
		if c := d.Assign(Candidate{IsHandle: true, Ref: h.ID, Owner: jsvalue.U(owner)}); !c.Accepted {
			panic("claim refused")
		}
	}
}

func wantLog(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// S84 T56–T58: the committed path, in order.
func TestS84_CommittedPathOrder(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.onDispatch = claimWith(w, "p", "normal")
	h.onSubscribe = func() { h.liveUpdate(); h.liveUpdate() }
	res := h.run(w.k, desc("normal"))
	wantLog(t, h.log,
		"emit(dispatch)", "onClaimed(payload)", "acquirePlaceholder(type)", "readSlot(slot)", "snapshot=text/reasoning", "subscribe",
		"writeSlot(slot,live)", "redraw(slot)", "writeSlot(slot,live)", "redraw(slot)", "unsubscribe",
		"cleanupText(finalText,{type,isContinue})", "cleaned=result", "writeSlot(slot,cleaned,finalReasoning)", "redraw(slot)",
		"persist(slot,{type})", "emit message_received(event,slot,type)", "emit character_message_rendered(event,slot,type)",
		"afterCommit(slot,{type,text})", "unlockUI()")
	if !res.Dispatched || !res.Claimed || jsvalue.GoString(res.Owner) != "p" || res.Status != Committed || !res.HasSlot || !res.HasText || res.Stale {
		t.Fatalf("result %+v", res)
	}
}

// S87 T59: the aborted path writes synchronously and only unlocks.
func TestS87_AbortedPath(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.status = Aborted
	h.onDispatch = claimWith(w, "p", "normal")
	res := h.run(w.k, desc("normal", FnOnClaimed))
	wantLog(t, h.log[len(h.log)-6:], "unsubscribe", "cleanupText(finalText,{type,isContinue})", "cleaned=result",
		"writeSlot(slot,cleaned,finalReasoning)", "redraw(slot)", "unlockUI()")
	if res.Status != Aborted || !res.HasText {
		t.Fatalf("%+v", res)
	}
	// The write is not awaited; unlockUI comes after.
	h2 := newFakeHost(t)
	h2.status = Aborted
	h2.onDispatch = claimWith(w, "p", "normal")
	drv, _ := w.k.StartDriver(desc("normal", FnOnClaimed))
	h2.d = drv
	in := Input{}
	var awaited []string
	for {
		a := drv.Next(in)
		if a.Op == OpDone {
			break
		}
		if a.Op == OpCall && a.Await {
			awaited = append(awaited, a.Fn.String())
		}
		in = h2.exec(a)
	}
	if strings.Join(awaited, ",") != "acquirePlaceholder,readSlot,unlockUI" {
		t.Fatalf("awaited %v", awaited)
	}
}

// S87 T59 + the full log of an aborted normal run.
func TestT59_AbortedFullLog(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.status = Aborted
	h.onDispatch = claimWith(w, "p", "normal")
	h.run(w.k, desc("normal", FnOnClaimed, FnCleanupText, FnAfterCommit))
	wantLog(t, h.log, "emit(dispatch)", "acquirePlaceholder(type)", "readSlot(slot)", "snapshot=text/reasoning", "subscribe",
		"unsubscribe", "cleaned=finalText", "writeSlot(slot,cleaned,finalReasoning)", "redraw(slot)", "unlockUI()")
}

// S88 S89 T60: discard rolls back from the snapshot by type.
func TestS88S89_DiscardRollback(t *testing.T) {
	for _, c := range []struct{ typ, rollback string }{
		{"normal", "removeSlot(slot)"}, {"regenerate", "removeSlot(slot)"},
		{"continue", "restoreSlot(slot,snapText,snapReasoning)"}, {"swipe", "restoreSlot(slot,snapText,snapReasoning)"},
	} {
		w := newWorld(t)
		h := newFakeHost(t)
		h.status = Discarded
		h.onDispatch = claimWith(w, "p", c.typ)
		res := h.run(w.k, desc(c.typ, FnOnClaimed))
		wantLog(t, h.log[5:], "unsubscribe", c.rollback, "emit generation_stopped(event)", "unlockUI()")
		if res.HasText || res.Status != Discarded {
			t.Fatalf("%s: %+v", c.typ, res)
		}
	}
}

// S90 T62: a failing rollback is logged; stop and unlock still happen.
func TestS90_RollbackFailureContained(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.status = Discarded
	h.fails[FnRemoveSlot] = true
	h.onDispatch = claimWith(w, "p", "normal")
	h.run(w.k, desc("normal", FnOnClaimed))
	wantLog(t, h.log[len(h.log)-3:], "removeSlot(slot)", "emit generation_stopped(event)", "unlockUI()")
	if len(h.errs) != 1 || h.errs[0] != "[takeover] removeSlot failed" {
		t.Fatalf("errs %q", h.errs)
	}
}

// S91 S92 T61: a newer generation at step 8 means no writes, no unlock.
func TestS91_StaleAfterComplete(t *testing.T) {
	for _, st := range []State{Committed, Aborted, Discarded} {
		w := newWorld(t)
		h := newFakeHost(t)
		h.status = st
		h.onDispatch = claimWith(w, "p", "normal")
		h.onSubscribe = func() { h.live = false; h.liveUpdate() }
		res := h.run(w.k, desc("normal", FnOnClaimed))
		wantLog(t, h.log[len(h.log)-2:], "subscribe", "unsubscribe")
		if !res.Stale || res.HasText || res.Status != st {
			t.Fatalf("%v: %+v", st, res)
		}
	}
}

// S93: persist flips liveness: both emits happen, afterCommit and unlock do not.
func TestS93_StaleDuringCommit(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.onDispatch = claimWith(w, "p", "normal")
	h.onCall[FnPersist] = func() { h.live = false }
	res := h.run(w.k, desc("normal", FnOnClaimed))
	wantLog(t, h.log[len(h.log)-3:], "persist(slot,{type})", "emit message_received(event,slot,type)", "emit character_message_rendered(event,slot,type)")
	if !res.Stale || !res.HasText {
		t.Fatalf("%+v", res)
	}
}

// S94 T61: stale before the placeholder: no host callback but the check.
func TestS94_StaleAtClaim(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.live = false
	h.onDispatch = claimWith(w, "p", "normal")
	res := h.run(w.k, desc("normal"))
	wantLog(t, h.log, "emit(dispatch)", "onClaimed(payload)")
	if !res.Stale || res.HasSlot || res.Status != Committed {
		t.Fatalf("%+v", res)
	}
}

// S97 T58: cleanupText throwing or returning a non-string falls back to finalText.
func TestS97_CleanupFallback(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.fails[FnCleanupText] = true
	h.onDispatch = claimWith(w, "p", "normal")
	h.run(w.k, desc("normal", FnOnClaimed))
	if h.errs[0] != "[takeover] cleanupText failed" || !contains(h.log, "cleaned=finalText") {
		t.Fatalf("errs %q log %q", h.errs, h.log)
	}
	h2 := newFakeHost(t)
	h2.cleanup = jsvalue.Number
	h2.onDispatch = claimWith(w, "p", "normal")
	h2.run(w.k, desc("normal", FnOnClaimed))
	if h2.errs[0] != "[takeover] cleanupText failed: cleanupText returned number, not a string" || !contains(h2.log, "cleaned=finalText") {
		t.Fatalf("errs %q", h2.errs)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// S101 T62: no placeholder: no slot operations; stop and unlock after complete.
func TestS101_AcquireFails(t *testing.T) {
	for _, st := range []State{Committed, Discarded} {
		w := newWorld(t)
		h := newFakeHost(t)
		h.status = st
		h.fails[FnAcquirePlaceholder] = true
		h.onDispatch = claimWith(w, "p", "normal")
		h.onSubscribe = func() { h.liveUpdate() }
		res := h.run(w.k, desc("normal", FnOnClaimed))
		wantLog(t, h.log, "emit(dispatch)", "acquirePlaceholder(type)", "subscribe", "unsubscribe", "emit generation_stopped(event)", "unlockUI()")
		if res.HasSlot || res.HasText {
			t.Fatalf("%+v", res)
		}
	}
}

// S63 S65 T48 T55: what is dispatched, and an unclaimed dispatch.
func TestS63S65_DispatchGate(t *testing.T) {
	w := newWorld(t)
	for _, typ := range []string{"quiet", "impersonate", "weird"} {
		h := newFakeHost(t)
		if res := h.run(w.k, desc(typ)); res.Dispatched || len(h.log) != 0 {
			t.Fatalf("%s: %+v %v", typ, res, h.log)
		}
	}
	dry := desc("normal")
	dry.DryRun = jsvalue.Bool(true)
	h := newFakeHost(t)
	if res := h.run(w.k, dry); res.Dispatched || len(h.log) != 0 {
		t.Fatal("dry runs never emit")
	}
	h2 := newFakeHost(t)
	if res := h2.run(w.k, desc("normal")); !res.Dispatched || res.Claimed || len(h2.log) != 1 {
		t.Fatalf("unclaimed: %+v %v", res, h2.log)
	}
}

// S98 T54: validation messages, in order, before anything.
func TestS98_Validation(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		mod func(*HostDesc)
		msg string
	}{
		{func(d *HostDesc) { d.Init = jsvalue.NullValue() }, "runTakeover: init must be an object"},
		{func(d *HostDesc) { d.InitSignalValid = false }, "runTakeover: init.abortSignal must be an AbortSignal"},
		{func(d *HostDesc) { d.Host = jsvalue.Num(1) }, "runTakeover: host must be an object"},
		{func(d *HostDesc) { d.Members[FnWriteSlot] = jsvalue.Undefined }, "runTakeover: host.writeSlot must be a function"},
		{func(d *HostDesc) { d.Members[FnEmit] = jsvalue.Object; d.Members[FnRedraw] = jsvalue.Undefined }, "runTakeover: host.emit must be a function"},
		{func(d *HostDesc) { d.Members[FnCleanupText] = jsvalue.String }, "runTakeover: host.cleanupText must be a function"},
		{func(d *HostDesc) { d.EventTypes = jsvalue.String }, "runTakeover: host.eventTypes must be an object"},
		// T54 read as T10 reads "an object": a function is not one.
		{func(d *HostDesc) { d.Init = jsvalue.Value{Kind: jsvalue.Function} }, "runTakeover: init must be an object"},
		{func(d *HostDesc) { d.Host = jsvalue.Value{Kind: jsvalue.Function} }, "runTakeover: host must be an object"},
		{func(d *HostDesc) { d.EventTypes = jsvalue.Function }, "runTakeover: host.eventTypes must be an object"},
	}
	for _, c := range cases {
		d := desc("normal")
		c.mod(&d)
		_, err := w.k.StartDriver(d)
		wantErr(t, err, "invalid_argument", c.msg)
	}
	d := desc("normal", FnCleanupText, FnAfterCommit, FnOnClaimed, FnIsCurrentGeneration)
	if _, err := w.k.StartDriver(d); err != nil {
		t.Fatalf("optional members may be absent: %v", err)
	}
}

// S66–S70, S100 T50 T51 T56: first claimer wins; warnings name both owners.
func TestS66S70_Claims(t *testing.T) {
	w := newWorld(t)
	d := w.k.OpenDispatch(jsvalue.U("normal"))
	a := w.H(func(o *opts) { o.owner = str("A") })
	b := w.H(func(o *opts) { o.owner = str("B") })
	if c := d.Assign(Candidate{IsHandle: false}); c.Accepted || jsvalue.GoString(c.Warn) != "[takeover] takeoverHandle assignment ignored: value is not a message editor handle" {
		t.Fatalf("%+v", c)
	}
	if c := d.Assign(Candidate{IsHandle: true, Ref: a.ID, Owner: jsvalue.U("A")}); !c.Accepted || c.Warn != nil || c.Mismatch != nil {
		t.Fatalf("%+v", c)
	}
	if !a.Claimed {
		t.Fatal("the winner is marked claimed (listUnsettledHandles)")
	}
	if c := d.Assign(Candidate{IsHandle: true, Ref: a.ID, Owner: jsvalue.U("A"), SameAsWinner: true}); c.Accepted || c.Warn != nil {
		t.Fatal("the winner again is ignored silently (S67)")
	}
	if c := d.Assign(Candidate{IsHandle: true, Ref: b.ID, Owner: jsvalue.U("B")}); c.Accepted || jsvalue.GoString(c.Warn) != `[takeover] takeoverHandle from "B" ignored: already claimed by "A"` {
		t.Fatalf("%q", jsvalue.GoString(c.Warn))
	}
	d.Close()
	if c := d.Assign(Candidate{IsHandle: true, Ref: b.ID}); jsvalue.GoString(c.Warn) != `[takeover] takeoverHandle from "unknown" ignored: dispatch already closed` {
		t.Fatalf("%q", jsvalue.GoString(c.Warn))
	}
	if c := w.k.ClosedDispatch().Assign(Candidate{IsHandle: true, Ref: b.ID, Owner: jsvalue.U("B")}); jsvalue.GoString(c.Warn) != `[takeover] takeoverHandle from "B" ignored: dispatch already closed` {
		t.Fatal("a finished driver's dispatch is closed (S69)")
	}
	d2 := w.k.OpenDispatch(jsvalue.U("continue"))
	if c := d2.Assign(Candidate{IsHandle: true, Ref: a.ID, Owner: jsvalue.U("A")}); jsvalue.GoString(c.Warn) != `[takeover] takeoverHandle from "A" ignored: handle already claimed by another dispatch` {
		t.Fatalf("%q", jsvalue.GoString(c.Warn))
	}
	// S100: a normal handle claiming a continue dispatch.
	c := d2.Assign(Candidate{IsHandle: true, Ref: b.ID, Owner: jsvalue.U("B")})
	if !c.Accepted || jsvalue.GoString(c.Mismatch) != `[takeover] handle generationType "normal" differs from dispatch type "continue" (owner=B)` {
		t.Fatalf("%+v", c)
	}
	// S71: a settled (discarded) handle can still win; its remnant carries the claim.
	x := w.H(func(o *opts) { o.gen = str("swipe") })
	w.settle(x, Discarded)
	d3 := w.k.OpenDispatch(jsvalue.U("swipe"))
	c = d3.Assign(Candidate{IsHandle: true, Ref: -x.RemnantCode()})
	rem := Remnant(-c.Ref)
	if !c.Accepted || c.Ref >= 0 || !rem.Claimed || rem.State() != Discarded {
		t.Fatalf("%+v", c)
	}
	d4 := w.k.OpenDispatch(jsvalue.U("swipe"))
	if c := d4.Assign(Candidate{IsHandle: true, Ref: c.Ref}); c.Accepted {
		t.Fatal("a remnant that won is refused by the next dispatch")
	}
}

// T62: a failed dispatch emit is logged and the claim stands (S99).
func TestS99_DispatchEmitFails(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.fails[FnEmit] = true
	h.onDispatch = claimWith(w, "p", "normal")
	h.fails[FnEmit] = true
	res := h.run(w.k, desc("normal", FnOnClaimed))
	if !res.Claimed || h.errs[0] != "[takeover] emit generate_takeover_dispatch failed" {
		t.Fatalf("%+v %q", res, h.errs)
	}
}

// T53: eventTypes overrides name the events, also in failure logs.
func TestT53_EventOverrides(t *testing.T) {
	w := newWorld(t)
	h := newFakeHost(t)
	h.status = Discarded
	d := desc("normal", FnOnClaimed)
	d.EventTypes = jsvalue.Object
	d.EventNames[GenerationStopped] = str("stopped!")
	h.onDispatch = claimWith(w, "p", "normal")
	drv, _ := w.k.StartDriver(d)
	h.d = drv
	in := Input{}
	var seen []string
	for {
		a := drv.Next(in)
		if a.Op == OpDone {
			break
		}
		if a.Op == OpCall && a.Fn == FnEmit {
			seen = append(seen, argNames(a.Args[:1])+" "+jsvalue.GoString(a.Log))
		}
		in = h.exec(a)
	}
	if len(seen) != 1 || seen[0] != "eventOverride [takeover] emit stopped! failed" {
		t.Fatalf("%q", seen)
	}
}

// T69 and its extension: installTakeoverContext(ctx, options) checks the
// context, then the options object and its settleOnAbort, which becomes the
// default of the installed createMessageEditorHandle.
func TestT69_CheckContextAndOptions(t *testing.T) {
	obj := jsvalue.Opaque(jsvalue.Object, 1)
	undef := jsvalue.Undef()
	if s, err := CheckContext(obj, undef, undef); err != nil || s {
		t.Fatalf("defaults: %v %v", s, err)
	}
	if s, err := CheckContext(obj, obj, jsvalue.Bool(true)); err != nil || !s {
		t.Fatalf("settleOnAbort true: %v %v", s, err)
	}
	_, err := CheckContext(jsvalue.Opaque(jsvalue.Function, 1), obj, undef)
	wantErr(t, err, "invalid_argument", "installTakeoverContext: context must be an object") // T69, as T10
	if s, err := CheckContext(obj, obj, undef); err != nil || s {
		t.Fatalf("{}: %v %v", s, err)
	}
	_, err = CheckContext(jsvalue.NullValue(), obj, jsvalue.Bool(true))
	wantErr(t, err, "invalid_argument", "installTakeoverContext: context must be an object")
	_, err = CheckContext(obj, jsvalue.Num(1), undef)
	wantErr(t, err, "invalid_argument", "installTakeoverContext: options must be an object; got 1")
	_, err = CheckContext(obj, jsvalue.NullValue(), undef)
	wantErr(t, err, "invalid_argument", "installTakeoverContext: options must be an object; got null")
	_, err = CheckContext(obj, obj, jsvalue.ASCII("yes"))
	wantErr(t, err, "invalid_argument", "installTakeoverContext: options.settleOnAbort must be a boolean; got string")
}
