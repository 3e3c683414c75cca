package takeover

import (
	"strconv"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// GenType is a handle's generation type.
type GenType uint8

const (
	Normal GenType = iota
	Regenerate
	Swipe
	Continue
)

var genNames = [...]string{"normal", "regenerate", "swipe", "continue"}

func (g GenType) String() string { return genNames[g] }

// Units is the name as code units (not to be modified).
func (g GenType) Units() []uint16 { return genUnits[g] }

var genUnits = [...][]uint16{jsvalue.U("normal"), jsvalue.U("regenerate"), jsvalue.U("swipe"), jsvalue.U("continue")}

// ParseGenType accepts exactly the four names (T11).
func ParseGenType(s []uint16) (GenType, bool) {
	for i, n := range genUnits {
		if jsvalue.Equal(s, n) {
			return GenType(i), true
		}
	}
	return 0, false
}

// State is a handle's lifecycle state.
type State uint8

const (
	Open State = iota
	Committed
	Aborted
	Discarded
)

var stateNames = [...]string{"open", "committed", "aborted", "discarded"}

func (s State) String() string { return stateNames[s] }

// Field names a buffer, or the original a discard outcome reports.
type Field uint8

const (
	Text Field = iota
	Reasoning
	OriginalText
	OriginalReasoning
)

// Phase names why a callback is delivered (T44's wording).
type Phase uint8

const (
	Immediate Phase = iota
	Scheduled
	Attach
	Final
)

var phaseNames = [...]string{"immediate flush", "scheduled flush", "attach flush", "final flush"}

func (p Phase) String() string { return phaseNames[p] }

// Edge is the outside world of a handle. The JS bridge implements it with
// the facade; tests implement it in memory.
type Edge interface {
	// Pull returns the first min(n, len) code units of a buffer the edge
	// holds (the value already stored by the current write, if any).
	Pull(h *Handle, f Field, n int) []uint16
	// KeepsPrefix reports whether the stored text starts with
	// originalText, compared by code unit (T4, T25): the edge compares
	// its own strings (String.prototype.startsWith), which costs what
	// plain JS pays, instead of copying the prefix out.
	KeepsPrefix(h *Handle) bool
	// StartTimer schedules h.TimerFired(token) after ms, with the
	// setTimeout current at this moment (T39). It reports whether the
	// host's setTimeout threw (then no timer runs).
	StartTimer(h *Handle, ms float64, token uint32) (threw bool)
	// CancelTimer clears the running timer; it reports whether the host's
	// clearTimeout threw (the timer may still fire: its token is stale).
	CancelTimer(h *Handle) (threw bool)
	// Deliver calls the update callback with the current buffers as a
	// plain function; it reports whether the callback threw. For the final
	// flush the handle is already settled and out of the kernel's table,
	// so the edge can treat it as settled before the callback runs (T31).
	Deliver(h *Handle, p Phase) (threw bool)
	// Warn logs console.warn(msg, <the value the last failed effect threw>).
	// Effects never throw into the kernel: a host function that throws is
	// reported by the effect's result, and a console.warn that throws is
	// swallowed by the edge.
	Warn(h *Handle, msg []uint16)
}

// Handle is one message editor handle.
type Handle struct {
	ID       int32
	Gen      GenType
	Owner    []uint16
	Interval float64 // 0 selects immediate mode
	Created  float64 // ms since epoch, for diagnostics
	Claimed  bool    // won a dispatch (T50)
	// OpsState is what the editor ops keep for this open handle between
	// calls (the reasoning's section layout); the kernel drops it when the
	// handle settles or is released.
	OpsState any

	kernel      *Kernel
	seq         uint64
	state       State
	listens     bool // settles when the given signal aborts (T35)
	originalLen int  // len(originalText), for continue handles; the edge holds the text
	pending     bool
	hasCallback bool
	timer       bool
	timerToken  uint32
	delivering  bool
}

// State reports the handle's state.
func (h *Handle) State() State { return h.state }

// Settled is isSettled() (T27).
func (h *Handle) Settled() bool { return h.state != Open }

// ListensForAbort tells the edge to subscribe once to the signal's abort
// event (T35). Handles without settleOnAbort never listen, and neither do
// handles without a given signal: their own signal never aborts (T13).
func (h *Handle) ListensForAbort() bool { return h.listens && h.state == Open }

// Outcome is what `complete` resolves with: the status, and which buffers
// carry finalText/finalReasoning (T30).
type Outcome struct {
	Status               State
	TextFrom, ReasonFrom Field
}

func (h *Handle) outcome() Outcome {
	if h.state == Discarded {
		return Outcome{Discarded, OriginalText, OriginalReasoning}
	}
	return Outcome{h.state, Text, Reasoning}
}

//go:noinline
func typeErr(msg string, v jsvalue.Value) *apierr.Error {
	return apierr.New(apierr.TakeoverError, "invalid_argument", msg+v.TypeOf())
}

//go:noinline
func settledErr(s State) *apierr.Error {
	return apierr.New(apierr.TakeoverError, "editor_"+s.String(), "editor "+s.String()+"; mutation rejected")
}

// SetText is setText (T21): CheckText, then a write.
// The edge has already stored the new value and restores the old one when
// an error comes back.
func (h *Handle) SetText(kind jsvalue.Kind, n int) *apierr.Error {
	if err := h.CheckText(kind, n); err != nil {
		return err
	}
	h.Write()
	return nil
}

// CheckText is setText's decision (T21 steps 1–3): nil accepts the value
// just stored, and Write must follow. Nothing changes before the answer, so
// a refusal is complete, and nothing after it undoes an accepted write.
func (h *Handle) CheckText(kind jsvalue.Kind, n int) *apierr.Error {
	if kind != jsvalue.String {
		return typeErr("setText requires string; got ", jsvalue.Value{Kind: kind})
	}
	if h.state != Open {
		return settledErr(h.state)
	}
	return h.checkContinue(n)
}

// checkContinue enforces T25/T26 on the value just stored.
func (h *Handle) checkContinue(n int) *apierr.Error {
	if h.Gen != Continue || h.originalLen == 0 {
		return nil
	}
	if n >= h.originalLen && h.kernel.edge.KeepsPrefix(h) {
		return nil
	}
	head := h.kernel.edge.Pull(h, Text, 32)
	msg := jsvalue.Cat(jsvalue.U("setText in 'continue' must keep originalText prefix; got "), jsvalue.JSONQuote(head), []uint16{0x2026})
	prefix := h.kernel.edge.Pull(h, OriginalText, 64)
	return apierr.NewU(apierr.TakeoverError, "invalid_op_for_continue", msg).With("originalPrefix", jsvalue.Str(prefix))
}

// CheckAppend is the decision for an append the facade makes itself for
// an editor op (appendText, a text chunk of pipeFrom, an append to the last
// reasoning section): setText/setReasoning of the current value plus a
// string, so only the state can refuse it. The continue invariant holds by
// construction: the current text keeps the prefix, so the text plus
// anything does too (T25), and nothing is pulled.
func (h *Handle) CheckAppend() *apierr.Error {
	if h.state != Open {
		return settledErr(h.state)
	}
	return nil
}

// SetReasoning is setReasoning (T22).
func (h *Handle) SetReasoning(kind jsvalue.Kind) *apierr.Error {
	if err := h.CheckReasoning(kind); err != nil {
		return err
	}
	h.Write()
	return nil
}

// CheckReasoning is setReasoning's decision (T22), as CheckText.
func (h *Handle) CheckReasoning(kind jsvalue.Kind) *apierr.Error {
	if kind != jsvalue.String {
		return typeErr("setReasoning requires string; got ", jsvalue.Value{Kind: kind})
	}
	if h.state != Open {
		return settledErr(h.state)
	}
	return nil
}

// AppendReasoning is appendReasoning (T23); an empty delta is no write and
// no state check. The edge stores reasoning+delta before calling.
func (h *Handle) AppendReasoning(kind jsvalue.Kind, deltaLen int) *apierr.Error {
	write, err := h.CheckAppendReasoning(kind, deltaLen)
	if write {
		h.Write()
	}
	return err
}

// CheckAppendReasoning is appendReasoning's decision (T23): whether the
// call writes, or its error.
func (h *Handle) CheckAppendReasoning(kind jsvalue.Kind, deltaLen int) (write bool, err *apierr.Error) {
	if kind != jsvalue.String {
		return false, typeErr("appendReasoning requires string; got ", jsvalue.Value{Kind: kind})
	}
	if deltaLen == 0 {
		return false, nil
	}
	if h.state != Open {
		return false, settledErr(h.state)
	}
	return true, nil
}

// Quiet reports that further string writes to the text (when Continue has
// no prefix to guard) and to the reasoning change nothing here until some
// other call: the handle is open, already pending, and either has no
// callback or a timer already runs (T37, T38). The facade may then store
// such writes without crossing into Go — a decision this kernel hands out
// and the facade withdraws before any other call.
func (h *Handle) Quiet() bool {
	return h.QuietAppend() && !(h.Gen == Continue && h.originalLen > 0)
}

// QuietAppend is Quiet for the writes that never need the continue prefix:
// reasoning writes and the editor ops' own appends (CheckAppend).
func (h *Handle) QuietAppend() bool {
	return h.state == Open && h.pending && (h.timer || !h.hasCallback)
}

// Write performs an accepted write: it marks the handle pending and
// schedules delivery (T37, T38, T40).
func (h *Handle) Write() {
	h.pending = true
	if !h.hasCallback {
		return
	}
	if h.Interval == 0 {
		h.flushImmediate()
		return
	}
	if !h.timer {
		h.timer = true
		h.timerToken++
		if h.kernel.edge.StartTimer(h, h.Interval, h.timerToken) {
			// No timer runs: the update stays pending for the next write's
			// window, an attach or the final flush; the write itself stands.
			h.timer = false
			h.warn("setTimeout threw; the update waits for the next write")
		}
	}
}

// warn logs a host-effect failure, naming the owner as T44 does.
func (h *Handle) warn(what string) {
	h.kernel.edge.Warn(h, jsvalue.Cat(jsvalue.U("[message-takeover] "+what+" (owner="), h.Owner, jsvalue.U(")")))
}

// MaxRedeliveries bounds T45's loop: a callback that writes in every call
// (setText(t.trim()) writes even when nothing changes) would otherwise spin
// inside the first write forever, where the reference's nested calls end in
// a stack overflow it recovers from. Past the bound the update stays pending
// for the next write, an attach or the final flush.
const MaxRedeliveries = 1000

// flushImmediate delivers until nothing is pending. A write made by the
// callback itself is picked up by the running loop after the callback
// returns instead of nesting (T45).
func (h *Handle) flushImmediate() {
	if h.delivering {
		return
	}
	for n := 0; h.pending && h.hasCallback && h.state == Open; n++ {
		if n > MaxRedeliveries {
			h.warn("onUpdate wrote again in each of " + strconv.Itoa(MaxRedeliveries) + " deliveries in a row; the update waits for the next write")
			return
		}
		h.pending = false
		h.deliver(Immediate)
	}
}

// TimerFired runs a scheduled flush (T38). Stale tokens are ignored.
func (h *Handle) TimerFired(token uint32) {
	if !h.timer || token != h.timerToken {
		return
	}
	h.timer = false
	if h.pending && h.hasCallback && h.state == Open {
		h.pending = false
		h.deliver(Scheduled)
	}
}

func (h *Handle) cancelTimer() {
	if h.timer {
		h.timer = false
		h.timerToken++ // a timer that still fires is stale
		if h.kernel.edge.CancelTimer(h) {
			h.warn("clearTimeout threw")
		}
	}
}

func (h *Handle) deliver(p Phase) {
	outer := h.delivering
	h.delivering = true
	defer func() { h.delivering = outer }()
	if h.kernel.edge.Deliver(h, p) {
		h.warn("onUpdate threw during " + p.String())
	}
}

// SetOnUpdate is setOnUpdate (T36, T41, T42). The edge stores a function
// (or clears it for null/undefined) before calling and restores the old
// callback on error.
func (h *Handle) SetOnUpdate(kind jsvalue.Kind) *apierr.Error {
	switch kind {
	case jsvalue.Function:
		h.hasCallback = true
		if h.pending {
			h.cancelTimer()
			h.pending = false
			h.deliver(Attach)
			// In immediate mode a write the attach callback made is
			// delivered right after it returns, as after any call (T45);
			// inside another delivery that delivery's loop takes it.
			if h.Interval == 0 {
				h.flushImmediate()
			}
		}
		return nil
	case jsvalue.Null, jsvalue.Undefined:
		h.hasCallback = false
		h.cancelTimer()
		return nil
	}
	return typeErr("setOnUpdate requires a function or null; got ", jsvalue.Value{Kind: kind})
}

// Terminal is the result of commit/abort/discard: an error to reject with,
// or whether this call settled the handle (so `complete` must resolve now
// with Outcome). A no-op has neither.
type Terminal struct {
	Err     *apierr.Error
	Settled bool
	Outcome Outcome
}

var verbs = [...]string{"", "commit", "abort", "discard"}
var articles = [...]string{"", "a committed", "an aborted", "a discarded"}

// Settle runs commit (to=Committed), abort (Aborted) or discard (Discarded)
// per T28–T32.
func (h *Handle) Settle(to State) Terminal {
	switch h.state {
	case to:
		return Terminal{}
	case Open:
	default:
		return Terminal{Err: apierr.New(apierr.TakeoverError, "editor_"+h.state.String(),
			"cannot "+verbs[to]+" "+articles[h.state]+" handle")}
	}
	// All or nothing: the state changes and the handle leaves the table
	// before any call out, so whatever a host effect or callback does
	// afterwards, the handle is settled and `complete` must resolve.
	h.state = to
	h.kernel.settled(h)
	h.cancelTimer()
	h.pending = false
	if to != Discarded && h.hasCallback {
		h.deliver(Final)
	}
	return Terminal{Settled: true, Outcome: h.outcome()}
}

// SignalAborted runs the settle-on-abort listener (T35): like abort() while
// open, nothing after settlement or without settleOnAbort.
func (h *Handle) SignalAborted() Terminal {
	if !h.listens || h.state != Open {
		return Terminal{}
	}
	return h.Settle(Aborted)
}

// Outcome reports the resolved outcome of a settled handle.
func (h *Handle) Outcome() Outcome { return h.outcome() }

// A settled handle leaves the kernel; the facade keeps a small remnant
// code (state | claimed<<2 | generation type<<3) from which every later
// call is decided (T28, T33, T35) and claims are judged (T51).

// RemnantCode is h's remnant code.
func (h *Handle) RemnantCode() int32 {
	r := int32(h.state) | int32(h.Gen)<<3
	if h.Claimed {
		r |= 4
	}
	return r
}

// Remnant rebuilds the stand-in for a remnant code.
func Remnant(code int32) Handle {
	s := State(code & 3)
	if s == Open {
		panic("takeover: a remnant needs a terminal state")
	}
	return Handle{state: s, Claimed: code&4 != 0, Gen: GenType(code >> 3 & 3)}
}
