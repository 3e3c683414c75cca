//go:build js && wasm

package domjs

import (
	"strconv"
	"syscall/js"
	"testing"
	"time"

	"tavern-core/chatsurface"
)

// These tests run under Node with happy-dom preloaded (make test-domjs).

func newRoot(t *testing.T) (js.Value, func()) {
	t.Helper()
	doc := js.Global().Get("document")
	if doc.IsUndefined() {
		t.Skip("no DOM: run with the happy-dom preload (make test-domjs)")
	}
	root := doc.Call("createElement", "div")
	root.Set("id", "chat")
	doc.Get("body").Call("appendChild", root)
	return root, func() { root.Call("remove") }
}

func TestElementOperations(t *testing.T) {
	root, done := newRoot(t)
	defer done()
	d := New(root, true, Handlers{})
	defer d.Close()
	r := d.Adopt(root)
	mes := d.CreateElement("div")
	d.SetAttr(mes, "class", "mes")
	d.SetInnerHTML(mes, `<div class="mesIDDisplay"></div><div class="mes_text"><p>hi</p></div>`)
	if !d.IsElement(mes) || !d.Matches(mes, chatsurface.SelMes) || d.TagName(mes) != "div" {
		t.Fatal("created element is not a .mes div")
	}
	if d.Parent(mes) != 0 || d.IsConnected(mes) {
		t.Fatal("new element should be parentless and disconnected")
	}
	d.InsertBefore(r, mes, 0)
	if d.Parent(mes) != r || !d.IsConnected(mes) || !d.Contains(r, mes) || !d.Contains(mes, mes) {
		t.Fatal("insert did not connect the element under the root")
	}
	text := d.QueryFirst(mes, chatsurface.SelMesText)
	if text == 0 || d.InnerHTML(text) != "<p>hi</p>" {
		t.Fatalf("QueryFirst(.mes_text) = %d with %q", text, d.InnerHTML(text))
	}
	if d.QueryFirst(mes, chatsurface.SelShowMore) != 0 {
		t.Fatal("absent selector should give 0")
	}
	d.SetAttr(mes, "mesid", "7")
	if v, ok := d.Attr(mes, "mesid"); !ok || v != "7" {
		t.Fatalf("Attr = %q %v", v, ok)
	}
	if _, ok := d.Attr(mes, "nope"); ok {
		t.Fatal("absent attribute reported present")
	}
	d.SetClass(mes, "last_mes", true)
	if !js.Global().Get("document").Call("querySelector", ".mes.last_mes").Truthy() {
		t.Fatal("class not added")
	}
	d.SetClass(mes, "last_mes", false)
	if d.v(mes).Get("classList").Call("contains", "last_mes").Bool() {
		t.Fatal("class not removed")
	}
	staging := d.CloneShallow(text)
	if !d.Matches(staging, chatsurface.SelMesText) || d.InnerHTML(staging) != "" {
		t.Fatal("shallow clone should keep the class and drop children")
	}
	d.SetInnerHTML(staging, "<b>new</b>")
	d.MoveChildren(staging, text)
	if d.InnerHTML(text) != "<b>new</b>" || d.InnerHTML(staging) != "" {
		t.Fatalf("MoveChildren: %q / %q", d.InnerHTML(text), d.InnerHTML(staging))
	}
	disp := d.QueryFirst(mes, chatsurface.SelMesIDDisplay)
	d.SetText(disp, "#7")
	if d.v(disp).Get("textContent").String() != "#7" {
		t.Fatal("SetText")
	}
	d.SetInlineStyle(r, "overflow-anchor", "none")
	if d.InlineStyle(r, "overflow-anchor") != "none" {
		t.Fatalf("inline style = %q", d.InlineStyle(r, "overflow-anchor"))
	}
	d.SetInlineStyle(r, "overflow-anchor", "")
	if d.InlineStyle(r, "overflow-anchor") != "" {
		t.Fatal("empty value should remove the property")
	}
	if kids := d.Children(r); len(kids) != 1 || kids[0] != mes {
		t.Fatalf("Children = %v", kids)
	}
	_ = d.ComputedStyle(r, "padding-top") // happy-dom: "" or "0px"; the core parses either
	_ = d.Rect(mes)
	d.Remove(mes)
	if d.Parent(mes) != 0 {
		t.Fatal("Remove")
	}
}

// The id policy: held ids live until released; scratch ids until the end
// of the operation.
func TestScratchIDsAreReleasedAtTheEndOfTheOperation(t *testing.T) {
	root, done := newRoot(t)
	defer done()
	for i := 0; i < 5; i++ {
		c := js.Global().Get("document").Call("createElement", "div")
		c.Set("className", "style-pins")
		root.Call("appendChild", c)
	}
	d := New(root, true, Handlers{})
	defer d.Close()
	r := d.Adopt(root)
	base := d.Len()
	for round := 0; round < 3; round++ {
		d.Begin()
		kids := d.Children(r)
		if len(kids) != 5 {
			t.Fatalf("children = %d", len(kids))
		}
		again := d.Children(r)
		for i := range kids {
			if kids[i] != again[i] {
				t.Fatal("a node must keep its id within an operation")
			}
		}
		d.Release(kids[0]) // releasing a scratch id early is harmless
		if d.Value(kids[1]).IsNull() {
			t.Fatal("scratch id dropped before the end of the operation")
		}
		d.Keep(kids[2])
		d.End()
		if d.Len() != base+1 {
			t.Fatalf("round %d: %d ids after the operation, want %d", round, d.Len(), base+1)
		}
		d.Release(kids[2])
		if d.Len() != base {
			t.Fatalf("round %d: kept id not dropped on release", round)
		}
	}
	// Nested operations sweep only at the outermost End.
	d.Begin()
	d.Begin()
	k := d.Children(r)[0]
	d.End()
	if d.Value(k).IsNull() {
		t.Fatal("inner End swept")
	}
	d.End()
	if d.Len() != base {
		t.Fatal("outer End did not sweep")
	}
	// Holds count: two adoptions need two releases.
	n := d.Adopt(root.Get("firstElementChild"))
	if d.Adopt(root.Get("firstElementChild")) != n {
		t.Fatal("same node, different id")
	}
	d.Release(n)
	if d.Value(n).IsNull() {
		t.Fatal("dropped with a hold left")
	}
	d.Release(n)
	if d.Len() != base || d.Lookup(root.Get("firstElementChild")) != 0 {
		t.Fatal("id not dropped after the last release")
	}
	if d.Adopt(js.ValueOf(5)) != 0 || d.Adopt(js.Null()) != 0 {
		t.Fatal("non-nodes must get id 0")
	}
}

func TestObserversAndListenersReachTheHandlers(t *testing.T) {
	root, done := newRoot(t)
	defer done()
	var muts, scrolls, ends int
	d := New(root, true, Handlers{
		Mutation:  func() { muts++ },
		Scroll:    func() { scrolls++ },
		ScrollEnd: func() { ends++ },
	})
	defer d.Close()
	r := d.Adopt(root)
	d.Listen(r, true)
	doc := js.Global().Get("document")
	c := doc.Call("createElement", "div")
	root.Call("appendChild", c)
	ev := js.Global().Get("window").Get("Event") // happy-dom's, not Node's
	root.Call("dispatchEvent", ev.New("scroll"))
	root.Call("dispatchEvent", ev.New("scrollend"))
	time.Sleep(20 * time.Millisecond) // let the observer's microtask run
	if muts == 0 || scrolls != 1 || ends != 1 {
		t.Fatalf("mutations %d, scrolls %d, scrollends %d", muts, scrolls, ends)
	}
	// Changes deep inside a child (streaming content) do not wake the host.
	before := muts
	c.Set("innerHTML", "<p>deep</p>")
	time.Sleep(20 * time.Millisecond)
	if muts != before {
		t.Fatal("deep child-list change reached the handler")
	}
	c.Call("setAttribute", "mesid", "3")
	time.Sleep(20 * time.Millisecond)
	if muts == before {
		t.Fatal("mesid attribute change did not reach the handler")
	}
	d.Listen(r, false)
	before = muts
	root.Call("appendChild", doc.Call("createElement", "div"))
	root.Call("dispatchEvent", ev.New("scroll"))
	time.Sleep(20 * time.Millisecond)
	if muts != before || scrolls != 1 {
		t.Fatal("handlers called after Listen(false)")
	}
}

// ---- the core over the real adapter ----

type testJS struct {
	d    *DOM
	chat []chatsurface.MessageID
	sig  chatsurface.Signal
	sigs map[chatsurface.Signal]bool
}

func (j *testJS) PrepareContent(chatsurface.Ref, int, chatsurface.Node, chatsurface.ClaimsID) (chatsurface.Return, *chatsurface.JSValue) {
	return chatsurface.Return{}, nil
}
func (j *testJS) Connected(chatsurface.Ref, int, chatsurface.Node, chatsurface.Node, chatsurface.Signal) (chatsurface.Return, *chatsurface.JSValue) {
	return chatsurface.Return{}, nil
}
func (j *testJS) Activate(chatsurface.Ref, chatsurface.Node, int, chatsurface.Node, chatsurface.Node, chatsurface.Signal) (chatsurface.Return, *chatsurface.JSValue) {
	return chatsurface.Return{}, nil
}
func (j *testJS) Dispose(chatsurface.Ref) (chatsurface.Return, *chatsurface.JSValue) {
	return chatsurface.Return{}, nil
}
func (j *testJS) Release(chatsurface.Ref) {}
func (j *testJS) Messages() chatsurface.Pass {
	return chatsurface.Pass{IDs: append([]chatsurface.MessageID(nil), j.chat...), Bad: -1}
}
func (j *testJS) MessageAt(i int) (chatsurface.MessageID, *chatsurface.JSValue) {
	if i < 0 || i >= len(j.chat) {
		return 0, nil
	}
	return j.chat[i], nil
}
func (j *testJS) Count() (int, *chatsurface.JSValue) { return len(j.chat), nil }
func (j *testJS) Materialize(id chatsurface.MessageID, mesid int) (chatsurface.Node, *chatsurface.JSValue) {
	el := js.Global().Get("document").Call("createElement", "div")
	el.Set("className", "mes")
	el.Set("innerHTML", `<div class="mesIDDisplay"></div><div class="mes_text"><p>m`+strconv.Itoa(int(id))+`</p></div>`)
	return j.d.Adopt(el), nil
}
func (j *testJS) FormatMessage(id chatsurface.MessageID, _ int) (string, *chatsurface.JSValue) {
	return "<p>m" + strconv.Itoa(int(id)) + "</p>", nil
}
func (j *testJS) NewSignal() chatsurface.Signal    { j.sig++; j.sigs[j.sig] = true; return j.sig }
func (j *testJS) Abort(chatsurface.Signal, string) {}
func (j *testJS) ReleaseSignal(s chatsurface.Signal) {
	delete(j.sigs, s)
}
func (j *testJS) OnFault(error) {}

type nopSched struct{ n int }

func (s *nopSched) RequestFrame() (int, *chatsurface.JSValue) { s.n++; return s.n, nil }
func (s *nopSched) CancelFrame(int) *chatsurface.JSValue      { return nil }
func (s *nopSched) SetTimeout(float64) (int, *chatsurface.JSValue) {
	s.n++
	return s.n, nil
}
func (s *nopSched) ClearTimeout(int) *chatsurface.JSValue { return nil }

// Node ids stay flat: render, update and shrink a static chat many times
// and the table holds only the root plus the mounted roots and contents.
func TestHostOverAdapterKeepsIDsFlat(t *testing.T) {
	root, done := newRoot(t)
	defer done()
	page := chatsurface.NewPage()
	if err := page.Install(chatsurface.Bool(false), chatsurface.Undefined, chatsurface.Undefined); err != nil {
		t.Fatal(err)
	}
	d := New(root, false, Handlers{})
	defer d.Close()
	j := &testJS{d: d, sigs: map[chatsurface.Signal]bool{}}
	r := d.Adopt(root)
	f := chatsurface.Fn(1)
	host, err := page.CreateHost(chatsurface.HostOptions{Root: chatsurface.Object("[object HTMLDivElement]"),
		GetMessages: f, Materialize: f, FormatMessage: f, Emit: f, HasMutationObserver: true},
		chatsurface.Env{DOM: d, JS: j, Sched: &nopSched{}, Root: r})
	if err != nil {
		t.Fatal(err)
	}
	op := func(f func() error) {
		t.Helper()
		d.Begin()
		defer d.End()
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	next := chatsurface.MessageID(0)
	for round := 0; round < 5; round++ {
		for i := 0; i < 20; i++ {
			next++
			j.chat = append(j.chat, next)
		}
		op(func() error { return host.Render(chatsurface.RenderOptions{}) })
		if got, want := d.Len(), 1+2*len(j.chat); got != want {
			t.Fatalf("round %d after render: %d ids, want %d", round, got, want)
		}
		op(func() error { _, err := host.UpdateContent(chatsurface.Num(3), false); return err })
		j.chat = j.chat[5:] // shift: every mesid moves, so every root is remounted
		op(func() error { return host.Render(chatsurface.RenderOptions{}) })
		if got, want := d.Len(), 1+2*len(j.chat); got != want {
			t.Fatalf("round %d after shift: %d ids, want %d", round, got, want)
		}
		if n := root.Get("children").Length(); n != len(j.chat) {
			t.Fatalf("%d roots in the DOM, want %d", n, len(j.chat))
		}
	}
	op(host.ResetEpoch)
	if d.Len() != 1 || root.Get("children").Length() != 0 {
		t.Fatalf("after reset: %d ids, %d children", d.Len(), root.Get("children").Length())
	}
	if len(j.sigs) > 0 {
		// Leases of a reset epoch are closed, so the core released their signals.
		t.Fatalf("%d signals still held", len(j.sigs))
	}
	op(host.Dispose)
}
