//go:build js && wasm

package main

import (
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/takeover"
)

// runTakeover's bridge (js/takeover-host.js). The facade describes init
// and host, then loops: ask tk_driver_next for an action, execute it
// against the host, report what happened.

var (
	drivers   = map[int32]*takeover.Driver{}
	driverSeq int32
	actEnc    bridge.Encoder
)

// tk_driver_start validates runTakeover's described arguments (T54) and
// returns a driver id, or Failed.
//
//go:wasmexport tk_driver_start
func tkDriverStart(n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	var d bridge.Decoder
	d.Reset(bridge.Buf(), int(n))
	var hd takeover.HostDesc
	hd.Init = value(&d)
	hd.InitSignalValid = d.Unit() == 1
	hd.Type, hd.DryRun, hd.Host = value(&d), value(&d), value(&d)
	for i := range hd.Members {
		hd.Members[i] = value(&d).Kind
	}
	hd.EventTypes = value(&d).Kind
	for i := range hd.EventNames {
		hd.EventNames[i] = value(&d)
	}
	drv, err := kernel.StartDriver(hd)
	if err != nil {
		return bridge.Fail(err)
	}
	driverSeq = driverSeq%(1<<30) + 1
	drivers[driverSeq] = drv
	return driverSeq
}

func driver(id int32) *takeover.Driver {
	drv := drivers[id]
	if drv == nil {
		panic("takeover: unknown driver id")
	}
	return drv
}

func boolUnit(b bool) uint16 {
	if b {
		return 1
	}
	return 0
}

func encodeAction(e *bridge.Encoder, a takeover.Action) {
	e.Unit(uint16(a.Op))
	e.Unit(uint16(a.Fn))
	e.Units(jsvalue.U(a.Fn.String()))
	e.Units(jsvalue.U(a.Event.EventKey()))
	e.Units(jsvalue.U(takeover.EventDefault(a.Event)))
	e.Unit(boolUnit(a.Await))
	e.Unit(uint16(a.Store))
	e.Unit(boolUnit(a.Keep[0]))
	e.Unit(boolUnit(a.Keep[1]))
	e.Unit(uint16(len(a.Args)))
	for _, x := range a.Args {
		e.Unit(uint16(x))
	}
	e.Units(a.Log)
	e.Units(a.Message)
	r := a.Result
	e.Unit(boolUnit(r.Dispatched))
	e.Unit(boolUnit(r.Claimed))
	e.Units(r.Owner)
	e.Unit(uint16(r.Status))
	e.Unit(boolUnit(r.HasSlot))
	e.Unit(boolUnit(r.HasText))
	e.Unit(boolUnit(r.Stale))
}

// tk_driver_next reports the last action's outcome and returns the length
// of the next action in the buffer. A finished driver is released.
//
//go:wasmexport tk_driver_next
func tkDriverNext(id, failed, live, kind0, kind1, status int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	drv := driver(id)
	a := drv.Next(takeover.Input{Failed: failed != 0, Live: live != 0,
		Kinds: [2]jsvalue.Kind{jsvalue.Kind(kind0), jsvalue.Kind(kind1)}, Status: takeover.State(status)})
	if a.Op == takeover.OpDone {
		delete(drivers, id)
	}
	actEnc.Reset()
	encodeAction(&actEnc, a)
	return bridge.Write(actEnc.Out())
}

// tk_driver_live decides a live update (T57): answered/live carry the
// liveness answer once the facade has asked. Returns the encoded actions:
// a count, then each action.
//
//go:wasmexport tk_driver_live
func tkDriverLive(id, answered, live int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	drv := drivers[id]
	actEnc.Reset()
	if drv == nil { // finished: nothing to draw
		actEnc.Unit(0)
		return bridge.Write(actEnc.Out())
	}
	acts := drv.LiveUpdate(answered != 0, live != 0)
	actEnc.Unit(uint16(len(acts)))
	for _, a := range acts {
		encodeAction(&actEnc, a)
	}
	return bridge.Write(actEnc.Out())
}

// tk_claim judges an assignment to payload.takeoverHandle for driver id
// (0 or a finished driver: the window is closed). The facade describes the
// value: is-handle flag, its ref, its owner as given, same-as-winner flag.
// Returns the encoded answer: accepted, the handle's new ref, the warning
// and the mismatch warning (empty when none).
//
//go:wasmexport tk_claim
func tkClaim(id, n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	var d bridge.Decoder
	d.Reset(bridge.Buf(), int(n))
	var c takeover.Candidate
	c.IsHandle = d.Unit() == 1
	c.Ref = int32(d.F64())
	if owner := value(&d); owner.Kind == jsvalue.String {
		c.Owner = owner.Str
	}
	c.SameAsWinner = d.Unit() == 1
	disp := kernel.ClosedDispatch()
	if drv := drivers[id]; drv != nil && drv.Dispatch() != nil {
		disp = drv.Dispatch()
	}
	cl := disp.Assign(c)
	var e bridge.Encoder
	e.Unit(boolUnit(cl.Accepted))
	e.F64(float64(cl.Ref))
	e.Units(cl.Warn)
	e.Units(cl.Mismatch)
	return bridge.Write(e.Out())
}

// tk_check_context validates installTakeoverContext's described arguments
// (ctx, options, options.settleOnAbort; T69) and returns the settleOnAbort
// default of the function to install (0 or 1), or Failed.
//
//go:wasmexport tk_check_context
func tkCheckContext(n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	var d bridge.Decoder
	d.Reset(bridge.Buf(), int(n))
	ctx, options := value(&d), value(&d)
	settle, err := takeover.CheckContext(ctx, options, value(&d))
	if err != nil {
		return bridge.Fail(err)
	}
	if settle {
		return 1
	}
	return bridge.OK
}
