package chatsurface

import (
	"math"
	"testing"

	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

func reg(t *testing.T, r *Registry, d Definition) error {
	t.Helper()
	_, err := r.Register(d)
	return err
}

// C18 S5: ids are String()ed and trimmed; duplicates compare after trimming.
func TestC18_S5_IDConversionAndDuplicates(t *testing.T) {
	r := NewRegistry()
	five := Num(5)
	if err := reg(t, r, def("id", five, "protocolVersion", Num(1), "didMount", Fn(1))); err != nil {
		t.Fatal(err)
	}
	wantErr(t, reg(t, r, def("id", Str("5"), "protocolVersion", Num(1), "didMount", Fn(1))), apierr.PlainError,
		"ChatSurface participant already registered: 5")
	if err := reg(t, r, def("id", Str("  a/b \u3000\n"), "protocolVersion", Num(1), "didMount", Fn(1))); err != nil {
		t.Fatal(err)
	}
	wantErr(t, reg(t, r, def("id", Str("a/b"), "protocolVersion", Num(1), "didMount", Fn(1))), apierr.PlainError,
		"ChatSurface participant already registered: a/b")
	if r.Participants()[1].ID != "a/b" {
		t.Fatalf("stored id %q", r.Participants()[1].ID)
	}
}

// C18 S6, S7, S8, S9: validation order and exact messages.
func TestC18_ValidationMessages(t *testing.T) {
	cases := []struct {
		name  string
		d     fakeDef
		class apierr.Class
		msg   string
	}{
		{"S6 string version", def("id", Str("x"), "protocolVersion", Str("1"), "didMount", Fn(1)), apierr.PlainError, "Unsupported ChatSurface participant protocol: 1"},
		{"S6 missing version", def("id", Str("x"), "didMount", Fn(1)), apierr.PlainError, "Unsupported ChatSurface participant protocol: undefined"},
		{"S7 unknown field", def("id", Str("x"), "protocolVersion", Num(1), "didMount", Fn(1), "refresh", Fn(2)), apierr.PlainError, "Unknown ChatSurface participant field: refresh"},
		{"S7 claimRuntimes", def("id", Str("x"), "protocolVersion", Num(1), "claimRuntimes", Fn(2)), apierr.PlainError, "Unknown ChatSurface participant field: claimRuntimes"},
		{"S7 fields first", def("id", Str(""), "protocolVersion", Num(2), "foo", Num(1)), apierr.PlainError, "Unknown ChatSurface participant field: foo"},
		{"S8 null hook", def("id", Str("x"), "protocolVersion", Num(1), "prepareContent", Fn(1), "didMount", Value{Kind: jsvalue.Null, Str: "null"}), apierr.TypeError, "ChatSurface participant x.didMount must be a function"},
		{"S9 no hook", def("id", Str("x"), "protocolVersion", Num(1)), apierr.PlainError, "ChatSurface participant x must implement at least one hook"},
		{"S9 empty id", def("id", Str(""), "protocolVersion", Num(1), "didMount", Fn(1)), apierr.PlainError, "ChatSurface participant id is required"},
		{"S9 zero id", def("id", Num(0), "protocolVersion", Num(1), "didMount", Fn(1)), apierr.PlainError, "ChatSurface participant id is required"},
		{"S9 null id", def("id", Value{Kind: jsvalue.Null, Str: "null"}, "protocolVersion", Num(1), "didMount", Fn(1)), apierr.PlainError, "ChatSurface participant id is required"},
		{"S9 blank id", def("id", Str(" \t "), "protocolVersion", Num(1), "didMount", Fn(1)), apierr.PlainError, "ChatSurface participant id is required"},
		{"S9 string", fakeDef{v: Str("p")}, apierr.TypeError, "ChatSurface participant must be an object"},
		{"S9 function", fakeDef{v: Fn(3)}, apierr.TypeError, "ChatSurface participant must be an object"},
		{"null", fakeDef{v: Value{Kind: jsvalue.Null}}, apierr.TypeError, "ChatSurface participant must be an object"},
		{"hook order", def("id", Str("x"), "protocolVersion", Num(1), "didCommitContent", Num(1), "didMount", Str("f")), apierr.TypeError, "ChatSurface participant x.didMount must be a function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, reg(t, NewRegistry(), c.d), c.class, c.msg)
		})
	}
}

// C18: inherited values count (only step 2 looks at own keys), reads happen
// in order and a throwing getter propagates by identity.
func TestC18_InheritedHooksAndThrowingGetter(t *testing.T) {
	d := def("id", Str("cls"), "protocolVersion", Num(1))
	d.vals["didMount"] = Fn(9) // a prototype method: not an own key
	r := NewRegistry()
	if err := reg(t, r, d); err != nil {
		t.Fatal(err)
	}
	if r.Participants()[0].DidMount != 9 {
		t.Fatal("inherited hook not stored")
	}
	var reads []string
	boom := &JSValue{Ref: 77, ErrorRef: 77}
	g := def("id", Str("g"), "protocolVersion", Num(1), "didMount", Fn(1))
	g.get = func(name string) *JSValue {
		reads = append(reads, name)
		if name == "prepareContent" {
			return boom
		}
		return nil
	}
	if err := reg(t, r, g); err != boom {
		t.Fatalf("got %v, want the thrown value", err)
	}
	wantLog(t, reads, "id", "protocolVersion", "prepareContent")
	// Object.keys itself may throw (a Proxy's ownKeys trap): the thrown
	// value, before any field is read (C6, issue 13).
	reads = nil
	k := def("id", Str("k"), "protocolVersion", Num(1))
	k.keysThrow = boom
	k.get = g.get
	if err := reg(t, r, k); err != boom {
		t.Fatalf("got %v, want the thrown value", err)
	}
	wantLog(t, reads)
}

// C17 S11, C24 S12: the freeze comes first, before any validation.
func TestC17_FrozenRegistryRejectsFirst(t *testing.T) {
	r := NewRegistry()
	_ = r.freeze()
	wantErr(t, reg(t, r, fakeDef{v: Value{Kind: jsvalue.Null}}), apierr.PlainError, "ChatSurface participants must register before the first projection")
}

// C21: first fault wins; cause is the error value.
func TestC21_FaultFirstWins(t *testing.T) {
	r := NewRegistry()
	a, _ := r.Register(def("id", Str("a"), "protocolVersion", Num(1), "didMount", Fn(1)))
	b, _ := r.Register(def("id", Str("b"), "protocolVersion", Num(1), "didMount", Fn(1)))
	r.Fault(a, &JSValue{Ref: 5, ErrorRef: 6})
	r.Fault(b, &JSValue{Ref: 7, ErrorRef: 7})
	if r.fault == nil || r.fault.Message != "ChatSurface participant a is faulted" {
		t.Fatalf("fault %v", r.fault)
	}
	if c := r.fault.Cause.(*JSValue); c.Ref != 6 {
		t.Fatalf("cause must be the error value (ref 6), got %d", c.Ref)
	}
	if err := r.freeze(); err != r.fault {
		t.Fatal("freeze must return the stored fault (C22)")
	}
}

// C11, C12, C14: install order and messages.
func TestC12_InstallDecision(t *testing.T) {
	p := NewPage()
	if p.Managed() {
		t.Fatal("managed before install")
	}
	wantErr(t, p.Install(Str("yes"), Undefined, Undefined), apierr.TypeError, "Chat virtualization setting must be a boolean")
	wantErr(t, p.Install(Bool(true), Str("s"), Undefined), apierr.TypeError, "Host ABI __TAURITAVERN__ must be an object")
	wantErr(t, p.Install(Bool(true), Object(""), Fn(1)), apierr.TypeError, "Host ABI __TAURITAVERN__.api must be an object")
	if p.installed {
		t.Fatal("a failed install recorded the decision")
	}
	if err := p.Install(Bool(true), Undefined, Undefined); err != nil || !p.Managed() {
		t.Fatal(err)
	}
	if err := p.Install(Bool(true), Object(""), Object("")); err != nil {
		t.Fatal(err)
	}
	wantErr(t, p.Install(Bool(false), Undefined, Undefined), apierr.PlainError, "Chat virtualization changed during this page lifetime: true -> false")
}

// C141: creation checks in order.
func TestC141_CreateHostChecks(t *testing.T) {
	p := NewPage()
	env := Env{}
	_, err := p.CreateHost(validOptions(), env)
	wantErr(t, err, apierr.PlainError, "ChatSurface API must be installed before creating the host")
	_ = p.Install(Bool(true), Undefined, Undefined)
	o := validOptions()
	o.Emit = Undefined
	_, err = p.CreateHost(o, env)
	wantErr(t, err, apierr.TypeError, "ChatSurface host requires root, getMessages, materialize, formatMessage and emit")
	o = validOptions()
	o.Managed = Str("true")
	_, err = p.CreateHost(o, env)
	wantErr(t, err, apierr.TypeError, "Chat virtualization setting must be a boolean")
	o.Managed = Bool(false)
	_, err = p.CreateHost(o, env)
	wantErr(t, err, apierr.PlainError, "ChatSurface host mode must match the installed ownership decision")
	for _, bad := range []Value{{Kind: jsvalue.Null}, Num(0), Num(2.5), Str("4"), Num(1e400 * 0)} {
		o = validOptions()
		o.RuntimeLimit = bad
		_, err = p.CreateHost(o, env)
		wantErr(t, err, apierr.TypeError, "RuntimeAdmission maxActive must be a positive integer") // S50
	}
	o = validOptions()
	o.SetTimeout = Num(1)
	_, err = p.CreateHost(o, env)
	wantErr(t, err, apierr.TypeError, "ChatSurface host option setTimeout must be a function")
	o = validOptions()
	o.HasResizeObserver = false
	_, err = p.CreateHost(o, env)
	wantErr(t, err, apierr.TypeError, "ChatSurface host requires ResizeObserver and MutationObserver")
}

func TestJSHelpers(t *testing.T) {
	for f, want := range map[float64]string{5: "5", 0.5: "0.5", 18600: "18600", 1e21: "1e+21", 1e-7: "1e-7",
		123456789012345680000: "123456789012345680000", -2.5: "-2.5", 0.000001: "0.000001", 1.5e300: "1.5e+300"} {
		if got := jsNumber(f); got != want {
			t.Errorf("jsNumber(%v) = %q, want %q", f, got, want)
		}
	}
	// C2: a computed length the adapter could not read as a number (NaN,
	// ±Infinity from parseFloat) counts as 0.
	d := &Doc{}
	r := d.b.read(readF64s, 6)
	var enc []uint16
	for _, f := range []float64{5, 800, 900, math.NaN(), math.Inf(1), 3} {
		x := math.Float64bits(f)
		enc = append(enc, uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48))
	}
	d.b.decode(enc, 0)
	if v := d.ViewOf(r); v.PadTop != 0 || v.PadBottom != 0 || v.Gap != 3 || v.H != 800 {
		t.Errorf("ViewOf = %+v", v)
	}
	if jsTrim("\ufeff a \u00a0") != "a" || jsTrim("\u0085a") != "\u0085a" {
		t.Error("jsTrim")
	}
}
