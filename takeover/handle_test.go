package takeover

import (
	"math"
	"strings"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

func TestT10T17_CreateValidation(t *testing.T) {
	w := newWorld(t)
	base := func() opts { return opts{gen: str("normal")} }
	// T10: non-object opts.
	_, err := w.k.Create(&CreateOpts{Opts: jsvalue.NullValue()})
	wantErr(t, err, "invalid_argument", "createMessageEditorHandle: opts must be an object; got null")
	_, err = w.k.Create(&CreateOpts{Opts: jsvalue.Num(42)})
	wantErr(t, err, "invalid_argument", "createMessageEditorHandle: opts must be an object; got 42")
	// T10 + T11 (S6): undefined opts means {} and then the type is missing.
	_, err = w.k.Create(&CreateOpts{Opts: jsvalue.Undef()})
	wantErr(t, err, "invalid_generation_type", "opts.generationType required, one of normal, regenerate, swipe, continue; got undefined")
	// T10: a function is not an options object, even one whose
	// properties would pass (its generationType is never looked at).
	_, err = w.k.Create(&CreateOpts{Opts: jsvalue.Opaque(jsvalue.Function, 1), GenerationType: str("swipe")})
	wantErr(t, err, "invalid_argument", "createMessageEditorHandle: opts must be an object; got function")
	for _, g := range []string{"quiet", "impersonate", "Normal"} { // S7
		o := base()
		o.gen = str(g)
		_, err := w.create(o)
		wantErr(t, err, "invalid_generation_type", "opts.generationType required, one of normal, regenerate, swipe, continue; got "+g)
	}
	cases := []struct {
		mod  func(*opts)
		code string
		msg  string
	}{
		{func(o *opts) { o.text = jsvalue.NullValue() }, "invalid_argument", "opts.originalText must be a string; got object"},                      // T12 S9
		{func(o *opts) { o.reasoning = jsvalue.Num(123) }, "invalid_argument", "opts.originalReasoning must be a string; got number"},               // T12
		{func(o *opts) { o.signal = SignalInvalid }, "invalid_argument", "opts.abortSignal must be an AbortSignal"},                                 // T13 S10
		{func(o *opts) { o.owner = jsvalue.Num(5) }, "invalid_argument", "opts.owner must be a string; got number"},                                 // T15
		{func(o *opts) { o.settle = str("yes") }, "invalid_argument", "opts.settleOnAbort must be a boolean; got string"},                           // T16
		{func(o *opts) { o.gen = str("x"); o.text = jsvalue.Num(5) }, "invalid_generation_type", ""},                                                // T17 S14
		{func(o *opts) { o.text = jsvalue.Num(1); o.signal = SignalInvalid }, "invalid_argument", "opts.originalText must be a string; got number"}, // T17
		{func(o *opts) { o.owner = jsvalue.Num(1); o.interval = jsvalue.Num(-1) }, "invalid_argument", "opts.flushIntervalMs must be a finite number between 0 and 2147483647; got -1"},
	}
	for i, c := range cases {
		o := base()
		c.mod(&o)
		_, err := w.create(o)
		if err == nil {
			t.Fatalf("case %d: no error", i)
		}
		wantErr(t, err, c.code, c.msg)
	}
	// T14 (S12).
	for _, v := range []jsvalue.Value{jsvalue.Num(-5), jsvalue.Num(math.NaN()), jsvalue.Num(math.Inf(1)), jsvalue.NullValue(), str("0"), jsvalue.Num(2147483648)} {
		o := base()
		o.interval = v
		_, err := w.create(o)
		wantErr(t, err, "invalid_argument", "opts.flushIntervalMs must be a finite number between 0 and 2147483647; got "+jsvalue.GoString(v.Display()))
	}
	for _, f := range []float64{16.5, math.Copysign(0, -1), 2147483647} {
		o := base()
		o.interval = jsvalue.Num(f)
		h, err := w.create(o)
		if err != nil || h.Interval != f || math.Signbit(h.Interval) {
			t.Fatalf("interval %v: %v %v", f, h, err)
		}
	}
	// T17: a failed call leaves no trace.
	if n := len(w.k.ListUnsettled(0)); n != 3 {
		t.Fatalf("only successful creations are registered; got %d", n)
	}
}

func TestT18_NewHandleDefaults(t *testing.T) {
	w := newWorld(t)
	h := w.H(func(o *opts) { o.interval = jsvalue.Undef() })
	if h.Settled() || h.Interval != 33 || jsvalue.GoString(h.Owner) != "unknown" || h.Gen != Normal {
		t.Fatalf("defaults: %+v", h)
	}
	rows := w.k.ListUnsettled(0)
	if len(rows) != 1 || jsvalue.GoString(rows[0].Owner) != "unknown" { // S15
		t.Fatalf("rows %+v", rows)
	}
}

// S20–S22, S26: T21–T23, T33.
func TestT21T23_MutatorsTypeThenState(t *testing.T) {
	w := newWorld(t)
	h := w.H(nil)
	if err := w.setText(h, "hello"); err != nil {
		t.Fatal(err)
	}
	w.setText(h, "hello world")
	if got := jsvalue.GoString(w.bufs[h.ID].text); got != "hello world" {
		t.Fatalf("text %q", got)
	}
	wantErr(t, h.SetText(jsvalue.Number, 0), "invalid_argument", "setText requires string; got number")
	wantErr(t, h.SetReasoning(jsvalue.Null), "invalid_argument", "setReasoning requires string; got object")
	wantErr(t, h.AppendReasoning(jsvalue.Number, 0), "invalid_argument", "appendReasoning requires string; got number")
	w.settle(h, Committed)
	wantErr(t, h.SetText(jsvalue.Number, 0), "invalid_argument", "") // T33: type check first
	wantErr(t, w.setText(h, "a"), "editor_committed", "editor committed; mutation rejected")
	if got := jsvalue.GoString(w.bufs[h.ID].text); got != "hello world" {
		t.Fatalf("refused write must restore: %q", got)
	}
	for _, s := range []State{Aborted, Discarded} {
		h := w.H(nil)
		w.settle(h, s)
		wantErr(t, w.setText(h, "a"), "editor_"+s.String(), "editor "+s.String()+"; mutation rejected")
		wantErr(t, w.setReasoning(h, "a"), "editor_"+s.String(), "")
		wantErr(t, w.appendReasoning(h, "x"), "editor_"+s.String(), "")
		if err := w.appendReasoning(h, ""); err != nil { // T23 step 2
			t.Fatalf("empty append on settled: %v", err)
		}
	}
}

// S23, S24, S25: T23, T24.
func TestT23T24_WritesAndEmptyAppend(t *testing.T) {
	w := newWorld(t)
	r := &recorder{}
	h := w.H(func(o *opts) { o.text = str("x") })
	w.onUpdate(h, r.cb)
	w.setText(h, "x")
	wantCalls(t, r, [2]string{"x", ""})
	r2 := &recorder{}
	h2 := w.H(func(o *opts) { o.reasoning = str("seed") })
	w.onUpdate(h2, r2.cb)
	w.appendReasoning(h2, " more")
	w.appendReasoning(h2, "")
	wantCalls(t, r2, [2]string{"", "seed more"})
}

// S28–S33: T25, T26.
func TestT25T26_ContinuePrefix(t *testing.T) {
	w := newWorld(t)
	h := w.H(func(o *opts) { o.gen = str("continue"); o.text = str("Hello ") })
	err := w.setText(h, "Bye there")
	wantErr(t, err, "invalid_op_for_continue", "setText in 'continue' must keep originalText prefix; got \"Bye there\"…")
	if v, _ := err.Details.Get("originalPrefix"); jsvalue.GoString(v.Str) != "Hello " || err.Details.Keys[0] != "originalPrefix" {
		t.Fatalf("details %+v", err.Details)
	}
	if got := jsvalue.GoString(w.bufs[h.ID].text); got != "Hello " {
		t.Fatalf("buffer changed: %q", got)
	}
	for _, ok := range []string{"Hello world", "Hello "} {
		if err := w.setText(h, ok); err != nil {
			t.Fatalf("%q: %v", ok, err)
		}
	}
	if err := w.setText(h, "Hell"); err == nil {
		t.Fatal("shorter than the prefix must fail")
	}
	// Reasoning has no invariant; nor have swipe/regenerate; '' prefix accepts anything.
	if err := w.setReasoning(h, "anything"); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"swipe", "regenerate"} {
		h := w.H(func(o *opts) { o.gen = str(g); o.text = str("orig") })
		if err := w.setText(h, "anything"); err != nil {
			t.Fatal(err)
		}
	}
	h0 := w.H(func(o *opts) { o.gen = str("continue"); o.text = str("") })
	w.pulls = 0
	if err := w.setText(h0, "zzz"); err != nil || w.pulls != 0 {
		t.Fatalf("empty prefix: %v, pulls %d", err, w.pulls)
	}
	// S32: the message quotes the first 32 units, escaping a split pair.
	hp := w.H(func(o *opts) { o.gen = str("continue"); o.text = str("P") })
	err = w.setText(hp, strings.Repeat("a", 31)+"😀z")
	want := "setText in 'continue' must keep originalText prefix; got \"" + strings.Repeat("a", 31) + `\ud83d` + "\"…"
	wantErr(t, err, "invalid_op_for_continue", want)
	hx := w.H(func(o *opts) { o.gen = str("continue"); o.text = str(strings.Repeat("x", 100)) })
	err = w.setText(hx, "y")
	if v, _ := err.Details.Get("originalPrefix"); len(v.Str) != 64 {
		t.Fatalf("originalPrefix length %d", len(v.Str))
	}
	// A settled continue handle reports the state, not the prefix (S22).
	w.settle(h, Committed)
	wantErr(t, w.setText(h, "zzz"), "editor_committed", "")
}

// S35–S39, S43: T28, T30.
func TestT28T30_TerminalTable(t *testing.T) {
	w := newWorld(t)
	msgs := map[[2]State]string{
		{Committed, Aborted}: "cannot abort a committed handle", {Committed, Discarded}: "cannot discard a committed handle",
		{Aborted, Committed}: "cannot commit an aborted handle", {Aborted, Discarded}: "cannot discard an aborted handle",
		{Discarded, Committed}: "cannot commit a discarded handle", {Discarded, Aborted}: "cannot abort a discarded handle",
	}
	for _, first := range []State{Committed, Aborted, Discarded} {
		r := &recorder{}
		h := w.H(func(o *opts) { o.text = str("orig"); o.reasoning = str("origR") })
		w.onUpdate(h, r.cb)
		w.setText(h, "cur")
		w.setReasoning(h, "curR")
		res := h.Settle(first)
		if !res.Settled || res.Err != nil || res.Outcome.Status != first {
			t.Fatalf("settle %v: %+v", first, res)
		}
		if first == Discarded && (res.Outcome.TextFrom != OriginalText || res.Outcome.ReasonFrom != OriginalReasoning) {
			t.Fatal("discard reports the originals")
		}
		if first != Discarded && (res.Outcome.TextFrom != Text || res.Outcome.ReasonFrom != Reasoning) {
			t.Fatal("commit/abort report the buffers")
		}
		n := len(r.calls)
		if again := h.Settle(first); again.Settled || again.Err != nil { // S37
			t.Fatalf("repeat must be a no-op: %+v", again)
		}
		if len(r.calls) != n {
			t.Fatal("a no-op does not flush")
		}
		for _, other := range []State{Committed, Aborted, Discarded} {
			if other == first {
				continue
			}
			res := h.Settle(other)
			wantErr(t, res.Err, "editor_"+first.String(), msgs[[2]State{first, other}])
			if h.State() != first || res.Settled {
				t.Fatal("a rejected call changes nothing")
			}
		}
	}
}

// S41–S45: T29, T31, T32, T44.
func TestT31T32_FinalFlush(t *testing.T) {
	w := newWorld(t)
	r := &recorder{}
	h := w.H(func(o *opts) { o.interval = jsvalue.Num(1000) })
	w.onUpdate(h, r.cb)
	w.setText(h, "flushed")
	wantCalls(t, r)
	w.settle(h, Committed)
	wantCalls(t, r, [2]string{"flushed", ""})
	if len(w.timers) != 0 {
		t.Fatal("no timer remains after settlement (T33)")
	}
	w.advance(5000)
	wantCalls(t, r, [2]string{"flushed", ""})
	// S43: nothing pending still flushes once; a second commit does not.
	r2 := &recorder{}
	h2 := w.H(nil)
	w.onUpdate(h2, r2.cb)
	w.settle(h2, Committed)
	w.settle(h2, Committed)
	wantCalls(t, r2, [2]string{"", ""})
	// Abort flushes too.
	r3 := &recorder{}
	h3 := w.H(func(o *opts) { o.interval = jsvalue.Num(1000) })
	w.onUpdate(h3, r3.cb)
	w.setText(h3, "p")
	w.settle(h3, Aborted)
	wantCalls(t, r3, [2]string{"p", ""})
	// S44: discard never calls.
	r4 := &recorder{}
	h4 := w.H(func(o *opts) { o.interval = jsvalue.Num(1000) })
	w.onUpdate(h4, r4.cb)
	w.setText(h4, "p")
	w.settle(h4, Discarded)
	w.advance(2000)
	wantCalls(t, r4)
	// S45: a write from the final flush throws editor_committed; it is caught and warned.
	h5 := w.H(func(o *opts) { o.owner = str("my-plugin") })
	w.onUpdate(h5, func(string, string) {
		if err := w.setText(h5, "late"); err != nil {
			panic(err)
		}
	})
	if err := w.settle(h5, Committed); err != nil {
		t.Fatal(err)
	}
	if len(w.warns) != 1 || w.warns[0] != "[message-takeover] onUpdate threw during final flush (owner=my-plugin)" {
		t.Fatalf("warns %q", w.warns)
	}
	if jsvalue.GoString(w.bufs[h5.ID].text) != "" {
		t.Fatal("finalText unchanged")
	}
}

// S46–S50: T34, T35.
func TestT34T35_SettleOnAbort(t *testing.T) {
	w := newWorld(t)
	h := w.H(func(o *opts) { o.signal = SignalGiven; o.settle = jsvalue.Bool(true) })
	if !h.ListensForAbort() {
		t.Fatal("settleOnAbort handles listen")
	}
	w.setText(h, "partial")
	res := h.SignalAborted()
	if !res.Settled || res.Outcome.Status != Aborted || !h.Settled() {
		t.Fatalf("signal settle %+v", res)
	}
	if r := h.Settle(Aborted); r.Err != nil || r.Settled {
		t.Fatal("abort() after a signal settle is a resolved no-op")
	}
	wantErr(t, h.Settle(Committed).Err, "editor_aborted", "cannot commit an aborted handle")
	wantErr(t, h.Settle(Discarded).Err, "editor_aborted", "")
	if r := h.SignalAborted(); r.Settled {
		t.Fatal("a second fire changes nothing")
	}
	// S47: timed mode flushes once inside the signal settle.
	r := &recorder{}
	h2 := w.H(func(o *opts) { o.signal = SignalGiven; o.settle = jsvalue.Bool(true); o.interval = jsvalue.Num(1000) })
	w.onUpdate(h2, r.cb)
	w.setText(h2, "x")
	h2.SignalAborted()
	wantCalls(t, r, [2]string{"x", ""})
	// S48: pre-aborted.
	h3 := w.H(func(o *opts) {
		o.signal = SignalGiven
		o.aborted = true
		o.settle = jsvalue.Bool(true)
		o.text = str("o")
	})
	if !h3.Settled() || h3.ListensForAbort() || h3.Outcome().Status != Aborted || w.bufs[h3.ID].outcome == nil {
		t.Fatal("pre-aborted handle is returned settled")
	}
	wantErr(t, w.setText(h3, "o1"), "editor_aborted", "")
	r3 := &recorder{}
	w.onUpdate(h3, r3.cb)
	wantCalls(t, r3)
	// S49: commit then a signal leaves it committed.
	h4 := w.H(func(o *opts) { o.signal = SignalGiven; o.settle = jsvalue.Bool(true) })
	w.settle(h4, Committed)
	if h4.SignalAborted().Settled || h4.State() != Committed {
		t.Fatal("signal after commit changes nothing")
	}
	// S50: without settleOnAbort the signal does nothing, even pre-aborted.
	h5 := w.H(func(o *opts) { o.signal = SignalGiven; o.aborted = true })
	if h5.Settled() || h5.ListensForAbort() || h5.SignalAborted().Settled {
		t.Fatal("default handles ignore the signal (T34)")
	}
	if err := w.setText(h5, "still works"); err != nil {
		t.Fatal(err)
	}
}

// S51–S54: T37, T38, T40.
func TestT38_TrailingEdgeThrottle(t *testing.T) {
	w := newWorld(t)
	r := &recorder{}
	h := w.H(func(o *opts) { o.interval = jsvalue.Undef() })
	w.onUpdate(h, r.cb)
	for i := 0; i < 5; i++ {
		w.setText(h, string(rune('a'+i)))
	}
	w.advance(32)
	wantCalls(t, r)
	w.advance(1)
	wantCalls(t, r, [2]string{"e", ""})
	// S53: a write every 7 ms with interval 30.
	w2 := newWorld(t)
	r2 := &recorder{}
	var times []float64
	h2 := w2.H(func(o *opts) { o.interval = jsvalue.Num(30) })
	w2.onUpdate(h2, func(a, b string) { times = append(times, w2.now); r2.cb(a, b) })
	for ts := 0; ts <= 98; ts += 7 {
		w2.advance(float64(ts) - w2.now)
		w2.setText(h2, jsvalue.NumberString(float64(ts)))
	}
	w2.advance(200)
	wantCalls(t, r2, [2]string{"28", ""}, [2]string{"63", ""}, [2]string{"98", ""})
	if times[0] != 30 || times[1] != 65 || times[2] != 100 {
		t.Fatalf("times %v", times)
	}
	// S54.
	r3 := &recorder{}
	h3 := w.H(func(o *opts) { o.interval = jsvalue.Num(10) })
	w.onUpdate(h3, r3.cb)
	w.setText(h3, "a")
	w.setReasoning(h3, "r1")
	w.setText(h3, "b")
	w.advance(10)
	wantCalls(t, r3, [2]string{"b", "r1"})
	// T37: without a callback no timer starts.
	h4 := w.H(func(o *opts) { o.interval = jsvalue.Num(10) })
	w.setText(h4, "a")
	if _, ok := w.timers[h4.ID]; ok {
		t.Fatal("no timer without a callback")
	}
	// S51: immediate mode delivers inside the mutator.
	r5 := &recorder{}
	h5 := w.H(nil)
	w.onUpdate(h5, r5.cb)
	w.setText(h5, "now")
	wantCalls(t, r5, [2]string{"now", ""})
}

// S55–S58: T36, T41, T42.
func TestT36T42_AttachAndDetach(t *testing.T) {
	w := newWorld(t)
	r := &recorder{}
	h := w.H(nil)
	w.setText(h, "a")
	w.setText(h, "b")
	w.onUpdate(h, r.cb)
	wantCalls(t, r, [2]string{"b", ""})
	r2 := &recorder{}
	w.onUpdate(h, r2.cb)
	wantCalls(t, r2)
	// S56.
	r3, r4 := &recorder{}, &recorder{}
	h2 := w.H(func(o *opts) { o.interval = jsvalue.Num(1000) })
	w.onUpdate(h2, r3.cb)
	w.setText(h2, "a")
	w.onUpdate(h2, r4.cb)
	wantCalls(t, r4, [2]string{"a", ""})
	w.advance(1000)
	wantCalls(t, r3)
	wantCalls(t, r4, [2]string{"a", ""})
	// S57.
	r5, r6 := &recorder{}, &recorder{}
	h3 := w.H(func(o *opts) { o.interval = jsvalue.Num(10) })
	w.onUpdate(h3, r5.cb)
	w.setText(h3, "a")
	w.onUpdate(h3, nil)
	w.advance(25)
	wantCalls(t, r5)
	w.onUpdate(h3, r6.cb)
	wantCalls(t, r6, [2]string{"a", ""})
	// S58.
	wantErr(t, h3.SetOnUpdate(jsvalue.Number), "invalid_argument", "setOnUpdate requires a function or null; got number")
	if err := h3.SetOnUpdate(jsvalue.Undefined); err != nil {
		t.Fatal(err)
	}
	// Allowed when settled.
	w.settle(h3, Discarded)
	if err := w.onUpdate(h3, r6.cb); err != nil {
		t.Fatal(err)
	}
}

// S59, S60: T44, T45.
func TestT44T45_ThrowAndReentry(t *testing.T) {
	w := newWorld(t)
	calls := 0
	h := w.H(func(o *opts) { o.interval = jsvalue.Num(10) })
	w.onUpdate(h, func(string, string) {
		calls++
		if calls == 1 {
			panic("boom")
		}
	})
	w.setText(h, "a")
	w.advance(10)
	if len(w.warns) != 1 || w.warns[0] != "[message-takeover] onUpdate threw during scheduled flush (owner=unknown)" {
		t.Fatalf("warns %q", w.warns)
	}
	w.setText(h, "b")
	w.advance(10)
	if calls != 2 {
		t.Fatal("the next write is still delivered")
	}
	// S60: immediate mode re-entry is delivered after the call returns.
	var events []string
	h2 := w.H(nil)
	first := true
	w.onUpdate(h2, func(text, _ string) {
		events = append(events, "enter:"+text)
		if first {
			first = false
			w.setText(h2, text+"!")
		}
		events = append(events, "exit")
	})
	w.setText(h2, "a")
	want := []string{"enter:a", "exit", "enter:a!", "exit"}
	if strings.Join(events, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v", events)
	}
	// Timed mode: a write in a callback starts a window as usual.
	r := &recorder{}
	h3 := w.H(func(o *opts) { o.interval = jsvalue.Num(10) })
	once := true
	w.onUpdate(h3, func(a, b string) {
		r.cb(a, b)
		if once {
			once = false
			w.setText(h3, "second")
		}
	})
	w.setText(h3, "first")
	w.advance(10)
	wantCalls(t, r, [2]string{"first", ""})
	w.advance(10)
	wantCalls(t, r, [2]string{"first", ""}, [2]string{"second", ""})
	// Attach, immediate: warnings name their phase.
	h4 := w.H(nil)
	w.setText(h4, "x")
	w.onUpdate(h4, func(string, string) { panic("x") })
	w.setText(h4, "y")
	got := w.warns[len(w.warns)-2:]
	if got[0] != "[message-takeover] onUpdate threw during attach flush (owner=unknown)" ||
		got[1] != "[message-takeover] onUpdate threw during immediate flush (owner=unknown)" {
		t.Fatalf("warns %q", got)
	}
}

// T41/T45: in immediate mode, writes an attach-flush callback makes are
// delivered by further calls right after it returns, not left pending.
func TestT45_WriteInsideAttachFlush(t *testing.T) {
	w := newWorld(t)
	h := w.H(nil)
	w.setText(h, "a")
	var events []string
	w.onUpdate(h, func(text, reasoning string) {
		events = append(events, "enter:"+text+"/"+reasoning)
		switch text {
		case "a":
			w.setText(h, "b")
		case "b":
			if reasoning == "" {
				w.setReasoning(h, "r")
				panic("after a write") // the write still goes out (T44)
			}
		}
		events = append(events, "exit")
	})
	events = append(events, "returned")
	want := []string{"enter:a/", "exit", "enter:b/", "enter:b/r", "exit", "returned"}
	if strings.Join(events, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v", events)
	}
	if got := w.warns[len(w.warns)-1]; got != "[message-takeover] onUpdate threw during immediate flush (owner=unknown)" {
		t.Fatalf("warn %q", got)
	}
	// Timed mode: such a write starts a window as usual.
	r := &recorder{}
	h2 := w.H(func(o *opts) { o.interval = jsvalue.Num(10) })
	w.setText(h2, "x")
	w.onUpdate(h2, func(a, b string) {
		r.cb(a, b)
		if a == "x" {
			w.setText(h2, "y")
		}
	})
	wantCalls(t, r, [2]string{"x", ""})
	w.advance(10)
	wantCalls(t, r, [2]string{"x", ""}, [2]string{"y", ""})
}

// T45: a callback that writes in every call (a normaliser calling setText
// each time) stops after MaxRedeliveries follow-up calls with one warning;
// the update waits for the next write, which runs the loop again.
func TestT45_EndlessRewritesAreBounded(t *testing.T) {
	w := newWorld(t)
	h := w.H(nil)
	calls := 0
	w.onUpdate(h, func(text, _ string) { calls++; w.setText(h, text) })
	w.setText(h, "a")
	if calls != MaxRedeliveries+1 {
		t.Fatalf("calls %d", calls)
	}
	if got := w.warns[len(w.warns)-1]; got != "[message-takeover] onUpdate wrote again in each of 1000 deliveries in a row; the update waits for the next write (owner=unknown)" {
		t.Fatalf("warn %q", got)
	}
	w.setText(h, "b")
	if calls != 2*(MaxRedeliveries+1) || len(w.warns) != 2 {
		t.Fatalf("calls %d, warns %d", calls, len(w.warns))
	}
}

// T31/T45: a commit from inside a callback runs its final flush nested.
func TestT31_CommitInsideCallback(t *testing.T) {
	w := newWorld(t)
	var events []string
	h := w.H(nil)
	w.onUpdate(h, func(text, _ string) {
		events = append(events, "cb:"+text)
		if !h.Settled() {
			w.settle(h, Committed)
			events = append(events, "committed")
		}
	})
	w.setText(h, "a")
	if strings.Join(events, ",") != "cb:a,cb:a,committed" || h.State() != Committed {
		t.Fatalf("events %v", events)
	}
}

// T28/T33: a settled handle's remnant answers like the handle did.
func TestRemnantDecidesFromStateAlone(t *testing.T) {
	for _, s := range []State{Committed, Aborted, Discarded} {
		r := Remnant(int32(s) | int32(Swipe)<<3 | 4)
		if r.State() != s || r.Gen != Swipe || !r.Claimed || r.RemnantCode() != int32(s)|int32(Swipe)<<3|4 {
			t.Fatal("remnant code round trip")
		}
		wantErr(t, r.SetText(jsvalue.Number, 0), "invalid_argument", "setText requires string; got number")
		wantErr(t, r.SetText(jsvalue.String, 3), "editor_"+s.String(), "editor "+s.String()+"; mutation rejected")
		wantErr(t, r.SetReasoning(jsvalue.String), "editor_"+s.String(), "")
		if r.AppendReasoning(jsvalue.String, 0) != nil || r.SetOnUpdate(jsvalue.Function) != nil || r.SetOnUpdate(jsvalue.Null) != nil {
			t.Fatal("allowed calls")
		}
		if res := r.Settle(s); res.Err != nil || res.Settled {
			t.Fatal("same terminal is a no-op")
		}
		if res := r.SignalAborted(); res.Settled || res.Err != nil {
			t.Fatal("signal after settlement")
		}
		for _, o := range []State{Committed, Aborted, Discarded} {
			if o != s && r.Settle(o).Err == nil {
				t.Fatal("cross-state terminal must fail")
			}
		}
	}
}

// T65: listing and release.
func TestT65_ListUnsettledAndRelease(t *testing.T) {
	w := newWorld(t)
	a := w.H(func(o *opts) { o.owner = str("a") })
	w.now = 100
	b := w.H(func(o *opts) { o.owner = str("b"); o.gen = str("swipe") })
	b.Claimed = true
	c := w.H(nil)
	w.settle(c, Committed)
	rows := w.k.ListUnsettled(600.7)
	if len(rows) != 2 || jsvalue.GoString(rows[0].Owner) != "a" || rows[0].AgeMs != 600 || rows[1].Gen != Swipe || !rows[1].Claimed || rows[1].AgeMs != 500 {
		t.Fatalf("rows %+v", rows)
	}
	w.k.Release(a.ID)
	if rows := w.k.ListUnsettled(700); len(rows) != 1 || w.k.Get(a.ID) != nil {
		t.Fatalf("released handle still listed: %+v", rows)
	}
	// Settled and released handles leave the table, and their slots are
	// reused under a new generation, so memory stays flat.
	for i := 0; i < 1000; i++ {
		h := w.H(nil)
		if i%2 == 0 {
			w.settle(h, Committed)
		} else {
			w.k.Release(h.ID)
		}
		if w.k.Get(h.ID) != nil {
			t.Fatal("still in the table")
		}
		if h.ID <= 0 || h.ID >= 1<<29 {
			t.Fatalf("id %d leaves no room for the facade's flag bits", h.ID)
		}
	}
	if len(w.k.table) > 4 {
		t.Fatalf("table grew to %d", len(w.k.table))
	}
	stale := c.ID
	fresh := w.H(nil)
	if fresh.ID == stale || w.k.Get(stale) != nil {
		t.Fatal("a recycled index must not answer to a stale id")
	}
	w.k.Release(stale) // ignored
	if w.k.Get(fresh.ID) != fresh {
		t.Fatal("releasing a stale id must not touch the new handle")
	}
}

// Quiet is the kernel's promise that further string writes change nothing
// until another call: it must hold exactly while pending with a running
// timer (or no callback), never in immediate mode or for a guarded
// continue prefix.
func TestQuietWritesAreTrulyNoOps(t *testing.T) {
	w := newWorld(t)
	h := w.H(func(o *opts) { o.interval = jsvalue.Num(33) })
	if h.Quiet() {
		t.Fatal("not pending yet")
	}
	w.setText(h, "a")
	if !h.Quiet() {
		t.Fatal("pending without a callback: further writes are no-ops")
	}
	r := &recorder{}
	w.onUpdate(h, r.cb) // attach flush clears pending
	if h.Quiet() {
		t.Fatal("attach flush cleared pending")
	}
	w.setText(h, "b")
	if !h.Quiet() {
		t.Fatal("pending with a running timer")
	}
	// The promise: another string write leaves the kernel's state unchanged.
	snap := func() [5]any { return [5]any{h.state, h.pending, h.timer, h.timerToken, h.hasCallback} }
	before, timers := snap(), len(w.timers)
	w.setText(h, "c")
	if snap() != before || len(w.timers) != timers {
		t.Fatal("a quiet write changed the kernel's state")
	}
	w.advance(33)
	if h.Quiet() {
		t.Fatal("the flush cleared pending")
	}
	im := w.H(nil)
	w.onUpdate(im, r.cb)
	w.setText(im, "x")
	if im.Quiet() {
		t.Fatal("immediate mode delivers every write")
	}
	c := w.H(func(o *opts) { o.gen = str("continue"); o.text = str("P"); o.interval = jsvalue.Num(33) })
	w.setText(c, "Px")
	if c.Quiet() {
		t.Fatal("a guarded prefix needs every write checked")
	}
	w.settle(h, Committed)
	if h.Quiet() {
		t.Fatal("settled handles reject writes")
	}
}

// The bridge hands Create views into its shared buffer: what the handle
// keeps (the owner) must be a copy. The continue prefix is not kept at
// all: only its length (the edge holds the text and compares it).
func TestCreateKeepsCopiesOfItsStrings(t *testing.T) {
	w := newWorld(t)
	owner := jsvalue.U("plugin")
	h, err := w.k.Create(&CreateOpts{Opts: jsvalue.Opaque(jsvalue.Object, 1), GenerationType: str("continue"),
		OriginalText: jsvalue.Str(nil), OriginalTextLen: 6, Owner: jsvalue.Str(owner), FlushIntervalMs: jsvalue.Num(0)})
	if err != nil {
		t.Fatal(err)
	}
	orig := jsvalue.U("Hello ")
	w.bufs[h.ID] = &bufs{text: orig, origText: orig}
	owner[0] = 'X'
	if jsvalue.GoString(h.Owner) != "plugin" {
		t.Fatalf("aliased: %q", jsvalue.GoString(h.Owner))
	}
	wantErr(t, w.setText(h, "Bye"), "invalid_op_for_continue", `setText in 'continue' must keep originalText prefix; got "Bye"…`)
	if err := w.setText(h, "Hello world"); err != nil {
		t.Fatal(err)
	}
}

// T25: the editor ops' own appends keep the prefix by construction: no
// comparison, no pull; a settled handle refuses them like setText.
func TestT25_AppendNeedsNoPrefixCheck(t *testing.T) {
	w := newWorld(t)
	h := w.H(func(o *opts) { o.gen = str("continue"); o.text = str("Hello ") })
	before := w.pulls
	b := w.bufs[h.ID]
	b.text = jsvalue.Cat(b.text, jsvalue.U("world"))
	if err := h.CheckAppend(); err != nil {
		t.Fatal(err)
	}
	h.Write()
	if w.pulls != before {
		t.Fatal("an append reads nothing")
	}
	w.settle(h, Committed)
	wantErr(t, h.CheckAppend(), "editor_committed", "editor committed; mutation rejected")
}

// T13, T16, T35: settleOnAbort without a given signal uses the handle's own
// signal, which never aborts, so nothing listens; the host's default
// (installTakeoverContext's settleOnAbort) applies only when opts leave it
// undefined.
func TestT13T16_SettleOnAbortSignalAndHostDefault(t *testing.T) {
	w := newWorld(t)
	h := w.H(func(o *opts) { o.settle = jsvalue.Bool(true) })
	if h.Settled() || h.ListensForAbort() {
		t.Fatal("no given signal: open, and no listener")
	}
	if r := h.SignalAborted(); r.Settled {
		t.Fatal("nothing to settle on")
	}
	if len(w.k.ListUnsettled(0)) != 1 {
		t.Fatal("listed while open")
	}
	host := w.H(func(o *opts) { o.signal = SignalGiven; o.hostSettle = true })
	if !host.ListensForAbort() {
		t.Fatal("the host default turns settleOnAbort on")
	}
	optOut := w.H(func(o *opts) { o.signal = SignalGiven; o.hostSettle = true; o.settle = jsvalue.Bool(false) })
	if optOut.ListensForAbort() {
		t.Fatal("an explicit false wins over the host default")
	}
	pre := w.H(func(o *opts) { o.signal = SignalGiven; o.aborted = true; o.hostSettle = true })
	if pre.State() != Aborted {
		t.Fatal("the host default applies to a pre-aborted signal too (T35)")
	}
	_, err := w.create(opts{gen: str("normal"), settle: jsvalue.Num(1), hostSettle: true})
	wantErr(t, err, "invalid_argument", "opts.settleOnAbort must be a boolean; got number")
}

// T29, T31: settlement is all or nothing. The handle is settled and out of
// the table before any call out, so the final flush sees it settled, and a
// clearTimeout that throws is warned about without undoing anything.
func TestT29T31_SettlementIsAllOrNothing(t *testing.T) {
	w := newWorld(t)
	r := &recorder{}
	h := w.H(func(o *opts) { o.interval = jsvalue.Num(1000); o.owner = str("p") })
	w.onUpdate(h, r.cb)
	w.setText(h, "x")
	w.failClearTimeout = true
	if err := w.settle(h, Committed); err != nil {
		t.Fatal(err)
	}
	if !h.Settled() || w.bufs[h.ID].outcome == nil || w.bufs[h.ID].outcome.Status != Committed {
		t.Fatal("settled despite the failing clearTimeout")
	}
	wantCalls(t, r, [2]string{"x", ""})
	if len(w.settledInFinal) != 1 || !w.settledInFinal[0] {
		t.Fatalf("the final flush runs on a settled handle: %v", w.settledInFinal)
	}
	if len(w.warns) != 1 || w.warns[0] != "[message-takeover] clearTimeout threw (owner=p)" {
		t.Fatalf("warns %q", w.warns)
	}
	w.advance(2000) // the timer that was not cleared fires stale
	wantCalls(t, r, [2]string{"x", ""})
	// Abort and a signal-driven settle flush settled too.
	w.failClearTimeout = false
	h2 := w.H(func(o *opts) { o.signal = SignalGiven; o.settle = jsvalue.Bool(true) })
	w.onUpdate(h2, func(string, string) {})
	h2.SignalAborted()
	if len(w.settledInFinal) != 2 || !w.settledInFinal[1] {
		t.Fatal("signal settle: the final flush sees it settled")
	}
}

// T38: a setTimeout that throws leaves the write accepted and pending; the
// next write tries again, and the final flush delivers in any case.
func TestT38_SetTimeoutThatThrows(t *testing.T) {
	w := newWorld(t)
	r := &recorder{}
	h := w.H(func(o *opts) { o.interval = jsvalue.Num(10); o.owner = str("p") })
	w.onUpdate(h, r.cb)
	w.failSetTimeout = true
	if err := w.setText(h, "a"); err != nil {
		t.Fatal("the write stands", err)
	}
	if len(w.warns) != 1 || w.warns[0] != "[message-takeover] setTimeout threw; the update waits for the next write (owner=p)" {
		t.Fatalf("warns %q", w.warns)
	}
	w.failSetTimeout = false
	w.setText(h, "b")
	w.advance(10)
	wantCalls(t, r, [2]string{"b", ""})
	w.failSetTimeout = true
	w.setText(h, "c")
	w.settle(h, Committed)
	wantCalls(t, r, [2]string{"b", ""}, [2]string{"c", ""})
}

// T65 lists in creation order whatever the table order; sortBySeq must
// order any permutation, including lengths that are not powers of two.
func TestT65SortBySeqOrdersAnyPermutation(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 5, 8, 13, 100, 1025} {
		hs := make([]*Handle, n)
		for i := range hs {
			hs[i] = &Handle{seq: uint64((i*7919 + 13) % (n + 1) * 3)}
		}
		// distinct seqs: i*7919 mod (n+1) is a permutation when gcd(7919, n+1) = 1
		sortBySeq(hs)
		for i := 1; i < n; i++ {
			if hs[i-1].seq >= hs[i].seq {
				t.Fatalf("n=%d: seq %d before %d at %d", n, hs[i-1].seq, hs[i].seq, i)
			}
		}
	}
}

// T65 (issue 13, noticed): a page that leaves 2^20 handles open gets a
// coded refusal it can act on, not an internal error; settling one makes
// room for the next create.
func TestT65TooManyOpenHandlesIsCodedAndRecoverable(t *testing.T) {
	w := newWorld(t)
	h := w.H(nil)
	// The table as 2^20 creates leave it: every slot taken (the others by
	// handles this test need not build).
	for len(w.k.table) < MaxOpenHandles {
		w.k.table = append(w.k.table, nil)
		w.k.gens = append(w.k.gens, 1)
	}
	created := w.k.created
	_, err := w.create(opts{gen: str("normal"), interval: jsvalue.Num(0)})
	if err == nil || err.Code != "too_many_open_handles" || err.Class != apierr.TakeoverError {
		t.Fatalf("create with every slot taken: %v, want TakeoverError too_many_open_handles", err)
	}
	if w.k.created != created {
		t.Fatal("a refused create was counted")
	}
	w.settle(h, Discarded)
	if _, err := w.create(opts{gen: str("normal"), interval: jsvalue.Num(0)}); err != nil {
		t.Fatalf("create after one settled: %v", err)
	}
}
