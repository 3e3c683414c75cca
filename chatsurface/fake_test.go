package chatsurface

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"tavern-core/apierr"
)

// ---- fake DOM ----

type fnode struct {
	id      Node
	tag     string // "" for a text node
	text    string
	attrs   map[string]string
	order   []string // attribute order, for stable serialisation
	classes []string
	style   map[string]string
	parent  *fnode
	kids    []*fnode
	size    float64 // .mes border-box height
}

type fakeDOM struct {
	nodes    map[Node]*fnode
	next     Node
	doc      *fnode // document: connected nodes descend from it
	rects    map[Node]Rect
	scroll   float64
	height   float64 // root clientHeight
	farNoise float64 // added to the bottom of a root's rect over 100,000 px from the viewport
	pad, gap float64
	root     *fnode
	log      []string // structural DOM writes
	listen   int
	observed map[Node]bool
	batches  int            // Apply calls: crossings in production
	clones   int            // DomClone ops (C51 step 2's staging and round trips)
	released map[Node]int   // ids the core released
	ops      map[uint16]int // op codes applied, by code
	// Mutation tracking for DomReadChildrenChanged, as the applier's
	// observers do: mut counts every change (a superset of what they see),
	// seen is mut at the end of the last batch, dirty is sticky until a read
	// answers "changed".
	mut, seen int
	dirty     bool
}

func newFakeDOM() *fakeDOM {
	d := &fakeDOM{nodes: map[Node]*fnode{}, rects: map[Node]Rect{}, height: 1000, observed: map[Node]bool{}, released: map[Node]int{}, ops: map[uint16]int{}}
	d.doc = d.mk("body")
	d.root = d.mk("div")
	d.root.attrs["id"] = "chat"
	d.appendChild(d.doc, d.root)
	return d
}

func (d *fakeDOM) mk(tag string) *fnode {
	d.next++
	n := &fnode{id: d.next, tag: tag, attrs: map[string]string{}, style: map[string]string{}}
	d.nodes[n.id] = n
	return n
}

func (d *fakeDOM) n(id Node) *fnode {
	n := d.nodes[id]
	if n == nil {
		panic("fake DOM: unknown node " + strconv.Itoa(int(id)))
	}
	return n
}

func (d *fakeDOM) detach(n *fnode) {
	if p := n.parent; p != nil {
		d.mut++
		for i, k := range p.kids {
			if k == n {
				p.kids = append(p.kids[:i], p.kids[i+1:]...)
				break
			}
		}
		n.parent = nil
	}
}

func (d *fakeDOM) appendChild(p, n *fnode) {
	d.detach(n)
	d.mut++
	n.parent = p
	p.kids = append(p.kids, n)
}

// html parses the tiny HTML subset the tests use: <tag class="a b" k="v">…</tag> and text.
func (d *fakeDOM) html(s string) []*fnode {
	var out []*fnode
	for len(s) > 0 {
		if s[0] != '<' {
			i := strings.IndexByte(s, '<')
			if i < 0 {
				i = len(s)
			}
			t := d.mk("")
			t.text = s[:i]
			out = append(out, t)
			s = s[i:]
			continue
		}
		end := strings.IndexByte(s, '>')
		head := s[1:end]
		s = s[end+1:]
		parts := strings.Fields(head)
		n := d.mk(parts[0])
		for _, a := range parts[1:] {
			kv := strings.SplitN(a, "=", 2)
			v := ""
			if len(kv) == 2 {
				v = strings.Trim(kv[1], `"`)
			}
			d.setAttr(n, kv[0], v)
		}
		closeTag := "</" + parts[0] + ">"
		depth, i := 0, 0
		for ; i < len(s); i++ {
			if rest := s[i:]; strings.HasPrefix(rest, "<"+parts[0]) && len(rest) > len(parts[0])+1 &&
				(rest[len(parts[0])+1] == '>' || rest[len(parts[0])+1] == ' ') {
				depth++
			} else if strings.HasPrefix(s[i:], closeTag) {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		for _, k := range d.html(s[:i]) {
			d.appendChild(n, k)
		}
		s = s[min(len(s), i+len(closeTag)):]
		out = append(out, n)
	}
	return out
}

func (d *fakeDOM) serialize(n *fnode) string {
	if n.tag == "" {
		return n.text
	}
	var b strings.Builder
	b.WriteString("<" + n.tag)
	for _, k := range n.order {
		if v, ok := d.getAttr(n, k); ok {
			b.WriteString(" " + k + `="` + v + `"`)
		}
	}
	b.WriteString(">")
	for _, k := range n.kids {
		b.WriteString(d.serialize(k))
	}
	b.WriteString("</" + n.tag + ">")
	return b.String()
}

func (d *fakeDOM) getAttr(n *fnode, k string) (string, bool) {
	if k == "class" {
		if len(n.classes) == 0 {
			return "", false
		}
		return strings.Join(n.classes, " "), true
	}
	v, ok := n.attrs[k]
	return v, ok
}

func (d *fakeDOM) setAttr(n *fnode, k, v string) {
	d.mut++
	if _, ok := d.getAttr(n, k); !ok {
		n.order = append(n.order, k)
	}
	if k == "class" {
		n.classes = strings.Fields(v)
		return
	}
	n.attrs[k] = v
}

func (d *fakeDOM) matches(n *fnode, s Selector) bool {
	if n.tag == "" {
		return false
	}
	has := func(c string) bool {
		for _, x := range n.classes {
			if x == c {
				return true
			}
		}
		return false
	}
	switch s {
	case SelMes:
		return has("mes")
	case SelMesText:
		return has("mes_text")
	case SelMesIDDisplay:
		return has("mesIDDisplay")
	case SelShowMore:
		return n.attrs["id"] == "show_more_messages"
	case SelStylePins:
		return has("style-pins")
	case SelSpacer:
		return n.tag == "tt-chat-spacer"
	}
	return false
}

func (d *fakeDOM) first(n *fnode, s Selector) *fnode {
	for _, k := range n.kids {
		if d.matches(k, s) {
			return k
		}
		if f := d.first(k, s); f != nil {
			return f
		}
	}
	return nil
}

func idOf(n *fnode) Node {
	if n == nil {
		return 0
	}
	return n.id
}

func (d *fakeDOM) IsElement(n Node) bool { x := d.nodes[n]; return x != nil && x.tag != "" }
func (d *fakeDOM) Parent(n Node) Node    { return idOf(d.n(n).parent) }
func (d *fakeDOM) Children(n Node) []Node {
	var out []Node
	for _, k := range d.n(n).kids {
		if k.tag != "" {
			out = append(out, k.id)
		}
	}
	return out
}
func (d *fakeDOM) IsConnected(n Node) bool {
	for x := d.n(n); x != nil; x = x.parent {
		if x == d.doc {
			return true
		}
	}
	return false
}
func (d *fakeDOM) Contains(a, b Node) bool {
	for x := d.n(b); x != nil; x = x.parent {
		if x.id == a {
			return true
		}
	}
	return false
}
func (d *fakeDOM) Matches(n Node, s Selector) bool      { return d.matches(d.n(n), s) }
func (d *fakeDOM) QueryFirst(n Node, s Selector) Node   { return idOf(d.first(d.n(n), s)) }
func (d *fakeDOM) TagName(n Node) string                { return d.n(n).tag }
func (d *fakeDOM) Attr(n Node, k string) (string, bool) { return d.getAttr(d.n(n), k) }
func (d *fakeDOM) SetAttr(n Node, k, v string)          { d.setAttr(d.n(n), k, v) }
func (d *fakeDOM) RemoveAttr(n Node, k string) {
	d.mut++
	x := d.n(n)
	if k == "class" {
		x.classes = nil
	}
	delete(x.attrs, k)
}
func (d *fakeDOM) SetClass(n Node, c string, on bool) {
	d.mut++
	x := d.n(n)
	var out []string
	for _, k := range x.classes {
		if k != c {
			out = append(out, k)
		}
	}
	if on {
		out = append(out, c)
		if _, ok := d.getAttr(x, "class"); !ok {
			x.order = append(x.order, "class")
		}
	}
	x.classes = out
}
func (d *fakeDOM) CreateElement(tag string) Node { return d.mk(tag).id }
func (d *fakeDOM) CloneShallow(n Node) Node {
	x := d.n(n)
	c := d.mk(x.tag)
	for _, k := range x.order {
		if v, ok := d.getAttr(x, k); ok {
			d.setAttr(c, k, v)
		}
	}
	return c.id
}
func (d *fakeDOM) InsertBefore(p, n, ref Node) {
	pp, nn := d.n(p), d.n(n)
	d.detach(nn)
	d.mut++
	nn.parent = pp
	i := len(pp.kids)
	if ref != 0 {
		for j, k := range pp.kids {
			if k.id == ref {
				i = j
			}
		}
	}
	pp.kids = append(pp.kids[:i], append([]*fnode{nn}, pp.kids[i:]...)...)
	d.log = append(d.log, "insert:"+strconv.Itoa(int(n)))
}
func (d *fakeDOM) Remove(n Node) {
	d.detach(d.n(n))
	d.log = append(d.log, "remove:"+strconv.Itoa(int(n)))
}
func (d *fakeDOM) InnerHTML(n Node) string {
	var b strings.Builder
	for _, k := range d.n(n).kids {
		b.WriteString(d.serialize(k))
	}
	return b.String()
}
func (d *fakeDOM) SetInnerHTML(n Node, s string) {
	x := d.n(n)
	for _, k := range append([]*fnode(nil), x.kids...) {
		d.detach(k)
	}
	for _, k := range d.html(s) {
		d.appendChild(x, k)
	}
}
func (d *fakeDOM) MoveChildren(from, to Node) {
	f, t := d.n(from), d.n(to)
	for _, k := range append([]*fnode(nil), t.kids...) {
		d.detach(k)
	}
	for _, k := range append([]*fnode(nil), f.kids...) {
		d.appendChild(t, k)
	}
}
func (d *fakeDOM) SetText(n Node, s string) {
	x := d.n(n)
	for _, k := range append([]*fnode(nil), x.kids...) {
		d.detach(k)
	}
	t := d.mk("")
	t.text = s
	d.appendChild(x, t)
}
func (d *fakeDOM) InlineStyle(n Node, p string) string { return d.n(n).style[p] }
func (d *fakeDOM) SetInlineStyle(n Node, p, v string) {
	if v == "" {
		delete(d.n(n).style, p)
	} else {
		d.n(n).style[p] = v
	}
}

func (d *fakeDOM) heightOf(n *fnode) float64 {
	if n.tag == "tt-chat-spacer" {
		return finite(parseLength(n.style["height"]))
	}
	if d.matches(n, SelMes) {
		return n.size
	}
	return 0
}

// layoutTop is the content-box offset of each root child (block flow with gap).
func (d *fakeDOM) scrollHeight() float64 {
	y := d.pad
	for i, k := range d.root.kids {
		if k.tag == "" {
			continue
		}
		if i > 0 {
			y += d.gap
		}
		y += d.heightOf(k)
	}
	return y + d.pad
}

func (d *fakeDOM) Rect(n Node) Rect {
	if r, ok := d.rects[n]; ok {
		return r
	}
	x := d.n(n)
	if x == d.root {
		return Rect{0, d.height}
	}
	if x.parent == d.root {
		y := d.pad
		first := true
		for _, k := range d.root.kids {
			if k.tag == "" {
				continue
			}
			if !first {
				y += d.gap
			}
			first = false
			if k == x {
				top, bottom := y-d.scroll, y+d.heightOf(k)-d.scroll
				if d.farNoise != 0 && math.Abs(top) > 100000 {
					bottom += d.farNoise // Chromium's single-precision rects far from the viewport
				}
				return Rect{top, bottom}
			}
			y += d.heightOf(k)
		}
	}
	if x.parent != nil {
		return d.Rect(x.parent.id)
	}
	return Rect{}
}
func (d *fakeDOM) ClientHeight(Node) float64 { return d.height }
func (d *fakeDOM) ScrollHeight(Node) float64 { return d.scrollHeight() }
func (d *fakeDOM) ScrollTop(Node) float64    { return d.scroll }
func (d *fakeDOM) SetScrollTop(_ Node, v float64) {
	d.scroll = max(0, min(v, d.scrollHeight()-d.height))
}
func (d *fakeDOM) ComputedStyle(n Node, p string) string {
	if d.n(n) == d.root {
		switch p {
		case "padding-top", "padding-bottom":
			return jsNumber(d.pad) + "px"
		case "row-gap":
			if d.gap == 0 {
				return "normal"
			}
			return jsNumber(d.gap) + "px"
		}
	}
	return "0px"
}
func (d *fakeDOM) ObserveSize(n Node, on bool) { d.observed[n] = on }
func (d *fakeDOM) Listen(_ Node, on bool) {
	if on {
		d.listen++
	} else {
		d.listen--
	}
}

// text is the text content of a node.
func (d *fakeDOM) textOf(n Node) string {
	var b strings.Builder
	var walk func(x *fnode)
	walk = func(x *fnode) {
		if x.tag == "" {
			b.WriteString(x.text)
		}
		for _, k := range x.kids {
			walk(k)
		}
	}
	walk(d.n(n))
	return b.String()
}

// ---- fake JS ----

type call struct {
	hook          Ref
	mesid         int
	content, elem Node
	source        Node
	signal        Signal
	claims        ClaimsID
}

type hookFn func(c call) (Return, *JSValue)

type fsignal struct {
	aborted bool
	reason  string
	// A request's: its message object and version (C121), and a newer
	// read VersionChanged made, for AdoptVersion.
	msg       MessageID
	ver, next string
}

type fmsg struct {
	id  MessageID
	mes string
}

type fakeJS struct {
	t        *testing.T
	dom      *fakeDOM
	fns      map[Ref]hookFn
	disp     map[Ref]func() (Return, *JSValue)
	vals     map[Ref]any
	next     Ref
	sigs     map[Signal]*fsignal
	nextSig  Signal
	chat     []*fmsg
	nextMsg  MessageID
	size     func(mesid int) float64
	mat      int // materialize calls
	faults   []error
	released int
	format   func(m *fmsg) string // formatMessage override; nil is <p>mes</p>
	length   float64              // a claimed chat[].length over MaxMessages
	// onMaterialize runs inside materialize (a host that calls back in);
	// materialize, when set, makes the root instead of the default.
	onMaterialize func()
	materialize   func(id MessageID, mesid int) *fnode
	pc            fakeProcs // content processors (processor_test.go)
}

func newFakeJS(t *testing.T, d *fakeDOM) *fakeJS {
	return &fakeJS{t: t, dom: d, fns: map[Ref]hookFn{}, disp: map[Ref]func() (Return, *JSValue){},
		vals: map[Ref]any{}, sigs: map[Signal]*fsignal{}, size: func(int) float64 { return 100 }}
}

func (j *fakeJS) ref() Ref { j.next++; return j.next }

func (j *fakeJS) fn(f hookFn) Ref { r := j.ref(); j.fns[r] = f; return r }

// throw registers a thrown JS value; an error-like value is its own error value.
func (j *fakeJS) throw(v any) *JSValue {
	r := j.ref()
	j.vals[r] = v
	if _, ok := v.(error); ok {
		return &JSValue{Ref: r, ErrorRef: r}
	}
	e := j.ref()
	j.vals[e] = "Error(" + toString(v) + ")"
	return &JSValue{Ref: r, ErrorRef: e}
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	}
	return "?"
}

// disposer registers a Go func as a JS cleanup function.
func (j *fakeJS) disposer(f func()) Return {
	r := j.ref()
	j.disp[r] = func() (Return, *JSValue) { f(); return Return{}, nil }
	return Return{Kind: KindFunction, Ref: r}
}

func (j *fakeJS) disposerRet(f func() (Return, *JSValue)) Return {
	r := j.ref()
	j.disp[r] = f
	return Return{Kind: KindFunction, Ref: r}
}

func (j *fakeJS) PrepareContent(h Ref, m int, c Node, cl ClaimsID) (Return, *JSValue) {
	return j.fns[h](call{hook: h, mesid: m, content: c, claims: cl})
}
func (j *fakeJS) Connected(h Ref, m int, e, c Node, s Signal) (Return, *JSValue) {
	return j.fns[h](call{hook: h, mesid: m, elem: e, content: c, signal: s})
}
func (j *fakeJS) Activate(f Ref, src Node, m int, e, c Node, s Signal) (Return, *JSValue) {
	return j.fns[f](call{hook: f, source: src, mesid: m, elem: e, content: c, signal: s})
}
func (j *fakeJS) Dispose(d Ref) (Return, *JSValue) { return j.disp[d]() }
func (j *fakeJS) Release(Ref)                      { j.released++ }
func (j *fakeJS) Messages(room []MessageID) Pass {
	if j.length > MaxMessages {
		return Pass{Bad: -1, Length: j.length}
	}
	ids := room[:0]
	if cap(ids) < len(j.chat) {
		ids = make([]MessageID, len(j.chat))
	}
	ids = ids[:len(j.chat)]
	for i, m := range j.chat {
		if m == nil {
			return Pass{Bad: i}
		}
		ids[i] = m.id
	}
	return Pass{IDs: ids, Bad: -1}
}
func (j *fakeJS) MessageAt(i int) (MessageID, *JSValue) {
	if i < 0 || i >= len(j.chat) || j.chat[i] == nil {
		return 0, nil
	}
	return j.chat[i].id, nil
}
func (j *fakeJS) Count() (int, *JSValue) { return len(j.chat), nil }
func (j *fakeJS) msg(id MessageID) *fmsg {
	for _, m := range j.chat {
		if m != nil && m.id == id {
			return m
		}
	}
	j.t.Fatalf("message %d not in chat", id)
	return nil
}
func (j *fakeJS) Materialize(id MessageID, mesid int, html bool) (Materialized, *JSValue) {
	j.mat++
	if j.onMaterialize != nil {
		j.onMaterialize()
	}
	var n *fnode
	if j.materialize != nil {
		n = j.materialize(id, mesid)
	} else {
		m := j.msg(id)
		n = j.dom.html(`<div class="mes"><div class="mes_text">` + j.formatted(m) + `</div></div>`)[0]
		n.size = j.size(mesid)
	}
	return j.dom.describe(n, html), nil
}

// describe is what the bridge reports about a materialize result.
func (d *fakeDOM) describe(n *fnode, html bool) Materialized {
	if n == nil || n.tag == "" {
		return Materialized{}
	}
	x := Materialized{Root: n.id, Mes: d.matches(n, SelMes), Parentless: n.parent == nil}
	if c := d.first(n, SelMesText); c != nil {
		x.Content, x.ContentParent = c.id, idOf(c.parent)
		if html {
			x.HTML = d.InnerHTML(c.id)
		}
	}
	return x
}
func (j *fakeJS) FormatMessage(id MessageID, _ int) (string, *JSValue) {
	return j.formatted(j.msg(id)), nil
}

func (j *fakeJS) formatted(m *fmsg) string {
	if j.format != nil {
		return j.format(m)
	}
	return "<p>" + m.mes + "</p>"
}
func (j *fakeJS) NewSignal() Signal { j.nextSig++; j.sigs[j.nextSig] = &fsignal{}; return j.nextSig }
func (j *fakeJS) Abort(s Signal, r string) {
	if !j.sigs[s].aborted {
		j.sigs[s].aborted, j.sigs[s].reason = true, r
	}
}
func (j *fakeJS) ReleaseSignal(Signal) {}
func (j *fakeJS) OnFault(f error)      { j.faults = append(j.faults, f) }

func (j *fakeJS) push(mes ...string) {
	for _, s := range mes {
		j.nextMsg++
		j.chat = append(j.chat, &fmsg{id: j.nextMsg, mes: s})
	}
}

// ---- fake scheduler ----

type fakeSched struct {
	next       int
	frames     []int
	timers     map[int]float64
	h          *Host
	fail       func() *JSValue // the host's scheduler throws this
	failCancel func() *JSValue // the host's cancel functions throw this
}

func (s *fakeSched) RequestFrame() (int, *JSValue) {
	if s.fail != nil {
		return 0, s.fail()
	}
	s.next++
	s.frames = append(s.frames, s.next)
	return s.next, nil
}
func (s *fakeSched) CancelFrame(id int) *JSValue {
	if s.failCancel != nil {
		return s.failCancel()
	}
	for i, f := range s.frames {
		if f == id {
			s.frames = append(s.frames[:i], s.frames[i+1:]...)
			break
		}
	}
	return nil
}
func (s *fakeSched) SetTimeout(ms float64) (int, *JSValue) {
	if s.fail != nil {
		return 0, s.fail()
	}
	s.next++
	if s.timers == nil {
		s.timers = map[int]float64{}
	}
	s.timers[s.next] = ms
	return s.next, nil
}
func (s *fakeSched) ClearTimeout(id int) *JSValue {
	if s.failCancel != nil {
		return s.failCancel()
	}
	delete(s.timers, id)
	return nil
}

// frame runs the frames pending now (one animation frame).
func (s *fakeSched) frame() {
	now := s.frames
	s.frames = nil
	for _, id := range now {
		s.h.Frame(id)
	}
}

// flush runs frames until none is pending.
func (s *fakeSched) flush() {
	for i := 0; len(s.frames) > 0; i++ {
		if i > 10000 {
			panic("frames never settle")
		}
		s.frame()
	}
}

// fireTimers fires every pending timer.
func (s *fakeSched) fireTimers() {
	for id := range s.timers {
		delete(s.timers, id)
		s.h.Timer(id)
	}
}

// ---- harness ----

type harness struct {
	t    *testing.T
	dom  *fakeDOM
	js   *fakeJS
	sch  *fakeSched
	page *Page
	host *Host
	log  []string
}

func newHarness(t *testing.T, managed bool) *harness {
	d := newFakeDOM()
	h := &harness{t: t, dom: d, js: newFakeJS(t, d), sch: &fakeSched{}, page: NewPage()}
	if err := h.page.Install(Bool(managed), Undefined, Undefined); err != nil {
		t.Fatal(err)
	}
	return h
}

func validOptions() HostOptions {
	f := Fn(1)
	return HostOptions{Root: Object("[object HTMLDivElement]"), GetMessages: f, Materialize: f, FormatMessage: f, Emit: f,
		HasMutationObserver: true, HasResizeObserver: true}
}

func (h *harness) create(opts ...func(*HostOptions)) *Host {
	o := validOptions()
	for _, f := range opts {
		f(&o)
	}
	host, err := h.page.CreateHost(o, Env{DOM: h.dom, JS: h.js, Sched: h.sch, Root: h.dom.root.id})
	if err != nil {
		h.t.Fatal(err)
	}
	h.host, h.sch.h = host, host
	return host
}

// hooks is a participant description for tests; nil hooks are absent.
type hooks struct {
	prepare, mount, content hookFn
}

type fakeDef struct {
	v    Value
	keys []string
	vals map[string]Value
	get  func(name string) *JSValue
	// keysThrow is what Object.keys(definition) throws, if anything.
	keysThrow *JSValue
}

func (f fakeDef) Value() Value { return f.v }
func (f fakeDef) OwnKeys() ([]string, *JSValue) {
	if f.keysThrow != nil { // a Proxy's ownKeys trap that throws
		return nil, f.keysThrow
	}
	return f.keys, nil
}
func (f fakeDef) Get(name string, str bool) (Value, *JSValue) {
	if f.get != nil {
		if t := f.get(name); t != nil {
			return Value{}, t
		}
	}
	return f.vals[name], nil
}

// def builds a definition with the given fields in key order.
func def(kv ...any) fakeDef {
	d := fakeDef{v: Object("[object Object]"), vals: map[string]Value{}}
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		d.keys = append(d.keys, k)
		d.vals[k] = kv[i+1].(Value)
	}
	return d
}

// participant registers id with the hooks, logging "<id>.<hook>:<mesid>".
func (h *harness) participant(id string, hk hooks) int {
	h.t.Helper()
	kv := []any{"id", Str(id), "protocolVersion", Num(1)}
	wrap := func(name string, f hookFn) Value {
		return Fn(h.js.fn(func(c call) (Return, *JSValue) {
			h.log = append(h.log, id+"."+name+":"+strconv.Itoa(c.mesid))
			if f == nil {
				return Return{}, nil
			}
			return f(c)
		}))
	}
	if hk.prepare != nil {
		kv = append(kv, "prepareContent", wrap("prepare", hk.prepare))
	}
	if hk.mount != nil {
		kv = append(kv, "didMount", wrap("mount", hk.mount))
	}
	if hk.content != nil {
		kv = append(kv, "didCommitContent", wrap("content", hk.content))
	}
	i, err := h.page.Registry.Register(def(kv...))
	if err != nil {
		h.t.Fatal(err)
	}
	return i
}

func nop(call) (Return, *JSValue) { return Return{}, nil }

func (h *harness) mounted() []int { return h.host.Snapshot().Mounted }

func wantErr(t *testing.T, err error, class apierr.Class, msg string) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("got %T %v, want class %d %q", err, err, class, msg)
	}
	if e.Class != class || e.Message != msg {
		t.Fatalf("got class %d %q, want %d %q", e.Class, e.Message, class, msg)
	}
	return e
}

func wantLog(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("log:\n got  %s\n want %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}

func ints(xs ...int) []int { return xs }
