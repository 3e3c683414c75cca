//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/protocol"
	"tavern-core/takeover"
)

// jsEdge implements takeover.Edge with the facade's effect functions
// (js/takeover-api.js). Strings go through the shared buffer.
type jsEdge struct {
	pull, keepsPrefix, startTimer, cancelTimer, deliver, warn js.Value
}

var (
	takeoverFx *jsEdge
	kernel     *takeover.Kernel
)

func newTakeoverEdge(fx js.Value) *jsEdge {
	e := &jsEdge{
		pull: fx.Get("pull"), keepsPrefix: fx.Get("keepsPrefix"), startTimer: fx.Get("startTimer"), cancelTimer: fx.Get("cancelTimer"),
		deliver: fx.Get("deliver"), warn: fx.Get("warn"),
	}
	kernel = takeover.NewKernel(e)
	return e
}

func (e *jsEdge) Pull(h *takeover.Handle, f takeover.Field, n int) []uint16 {
	bridge.Reserve(n)
	m := e.pull.Invoke(h.ID, int(f), n, bridge.Addr()).Int()
	out := make([]uint16, m)
	copy(out, bridge.Buf())
	return out
}

func (e *jsEdge) KeepsPrefix(h *takeover.Handle) bool { return e.keepsPrefix.Invoke(h.ID).Int() != 0 }

// The effects catch what the host's functions throw and answer 1 instead
// (takeover.Edge): a JS exception never unwinds through the kernel.

func (e *jsEdge) StartTimer(h *takeover.Handle, ms float64, token uint32) bool {
	return e.startTimer.Invoke(h.ID, ms, token).Int() != 0
}

func (e *jsEdge) CancelTimer(h *takeover.Handle) bool { return e.cancelTimer.Invoke(h.ID).Int() != 0 }

// Deliver hands the facade, for the final flush, the settlement it must
// apply before the callback runs, so isSettled() is already true there
// (T29, T31); 0 otherwise.
func (e *jsEdge) Deliver(h *takeover.Handle, p takeover.Phase) bool {
	var settled int32
	if p == takeover.Final {
		settled = packSettled(h)
	}
	return e.deliver.Invoke(h.ID, settled).Int() != 0
}

func (e *jsEdge) Warn(h *takeover.Handle, msg []uint16) {
	n := bridge.Write(msg)
	e.warn.Invoke(n, bridge.Addr())
}

// handle resolves the facade's reference to a handle: a positive ref is an
// open handle's id; once a handle settles it leaves the kernel and the
// facade holds -(remnant code) instead (takeover.Remnant).
func handle(ref int32) *takeover.Handle {
	if ref <= 0 {
		r := takeover.Remnant(-ref)
		return &r
	}
	h := kernel.Get(ref)
	if h == nil {
		panic("takeover: unknown handle id")
	}
	return h
}

// A settling call answers the settlement packed (protocol.PackSettled):
// the facade resolves `complete` and switches to the remnant reference
// without another crossing.
func packTerminal(h *takeover.Handle, t takeover.Terminal) int32 {
	if t.Err != nil {
		return bridge.Fail(t.Err)
	}
	if !t.Settled {
		return bridge.OK
	}
	return packSettled(h)
}

func packSettled(h *takeover.Handle) int32 {
	o := h.Outcome()
	return h.RemnantCode()<<protocol.PackRemnantShift | protocol.PackSettled | int32(o.Status)<<protocol.PackStatusShift |
		int32(o.TextFrom)<<protocol.PackTextFromShift | int32(o.ReasonFrom)
}

// keepSettlement is deferred by the exports that may settle h: should a
// panic unwind after h settled, the call still answers the settlement
// (all or nothing: `complete` resolves whenever the kernel settled) and the
// panic is logged. Otherwise the panic is left to bridge.Exit.
func keepSettlement(h *takeover.Handle, wasOpen bool, st *int32) {
	if !wasOpen || !h.Settled() {
		return
	}
	if r := recover(); r != nil {
		*st = packSettled(h)
		reportPanic(h, "settling", r)
	}
}

// keepWrite is the same for a write the kernel accepted: a panic after
// the acceptance (while delivering) must not make the facade undo a value
// a callback may already have seen.
func keepWrite(h *takeover.Handle, accepted *bool, st *int32) {
	if !*accepted {
		return
	}
	if r := recover(); r != nil {
		*st = bridge.OK
		reportPanic(h, "after a write", r)
	}
}

func reportPanic(h *takeover.Handle, when string, r any) {
	defer func() { _ = recover() }() // reporting must not fail the call
	err := bridge.Internal(r)
	takeoverFx.Warn(h, jsvalue.Cat(jsvalue.U("[message-takeover] internal error "+when+" (owner="), h.Owner, jsvalue.U("): "), err.Message))
}

// tk_create reads createMessageEditorHandle's described options from the
// buffer (n units) and answers as protocol.CreateSettled describes.
// hostSettle is the settleOnAbort default of the context the function came
// from (installTakeoverContext's option; 0 for the exported function).
//
//go:wasmexport tk_create
func tkCreate(n, hostSettle int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	d := bridge.Decoder{}
	d.Reset(bridge.Buf(), int(n))
	// Views: nothing is copied but what the kernel keeps (it clones).
	var o takeover.CreateOpts
	o.Opts, _ = d.View()
	o.GenerationType, _ = d.View()
	o.OriginalText, _ = d.View()
	o.OriginalTextLen = int(d.F64())
	o.OriginalReasoning, _ = d.View()
	sig, brand := d.View()
	switch {
	case sig.Kind == jsvalue.Undefined:
		o.Signal = takeover.SignalAbsent
	case sig.Kind == jsvalue.Object && (brand == bridge.BrandAbortSignal || brand == bridge.BrandAbortedSignal):
		o.Signal, o.SignalAborted = takeover.SignalGiven, brand == bridge.BrandAbortedSignal
	default:
		o.Signal = takeover.SignalInvalid
	}
	o.FlushIntervalMs, _ = d.View()
	o.Owner, _ = d.View()
	o.SettleOnAbort, _ = d.View()
	o.Now = d.F64()
	o.HostSettleOnAbort = hostSettle != 0
	return created(kernel.Create(&o))
}

// tk_create_fast is tk_create for the common shape, with no buffer
// encoding when the owner is the one sent last: generationType is a
// takeover.GenType, and every other option is described in kinds
// (protocol.FastText; a number flushIntervalMs arrives in interval, a new
// owner string of ownerLen units in the buffer). The facade falls back to
// tk_create for anything else; the answer is tk_create's.
//
//go:wasmexport tk_create_fast
func tkCreateFast(gen, kinds int32, interval, now float64, origLen, ownerLen, hostSettle int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	field := func(i int) jsvalue.Kind { return jsvalue.Kind(kinds >> (protocol.FastBits * i) & protocol.FastMask) }
	o := takeover.CreateOpts{
		Opts:              jsvalue.Opaque(jsvalue.Object, 0),
		GenerationType:    jsvalue.Str(takeover.GenType(gen).Units()),
		OriginalText:      jsvalue.Value{Kind: field(protocol.FastText)},
		OriginalTextLen:   int(origLen),
		OriginalReasoning: jsvalue.Value{Kind: field(protocol.FastReasoning)},
		FlushIntervalMs:   jsvalue.Value{Kind: field(protocol.FastInterval)},
		SettleOnAbort:     jsvalue.Value{Kind: field(protocol.FastSettle), Bool: kinds>>protocol.FastSettleValue&1 != 0},
		HostSettleOnAbort: hostSettle != 0,
		Now:               now,
	}
	switch sig := field(protocol.FastSignal); sig {
	case protocol.FastSignalAbsent:
		o.Signal = takeover.SignalAbsent
	case protocol.FastSignalGiven, protocol.FastSignalAborted:
		o.Signal, o.SignalAborted = takeover.SignalGiven, sig == protocol.FastSignalAborted
	default:
		o.Signal = takeover.SignalInvalid
	}
	if o.FlushIntervalMs.Kind == jsvalue.Number {
		o.FlushIntervalMs.Num = interval
	}
	switch k := field(protocol.FastOwner); {
	case k == protocol.FastOwnerLast:
		o.Owner = jsvalue.Str(kernel.LastOwner())
	case k == protocol.FastOwnerNew:
		o.Owner = jsvalue.Str(bridge.Buf()[:ownerLen])
	case k >= protocol.FastOwnerKind:
		o.Owner = jsvalue.Value{Kind: k - protocol.FastOwnerKind}
	}
	return created(kernel.Create(&o))
}

// created answers a create (tk_create's layout).
func created(h *takeover.Handle, err *apierr.Error) int32 {
	if err != nil {
		return bridge.Fail(err)
	}
	if h.Settled() {
		return packTerminal(h, takeover.Terminal{Settled: true, Outcome: h.Outcome()})<<protocol.CreateTerminalShift | protocol.CreateSettled
	}
	st := h.ID << protocol.CreateIDShift
	if h.ListensForAbort() {
		st |= protocol.CreateListens
	}
	return st
}

// write performs a write the kernel accepted and answers it
// (protocol.WriteQuiet).
func write(h *takeover.Handle, accepted *bool) int32 {
	*accepted = true
	h.Write()
	return quietness(h)
}

func quietness(h *takeover.Handle) int32 {
	switch {
	case h.Quiet():
		return protocol.WriteQuiet
	case h.QuietAppend():
		return protocol.WriteQuietAppend
	}
	return bridge.OK
}

// tk_set is setText and setReasoning (field: takeover.Text, Reasoning): the facade has
// stored the value (n units, of JS kind) and tells the kernel.
//
//go:wasmexport tk_set
func tkSet(id, field, kind, n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	h := handle(id)
	accepted := false
	defer keepWrite(h, &accepted, &st)
	var err *apierr.Error
	if takeover.Field(field) == takeover.Text {
		err = h.CheckText(jsvalue.Kind(kind), int(n))
	} else {
		err = h.CheckReasoning(jsvalue.Kind(kind))
	}
	if err != nil {
		return bridge.Fail(err)
	}
	return write(h, &accepted)
}

// tk_append is an editor op's own append (field: takeover.Text, Reasoning):
// the facade has stored the current value plus a string of n units, which
// the kernel judges as the setText/setReasoning it stands for
// (Handle.CheckAppend).
//
//go:wasmexport tk_append
func tkAppend(id, field, n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	return appendWrite(handle(id), &st)
}

// appendWrite judges and performs an append the facade has stored.
func appendWrite(h *takeover.Handle, st *int32) int32 {
	accepted := false
	defer keepWrite(h, &accepted, st)
	if err := h.CheckAppend(); err != nil {
		return bridge.Fail(err)
	}
	return write(h, &accepted)
}

//go:wasmexport tk_append_reasoning
func tkAppendReasoning(id, kind, n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	h := handle(id)
	accepted := false
	defer keepWrite(h, &accepted, &st)
	ok, err := h.CheckAppendReasoning(jsvalue.Kind(kind), int(n))
	if err != nil {
		return bridge.Fail(err)
	}
	if !ok {
		return bridge.OK
	}
	return write(h, &accepted)
}

//go:wasmexport tk_on_update
func tkOnUpdate(id, kind int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	if err := handle(id).SetOnUpdate(jsvalue.Kind(kind)); err != nil {
		return bridge.Fail(err)
	}
	return bridge.OK
}

// tk_settle is commit, abort and discard (to: the takeover.State).
//
//go:wasmexport tk_settle
func tkSettle(id, to int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	if to < int32(takeover.Committed) || to > int32(takeover.Discarded) {
		panic("takeover: bad terminal state")
	}
	h := handle(id)
	defer keepSettlement(h, !h.Settled(), &st)
	return packTerminal(h, h.Settle(takeover.State(to)))
}

//go:wasmexport tk_signal_abort
func tkSignalAbort(id int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	h := kernel.Get(id) // a settled handle's listener does nothing (T35)
	if h == nil {
		return bridge.OK
	}
	defer keepSettlement(h, true, &st)
	return packTerminal(h, h.SignalAborted())
}

//go:wasmexport tk_timer
func tkTimer(id int32, token uint32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	if h := kernel.Get(id); h != nil {
		h.TimerFired(token)
	}
	return bridge.OK
}

//go:wasmexport tk_release
func tkRelease(id int32) (st int32) {
	defer bridge.Contain(&st) // never refused: it undoes a failed create
	kernel.Release(id)
	return bridge.OK
}

// tk_list writes listUnsettledHandles rows: count, then per row owner,
// generation type, age and claimed.
//
//go:wasmexport tk_list
func tkList(now float64) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	var e bridge.Encoder
	rows := kernel.ListUnsettled(now)
	e.F64(float64(len(rows)))
	for _, r := range rows {
		e.Units(r.Owner)
		e.Units(jsvalue.U(r.Gen.String()))
		e.F64(r.AgeMs)
		if r.Claimed {
			e.Unit(1)
		} else {
			e.Unit(0)
		}
	}
	return bridge.Write(e.Out())
}
