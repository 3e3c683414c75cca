package takeover

// FuzzKernel runs arbitrary call sequences against the kernel through its
// own small edge (so it does not depend on fake_test.go), with a model of
// what the spec says must hold: no panic; a refused write changes nothing
// the edge holds (T21, T25); continue handles keep their prefix (T25/T26);
// a settled handle stays settled, leaves the table (Get is nil) and later
// writes fail with editor_<state> (T28–T33); settling twice is a no-op and
// settling otherwise is an error; callbacks never nest (T45); and
// ListUnsettled names exactly the open handles in creation order (T65).

import (
	"slices"
	"testing"

	"tavern-core/jsvalue"
)

type fzBuf struct {
	text, reasoning, origText, origReasoning []uint16
	cb                                       bool
}

type fzEdge struct {
	t          *testing.T
	k          *Kernel
	bufs       map[int32]*fzBuf
	timers     map[int32]uint32
	inDeliver  bool
	deliveries int
	onDeliver  func(h *Handle)
}

func (e *fzEdge) Pull(h *Handle, f Field, n int) []uint16 {
	b := e.bufs[h.ID]
	var s []uint16
	switch f {
	case Text:
		s = b.text
	case Reasoning:
		s = b.reasoning
	case OriginalText:
		s = b.origText
	default:
		s = b.origReasoning
	}
	if n > len(s) {
		n = len(s)
	}
	return s[:n]
}
func (e *fzEdge) KeepsPrefix(h *Handle) bool {
	b := e.bufs[h.ID]
	return jsvalue.HasPrefix(b.text, b.origText)
}
func (e *fzEdge) StartTimer(h *Handle, ms float64, token uint32) bool {
	e.timers[h.ID] = token
	return false
}
func (e *fzEdge) CancelTimer(h *Handle) bool {
	delete(e.timers, h.ID)
	return false
}
func (e *fzEdge) Deliver(h *Handle, p Phase) bool {
	if e.inDeliver {
		e.t.Fatalf("T45: a callback nested inside another (%v)", p)
	}
	if !e.bufs[h.ID].cb {
		e.t.Fatalf("delivered %v without a callback", p)
	}
	e.inDeliver = true
	defer func() { e.inDeliver = false }()
	e.deliveries++
	if e.onDeliver != nil {
		e.onDeliver(h)
	}
	return false
}
func (e *fzEdge) Warn(h *Handle, msg []uint16) {}

type fzHandle struct {
	h       *Handle
	id      int32
	gen     GenType
	orig    []uint16
	state   State
	remnant int32
}

func FuzzKernel(f *testing.F) {
	f.Add([]byte{0x03, 0x10, 0x21, 0x42, 0x13, 0x55, 0x66, 0x07}, "ab😀")
	f.Add([]byte{0x33, 0x11, 0x91, 0xa1, 0x71, 0x81, 0x05}, "x")
	f.Add([]byte{0x03, 0x43, 0x83, 0xc3, 0x14, 0x24, 0x34, 0x44, 0x54}, "\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, ops []byte, word string) {
		if len(ops) > 200 {
			ops = ops[:200]
		}
		w := jsvalue.U(word)
		e := &fzEdge{t: t, bufs: map[int32]*fzBuf{}, timers: map[int32]uint32{}}
		k := NewKernel(e)
		e.k = k
		var hs []*fzHandle
		now := 0.0
		pick := func(b byte) *fzHandle {
			if len(hs) == 0 {
				return nil
			}
			return hs[int(b)%len(hs)]
		}
		for i := 0; i < len(ops); i++ {
			op := ops[i]
			arg := byte(0)
			if i+1 < len(ops) {
				arg = ops[i+1]
			}
			now++
			switch op & 0x0f {
			case 0, 3: // create
				gen := GenType(arg & 3)
				orig := w
				if arg&4 != 0 {
					orig = nil
				}
				interval := jsvalue.Num(0)
				if arg&8 != 0 {
					interval = jsvalue.Num(33)
				}
				if arg&0x80 != 0 {
					interval = jsvalue.Num(-1) // refused
				}
				h, err := k.Create(&CreateOpts{Opts: jsvalue.Opaque(jsvalue.Object, 1), GenerationType: jsvalue.ASCII(gen.String()),
					OriginalText: jsvalue.Str(orig), OriginalTextLen: len(orig), OriginalReasoning: jsvalue.Undef(), FlushIntervalMs: interval,
					Owner: jsvalue.Undef(), SettleOnAbort: jsvalue.Bool(arg&0x10 != 0), Signal: SignalGiven, SignalAborted: arg&0x20 != 0, Now: now})
				if arg&0x80 != 0 {
					if err == nil || h != nil {
						t.Fatal("a bad flushIntervalMs must be refused and register nothing")
					}
					break
				}
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				e.bufs[h.ID] = &fzBuf{text: slices.Clone(orig), origText: orig}
				fh := &fzHandle{h: h, id: h.ID, gen: gen, orig: orig, state: h.State()}
				if h.Settled() {
					fh.remnant = h.RemnantCode()
				}
				hs = append(hs, fh)
				i++
			case 1, 4: // setText: append, replace or truncate the stored value
				fh := pick(arg)
				if fh == nil || fh.state != Open {
					break
				}
				b := e.bufs[fh.id]
				old := b.text
				var next []uint16
				switch arg >> 6 {
				case 0:
					next = jsvalue.Cat(old, w)
				case 1:
					next = slices.Clone(w)
				case 2:
					next = old[:len(old)/2]
				default:
					next = jsvalue.Cat(w, old)
				}
				b.text = next
				err := fh.h.SetText(jsvalue.String, len(next))
				wantOK := fh.gen != Continue || len(fh.orig) == 0 || jsvalue.HasPrefix(next, fh.orig)
				if (err == nil) != wantOK {
					t.Fatalf("T25: setText(%q) on %v with original %q: err=%v", jsvalue.GoString(next), fh.gen, jsvalue.GoString(fh.orig), err)
				}
				if err != nil {
					b.text = old // the facade restores a refused write
				}
				i++
			case 2: // setReasoning / appendReasoning
				fh := pick(arg)
				if fh == nil || fh.state != Open {
					break
				}
				if arg&1 != 0 {
					e.bufs[fh.id].reasoning = jsvalue.Cat(e.bufs[fh.id].reasoning, w)
					if err := fh.h.AppendReasoning(jsvalue.String, len(w)); err != nil {
						t.Fatal(err)
					}
				} else if err := fh.h.SetReasoning(jsvalue.String); err != nil {
					t.Fatal(err)
				}
				i++
			case 5: // setOnUpdate(fn | null), maybe writing from inside the callback
				fh := pick(arg)
				if fh == nil || fh.state != Open {
					break
				}
				on := arg&0x80 == 0
				e.bufs[fh.id].cb = on
				kind := jsvalue.Null
				if on {
					kind = jsvalue.Function
				}
				if arg&0x40 != 0 {
					budget := 3 // a callback that always writes would loop forever, as in JS
					e.onDeliver = func(h *Handle) {
						if budget > 0 && h.State() == Open {
							budget--
							e.bufs[h.ID].reasoning = jsvalue.Cat(e.bufs[h.ID].reasoning, w)
							_ = h.AppendReasoning(jsvalue.String, len(w))
						}
					}
				} else {
					e.onDeliver = nil
				}
				if err := fh.h.SetOnUpdate(kind); err != nil {
					t.Fatal(err)
				}
				i++
			case 6: // a timer fires (maybe with a stale token)
				fh := pick(arg)
				if fh == nil || fh.state != Open {
					break
				}
				token, ok := e.timers[fh.id]
				if !ok || arg&0x80 != 0 {
					token += uint32(arg)
				} else {
					delete(e.timers, fh.id)
				}
				fh.h.TimerFired(token)
				i++
			case 7, 8, 9: // commit, abort, discard
				fh := pick(arg)
				if fh == nil {
					break
				}
				to := State(op&0x0f - 6)
				var h *Handle
				if fh.state == Open {
					h = fh.h
				} else {
					r := Remnant(fh.remnant)
					h = &r
				}
				term := h.Settle(to)
				switch {
				case fh.state == Open:
					if !term.Settled || term.Err != nil || term.Outcome.Status != to {
						t.Fatalf("settling an open handle: %+v", term)
					}
					fh.state = to
					fh.remnant = fh.h.RemnantCode()
				case fh.state == to:
					if term.Settled || term.Err != nil {
						t.Fatalf("T33: a repeated %v must be a no-op: %+v", to, term)
					}
				default:
					if term.Err == nil || term.Settled {
						t.Fatalf("settling a %v handle as %v must fail", fh.state, to)
					}
				}
				i++
			case 10: // the signal aborts
				fh := pick(arg)
				if fh == nil || fh.state != Open {
					break
				}
				if term := fh.h.SignalAborted(); term.Settled {
					fh.state = Aborted
					fh.remnant = fh.h.RemnantCode()
				}
				i++
			case 11: // a stale or foreign id
				id := int32(arg)<<20 | int32(arg)
				if h := k.Get(id); h != nil && h.ID != id {
					t.Fatalf("Get(%d) answered with %d", id, h.ID)
				}
				i++
			}
			// Invariants after every step.
			var open []int32
			for _, fh := range hs {
				got := k.Get(fh.id)
				if fh.state == Open {
					if got != fh.h || got.State() != Open {
						t.Fatalf("open handle %d is not in the table", fh.id)
					}
					open = append(open, fh.id)
					if fh.gen == Continue && len(fh.orig) > 0 && !jsvalue.HasPrefix(e.bufs[fh.id].text, fh.orig) {
						t.Fatal("T26: a continue handle lost its prefix")
					}
				} else {
					if got != nil {
						t.Fatalf("settled handle %d is still in the table", fh.id)
					}
					r := Remnant(fh.remnant)
					if r.State() != fh.state || r.Gen != fh.gen {
						t.Fatalf("remnant %d does not say %v/%v", fh.remnant, fh.state, fh.gen)
					}
					if err := r.SetText(jsvalue.String, 0); err == nil || err.Code != "editor_"+fh.state.String() {
						t.Fatalf("T28: a write to a %v handle: %v", fh.state, err)
					}
				}
			}
			if got := k.ListUnsettled(now); len(got) != len(open) {
				t.Fatalf("T65: %d unsettled listed, %d open", len(got), len(open))
			}
		}
	})
}
