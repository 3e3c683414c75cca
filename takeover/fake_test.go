package takeover

import (
	"sort"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// world is an in-memory stand-in for the JS facade: it holds the strings,
// stores a value before telling the kernel and restores it on refusal, runs
// fake timers and records deliveries and warnings, as the real facade does.
type world struct {
	t      *testing.T
	k      *Kernel
	now    float64
	bufs   map[int32]*bufs
	timers map[int32]timer
	warns  []string
	pulls  int
	// Host effects that throw: the edge reports it instead of panicking.
	failSetTimeout, failClearTimeout bool
	// settledInFinal records, per final flush, what the callback would see.
	settledInFinal []bool
}

type bufs struct {
	text, reasoning, origText, origReasoning []uint16
	cb                                       func(text, reasoning string)
	outcome                                  *Outcome
}

type timer struct {
	at    float64
	token uint32
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, bufs: map[int32]*bufs{}, timers: map[int32]timer{}}
	w.k = NewKernel(w)
	return w
}

func (w *world) Pull(h *Handle, f Field, n int) []uint16 {
	w.pulls++
	b := w.bufs[h.ID].field(f)
	if n > len(b) {
		n = len(b)
	}
	return b[:n]
}

func (w *world) KeepsPrefix(h *Handle) bool {
	w.pulls++
	b := w.bufs[h.ID]
	return jsvalue.HasPrefix(b.text, b.origText)
}

func (b *bufs) field(f Field) []uint16 {
	switch f {
	case Text:
		return b.text
	case Reasoning:
		return b.reasoning
	case OriginalText:
		return b.origText
	}
	return b.origReasoning
}

func (w *world) StartTimer(h *Handle, ms float64, token uint32) bool {
	if w.failSetTimeout {
		return true
	}
	w.timers[h.ID] = timer{w.now + ms, token}
	return false
}
func (w *world) CancelTimer(h *Handle) bool {
	if w.failClearTimeout {
		return true // the timer stays scheduled: it must be stale when it fires
	}
	delete(w.timers, h.ID)
	return false
}
func (w *world) Deliver(h *Handle, p Phase) (threw bool) {
	b := w.bufs[h.ID]
	if p == Final {
		w.settledInFinal = append(w.settledInFinal, h.Settled() && w.k.Get(h.ID) == nil)
	}
	defer func() {
		if r := recover(); r != nil {
			threw = true
		}
	}()
	b.cb(jsvalue.GoString(b.text), jsvalue.GoString(b.reasoning))
	return false
}
func (w *world) Warn(h *Handle, msg []uint16) { w.warns = append(w.warns, jsvalue.GoString(msg)) }

// advance runs due timers in time order, like fake timers.
func (w *world) advance(ms float64) {
	end := w.now + ms
	for {
		var ids []int32
		for id, t := range w.timers {
			if t.at <= end {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			break
		}
		sort.Slice(ids, func(i, j int) bool { return w.timers[ids[i]].at < w.timers[ids[j]].at })
		id := ids[0]
		t := w.timers[id]
		delete(w.timers, id)
		w.now = t.at
		if h := w.k.Get(id); h != nil { // a settled handle's stale timer
			h.TimerFired(t.token)
		}
	}
	w.now = end
}

type opts struct {
	gen, text, reasoning, owner, interval, settle jsvalue.Value
	signal                                        SignalKind
	aborted                                       bool
	hostSettle                                    bool
	optsKind                                      jsvalue.Kind
}

func str(s string) jsvalue.Value { return jsvalue.ASCII(s) }

// H creates a normal, immediate-mode handle with overrides, like the spec's H(o).
func (w *world) H(mod func(*opts)) *Handle {
	o := opts{gen: str("normal"), interval: jsvalue.Num(0)}
	if mod != nil {
		mod(&o)
	}
	h, err := w.create(o)
	if err != nil {
		w.t.Fatalf("create: %v", err)
	}
	return h
}

func (w *world) create(o opts) (*Handle, *apierr.Error) {
	kind := o.optsKind
	if kind == jsvalue.Undefined {
		kind = jsvalue.Object
	}
	h, err := w.k.Create(&CreateOpts{Opts: jsvalue.Opaque(kind, 1), GenerationType: o.gen, OriginalText: o.text, OriginalTextLen: len(o.text.Str),
		OriginalReasoning: o.reasoning, Signal: o.signal, SignalAborted: o.aborted, FlushIntervalMs: o.interval,
		Owner: o.owner, SettleOnAbort: o.settle, HostSettleOnAbort: o.hostSettle, Now: w.now})
	if err != nil {
		return nil, err
	}
	b := &bufs{text: o.text.Str, reasoning: o.reasoning.Str, origText: o.text.Str, origReasoning: o.reasoning.Str}
	w.bufs[h.ID] = b
	if h.Settled() {
		out := h.Outcome()
		b.outcome = &out
	}
	return h, nil
}

// The facade's mutators: store first, restore on refusal.
func (w *world) setText(h *Handle, s string) *apierr.Error {
	b := w.bufs[h.ID]
	prev := b.text
	b.text = jsvalue.U(s)
	if err := h.SetText(jsvalue.String, len(b.text)); err != nil {
		b.text = prev
		return err
	}
	return nil
}

func (w *world) setReasoning(h *Handle, s string) *apierr.Error {
	b := w.bufs[h.ID]
	prev := b.reasoning
	b.reasoning = jsvalue.U(s)
	if err := h.SetReasoning(jsvalue.String); err != nil {
		b.reasoning = prev
		return err
	}
	return nil
}

func (w *world) appendReasoning(h *Handle, s string) *apierr.Error {
	b := w.bufs[h.ID]
	prev := b.reasoning
	b.reasoning = jsvalue.Cat(prev, jsvalue.U(s))
	if err := h.AppendReasoning(jsvalue.String, len(jsvalue.U(s))); err != nil {
		b.reasoning = prev
		return err
	}
	return nil
}

func (w *world) onUpdate(h *Handle, cb func(string, string)) *apierr.Error {
	b := w.bufs[h.ID]
	prev := b.cb
	b.cb = cb
	kind := jsvalue.Function
	if cb == nil {
		kind = jsvalue.Null
	}
	if err := h.SetOnUpdate(kind); err != nil {
		b.cb = prev
		return err
	}
	return nil
}

func (w *world) settle(h *Handle, to State) *apierr.Error {
	r := h.Settle(to)
	if r.Settled {
		out := r.Outcome
		w.bufs[h.ID].outcome = &out
	}
	return r.Err
}

// recorder collects onUpdate calls.
type recorder struct{ calls [][2]string }

func (r *recorder) cb(t, rs string) { r.calls = append(r.calls, [2]string{t, rs}) }

func wantErr(t *testing.T, err *apierr.Error, code, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s %q, got no error", code, msg)
	}
	if err.Code != code || (msg != "" && jsvalue.GoString(err.Message) != msg) {
		t.Fatalf("want %s %q, got %s %q", code, msg, err.Code, jsvalue.GoString(err.Message))
	}
}

func wantCalls(t *testing.T, r *recorder, want ...[2]string) {
	t.Helper()
	if len(r.calls) != len(want) {
		t.Fatalf("calls = %q, want %q", r.calls, want)
	}
	for i := range want {
		if r.calls[i] != want[i] {
			t.Fatalf("calls = %q, want %q", r.calls, want)
		}
	}
}
