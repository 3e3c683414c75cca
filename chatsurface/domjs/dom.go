//go:build js && wasm

// Package domjs implements chatsurface.DOM on honnef.co/go/js/dom/v2 (C2).
//
// # Node ids and memory
//
// The core names DOM nodes by small integers. An id maps to its JS node here
// and, for the reverse direction (a node JS hands back, a ResizeObserver
// entry), through a JS Map from node to id. Both entries go away when the id
// is dropped, so memory stays flat over long sessions.
//
// The core keeps some nodes (roots, contents, spacers, claimed sources) and
// only glances at others (a parent compared with the root, the children of
// the root, a .mesIDDisplay). The policy:
//
//   - Held ids: CreateElement, CloneShallow, Adopt (nodes the bridge hands to
//     the core: materialize results, claimed sources, the surface root) and
//     Keep (a queried node the core stores) each take one hold; Release drops
//     one. An id with no hold left is dropped at once.
//   - Scratch ids: Parent, Children and QueryFirst name a node that has no id
//     yet with a scratch id. Scratch ids live until the end of the current
//     operation (End at depth 0, or Sweep); then every id without a hold is
//     dropped. Release on a scratch id does nothing, so a core that releases a
//     glanced-at node early or never is equally fine.
//
// Operations are bracketed by Begin/End; the bridge does that around every
// entry into the core (host operations, frames, timers, observer callbacks).
package domjs

import (
	"math"
	"strconv"
	"syscall/js"
	"unicode/utf16"

	"honnef.co/go/js/dom/v2"

	"tavern-core/bridge"
	"tavern-core/chatsurface"
)

type entry struct {
	el    *dom.BasicHTMLElement
	holds int32
}

// Handlers receive the root's notifications (C79, C85, C88, C101). The bridge
// sets them to the host's OnScroll, OnScrollEnd, OnResize and OnMutation.
type Handlers struct {
	Scroll, ScrollEnd, Mutation func()
	Resize                      func(roots []chatsurface.Node)
}

// DOM is one host's adapter: its node table, listeners and observers.
type DOM struct {
	nodes   map[chatsurface.Node]*entry
	ids     js.Value // Map: node → id
	next    chatsurface.Node
	scratch []chatsurface.Node
	depth   int
	doc     js.Value

	h                  Handlers
	resize             js.Value    // ResizeObserver (undefined when absent)
	mutation           [2]js.Value // child list of the root; mesid attributes below it
	fns                []js.Func
	onScroll, onEnd    js.Func
	listening, managed bool

	// JS strings for selectors and names the core passes again and again:
	// made once, so a call does not create (and finalize) a new one.
	sels [256]js.Value
	strs map[string]js.Value
}

// maxStrs bounds the name cache; names beyond it are made per call.
const maxStrs = 64

func (d *DOM) sel(s chatsurface.Selector) js.Value {
	v := d.sels[s]
	if v.Type() != js.TypeString {
		v = js.ValueOf(s.String())
		d.sels[s] = v
	}
	return v
}

func (d *DOM) str(s string) js.Value {
	if v, ok := d.strs[s]; ok {
		return v
	}
	v := js.ValueOf(s)
	if len(d.strs) < maxStrs {
		d.strs[s] = v
	}
	return v
}

// New creates the adapter for a surface root. The observers are built from
// globalThis.ResizeObserver (managed mode only) and
// globalThis.MutationObserver as they are now (C2, C141).
func New(root js.Value, managed bool, h Handlers) *DOM {
	d := &DOM{nodes: map[chatsurface.Node]*entry{}, strs: map[string]js.Value{}, ids: js.Global().Get("Map").New(), h: h, managed: managed}
	if root.Type() == js.TypeObject {
		d.doc = root.Get("ownerDocument")
	}
	if d.doc.Type() != js.TypeObject {
		d.doc = js.Global().Get("document")
	}
	g := js.Global()
	if ro := g.Get("ResizeObserver"); managed && ro.Type() == js.TypeFunction {
		f := d.fn(func(args []js.Value) {
			entries := args[0]
			n := entries.Length()
			var roots []chatsurface.Node
			for i := 0; i < n; i++ {
				if id := d.Lookup(entries.Index(i).Get("target")); id != 0 {
					roots = append(roots, id)
				}
			}
			if len(roots) > 0 && d.h.Resize != nil {
				d.h.Resize(roots)
			}
		})
		d.resize = ro.New(f)
	}
	if mo := g.Get("MutationObserver"); mo.Type() == js.TypeFunction {
		f := d.fn(func(args []js.Value) {
			if d.h.Mutation != nil {
				d.h.Mutation()
			}
		})
		// Two observers, so that the child list is watched on the root only
		// while mesid attributes are watched below it: content changes inside
		// messages (streaming) never wake the host.
		d.mutation = [2]js.Value{mo.New(f), mo.New(f)}
	}
	d.onScroll = d.fn(func([]js.Value) {
		if d.h.Scroll != nil {
			d.h.Scroll()
		}
	})
	d.onEnd = d.fn(func([]js.Value) {
		if d.h.ScrollEnd != nil {
			d.h.ScrollEnd()
		}
	})
	return d
}

// fn makes a listener or observer callback: contained (bridge.FuncOf), so a
// failure under a notification never ends the Go program.
func (d *DOM) fn(f func(args []js.Value)) js.Func {
	jf := bridge.FuncOf(func(_ js.Value, args []js.Value) any { f(args); return nil }, nil)
	d.fns = append(d.fns, jf)
	return jf
}

// Close stops listening and observing and drops every id; the adapter must
// not be used afterwards.
func (d *DOM) Close() {
	if d.resize.Truthy() {
		d.resize.Call("disconnect")
	}
	for _, m := range d.mutation {
		if m.Truthy() {
			m.Call("disconnect")
		}
	}
	for _, f := range d.fns {
		f.Release()
	}
	d.fns = nil
	d.h = Handlers{}
	clear(d.nodes)
	d.ids.Call("clear")
	d.scratch = nil
	d.sels = [256]js.Value{}
	clear(d.strs)
}

// ---- ids ----

func wrap(v js.Value) *dom.BasicHTMLElement {
	// Built directly rather than through dom.WrapHTMLElement, whose
	// constructor switch costs dozens of crossings per node.
	return &dom.BasicHTMLElement{BasicElement: &dom.BasicElement{BasicNode: &dom.BasicNode{Value: v}}}
}

func isNode(v js.Value) bool {
	return v.Type() == js.TypeObject && v.Get("nodeType").Type() == js.TypeNumber
}

// Lookup returns v's id, or 0 when v has none (it never creates one).
func (d *DOM) Lookup(v js.Value) chatsurface.Node {
	if v.Type() != js.TypeObject {
		return 0
	}
	id := d.ids.Call("get", v)
	if id.Type() != js.TypeNumber {
		return 0
	}
	return chatsurface.Node(id.Int())
}

// scratchID names v for the rest of the operation (0 for null or a non-node).
func (d *DOM) scratchID(v js.Value) chatsurface.Node {
	if id := d.Lookup(v); id != 0 {
		return id
	}
	if !isNode(v) {
		return 0
	}
	d.next++
	id := d.next
	d.nodes[id] = &entry{el: wrap(v)}
	d.ids.Call("set", v, int(id))
	d.scratch = append(d.scratch, id)
	return id
}

// Adopt names v and takes a hold on it (0 for a value that is not a Node).
func (d *DOM) Adopt(v js.Value) chatsurface.Node {
	id := d.scratchID(v)
	if id != 0 {
		d.nodes[id].holds++
	}
	return id
}

// Keep takes a hold on an id the core got from a query and stores.
func (d *DOM) Keep(n chatsurface.Node) {
	if e := d.nodes[n]; e != nil {
		e.holds++
	}
}

// Release drops one hold; the id goes when none is left (scratch ids wait
// for the end of the operation).
func (d *DOM) Release(n chatsurface.Node) {
	e := d.nodes[n]
	if e == nil || e.holds == 0 {
		return
	}
	e.holds--
	if e.holds == 0 {
		d.drop(n, e)
	}
}

func (d *DOM) drop(n chatsurface.Node, e *entry) {
	delete(d.nodes, n)
	d.ids.Call("delete", e.el.Value)
}

// Value is the JS node an id names (null for 0 or an unknown id).
func (d *DOM) Value(n chatsurface.Node) js.Value {
	if e := d.nodes[n]; e != nil {
		return e.el.Value
	}
	return js.Null()
}

// Begin and End bracket one operation; at the outermost End every id
// without a hold is dropped.
func (d *DOM) Begin() { d.depth++ }

func (d *DOM) End() {
	if d.depth > 0 {
		d.depth--
	}
	if d.depth == 0 {
		d.Sweep()
	}
}

// Sweep drops the scratch ids that gained no hold.
func (d *DOM) Sweep() {
	for _, n := range d.scratch {
		if e := d.nodes[n]; e != nil && e.holds == 0 {
			d.drop(n, e)
		}
	}
	d.scratch = d.scratch[:0]
}

// Len is the number of ids currently named (for tests and leak checks).
func (d *DOM) Len() int { return len(d.nodes) }

func (d *DOM) el(n chatsurface.Node) *dom.BasicHTMLElement {
	e := d.nodes[n]
	if e == nil {
		panic("domjs: unknown node id")
	}
	return e.el
}

func (d *DOM) v(n chatsurface.Node) js.Value { return d.el(n).Value }

// ---- chatsurface.DOM ----

func (d *DOM) IsElement(n chatsurface.Node) bool {
	e := d.nodes[n]
	return e != nil && e.el.NodeType() == 1
}

func (d *DOM) Parent(n chatsurface.Node) chatsurface.Node {
	return d.scratchID(d.v(n).Get("parentNode"))
}

func (d *DOM) Children(n chatsurface.Node) []chatsurface.Node {
	kids := d.v(n).Get("children")
	l := kids.Length()
	out := make([]chatsurface.Node, 0, l)
	for i := 0; i < l; i++ {
		out = append(out, d.scratchID(kids.Index(i)))
	}
	return out
}

func (d *DOM) IsConnected(n chatsurface.Node) bool { return d.v(n).Get("isConnected").Bool() }

func (d *DOM) Contains(a, b chatsurface.Node) bool {
	return d.el(a).Contains(d.el(b))
}

func (d *DOM) Matches(n chatsurface.Node, s chatsurface.Selector) bool {
	return d.IsElement(n) && d.v(n).Call("matches", d.sel(s)).Bool()
}

func (d *DOM) QueryFirst(n chatsurface.Node, s chatsurface.Selector) chatsurface.Node {
	if !d.IsElement(n) {
		return 0
	}
	return d.scratchID(d.v(n).Call("querySelector", d.sel(s)))
}

func (d *DOM) TagName(n chatsurface.Node) string { return bridge.WTF8(d.v(n).Get("localName")) }

// Strings read from and written to the DOM cross exactly (bridge.WTF8,
// bridge.TextWTF8): markup and attributes keep lone surrogates.
func (d *DOM) Attr(n chatsurface.Node, name string) (string, bool) {
	v := d.v(n).Call("getAttribute", d.str(name))
	if v.Type() != js.TypeString {
		return "", false
	}
	return bridge.WTF8(v), true
}

func (d *DOM) SetAttr(n chatsurface.Node, name, value string) {
	d.v(n).Call("setAttribute", d.str(name), bridge.TextWTF8(value))
}
func (d *DOM) RemoveAttr(n chatsurface.Node, name string) { d.el(n).RemoveAttribute(name) }

func (d *DOM) SetClass(n chatsurface.Node, class string, on bool) {
	d.v(n).Get("classList").Call("toggle", class, on)
}

func (d *DOM) CreateElement(tag string) chatsurface.Node {
	return d.Adopt(d.doc.Call("createElement", tag))
}

func (d *DOM) CloneShallow(n chatsurface.Node) chatsurface.Node {
	return d.Adopt(d.v(n).Call("cloneNode", false))
}

func (d *DOM) InsertBefore(parent, n, ref chatsurface.Node) {
	r := js.Null()
	if ref != 0 {
		r = d.v(ref)
	}
	d.v(parent).Call("insertBefore", d.v(n), r)
}

func (d *DOM) Remove(n chatsurface.Node) { d.v(n).Call("remove") }

func (d *DOM) InnerHTML(n chatsurface.Node) string { return bridge.WTF8(d.v(n).Get("innerHTML")) }

func (d *DOM) SetInnerHTML(n chatsurface.Node, html string) {
	d.v(n).Set("innerHTML", bridge.TextWTF8(html))
}

func (d *DOM) MoveChildren(from, to chatsurface.Node) {
	f, t := d.v(from), d.v(to)
	t.Call("replaceChildren")
	for c := f.Get("firstChild"); !c.IsNull(); c = f.Get("firstChild") {
		t.Call("appendChild", c)
	}
}

func (d *DOM) SetText(n chatsurface.Node, text string) {
	d.v(n).Set("textContent", bridge.TextWTF8(text))
}

func (d *DOM) InlineStyle(n chatsurface.Node, prop string) string {
	return d.el(n).Style().GetPropertyValue(prop)
}

func (d *DOM) SetInlineStyle(n chatsurface.Node, prop, value string) {
	if value == "" {
		d.el(n).Style().RemoveProperty(prop)
		return
	}
	d.el(n).Style().SetProperty(prop, value, "")
}

func (d *DOM) Rect(n chatsurface.Node) chatsurface.Rect {
	r := d.el(n).GetBoundingClientRect()
	return chatsurface.Rect{Top: r.Top(), Bottom: r.Bottom()}
}

func (d *DOM) ClientHeight(n chatsurface.Node) float64 { return d.v(n).Get("clientHeight").Float() }
func (d *DOM) ScrollHeight(n chatsurface.Node) float64 { return d.v(n).Get("scrollHeight").Float() }
func (d *DOM) ScrollTop(n chatsurface.Node) float64    { return d.v(n).Get("scrollTop").Float() }
func (d *DOM) SetScrollTop(n chatsurface.Node, v float64) {
	d.v(n).Set("scrollTop", v)
}

// ComputedStyle reads globalThis.getComputedStyle (C2); the core parses it.
func (d *DOM) ComputedStyle(n chatsurface.Node, prop string) string {
	gcs := js.Global().Get("getComputedStyle")
	if gcs.Type() != js.TypeFunction {
		return ""
	}
	v := gcs.Invoke(d.v(n)).Call("getPropertyValue", d.str(prop))
	if v.Type() != js.TypeString {
		return ""
	}
	return v.String()
}

func (d *DOM) ObserveSize(n chatsurface.Node, on bool) {
	if !d.resize.Truthy() || d.nodes[n] == nil {
		return
	}
	if on {
		d.resize.Call("observe", d.v(n))
	} else {
		d.resize.Call("unobserve", d.v(n))
	}
}

var mutationOptions = [2]map[string]any{
	{"childList": true},
	{"subtree": true, "attributes": true, "attributeFilter": []any{"mesid"}},
}

func (d *DOM) Listen(root chatsurface.Node, on bool) {
	if on == d.listening {
		return
	}
	d.listening = on
	r := d.v(root)
	if on {
		if d.managed {
			r.Call("addEventListener", "scroll", d.onScroll)
			r.Call("addEventListener", "scrollend", d.onEnd)
		}
		for i, m := range d.mutation {
			if m.Truthy() {
				m.Call("observe", r, mutationOptions[i])
			}
		}
		return
	}
	if d.managed {
		r.Call("removeEventListener", "scroll", d.onScroll)
		r.Call("removeEventListener", "scrollend", d.onEnd)
	}
	for _, m := range d.mutation {
		if m.Truthy() {
			m.Call("disconnect")
		}
	}
}

// helpers is the facade's object holding the batch functions (SetHelpers);
// they are looked up on use, since the facade fills the object after Go
// starts.
var helpers, boxes, attrs js.Value

// SetHelpers names the object carrying the facade's batch functions:
// "boxes", fn(nodes, addr, room): for each node it
// writes top and bottom (float64, four units each, little-endian), then
// margin-top and margin-bottom as a length unit plus UTF-16 units, into the
// shared buffer at addr, and returns the units written, or -needed when
// room is short; "rootAttrs", fn(nodes, addr): for node i it reads mesid
// (two units) and flags (bit 0 virtual, bit 1 last) at addr+6i bytes and
// does what chatsurface.RootAttrs says.
func SetHelpers(obj js.Value) { helpers = obj }

// helper returns the named batch function, caching it once present.
func helper(cache *js.Value, name string) bool {
	if cache.Type() == js.TypeFunction {
		return true
	}
	if helpers.Type() != js.TypeObject {
		return false
	}
	*cache = helpers.Get(name)
	return cache.Type() == js.TypeFunction
}

// Boxes reads every node's rect and margins in one crossing (C85); without
// a reader it falls back to Rect and ComputedStyle.
func (d *DOM) Boxes(ns []chatsurface.Node) []chatsurface.Box {
	out := make([]chatsurface.Box, len(ns))
	if !helper(&boxes, "boxes") || js.Global().Get("getComputedStyle").Type() != js.TypeFunction {
		for i, n := range ns {
			out[i] = chatsurface.Box{Rect: d.Rect(n), MarginTop: d.ComputedStyle(n, "margin-top"),
				MarginBottom: d.ComputedStyle(n, "margin-bottom")}
		}
		return out
	}
	arr := js.Global().Get("Array").New(len(ns))
	for i, n := range ns {
		arr.SetIndex(i, d.v(n))
	}
	room := len(ns) * 24
	for {
		bridge.Reserve(room)
		got := boxes.Invoke(arr, bridge.Addr(), room).Int()
		if got < 0 {
			room = -got
			continue
		}
		break
	}
	u := bridge.Buf()
	p := 0
	f64 := func() float64 {
		b := uint64(u[p]) | uint64(u[p+1])<<16 | uint64(u[p+2])<<32 | uint64(u[p+3])<<48
		p += 4
		return math.Float64frombits(b)
	}
	str := func() string {
		n := int(u[p])
		p++
		s := string(utf16.Decode(u[p : p+n]))
		p += n
		return s
	}
	for i := range out {
		out[i].Rect.Top = f64()
		out[i].Rect.Bottom = f64()
		out[i].MarginTop = str()
		out[i].MarginBottom = str()
	}
	return out
}

// WriteRootAttrs does the C31/C75 writes for every root in one crossing.
func (d *DOM) WriteRootAttrs(rs []chatsurface.RootAttrs) {
	if !helper(&attrs, "rootAttrs") {
		for _, r := range rs {
			n := strconv.Itoa(r.Mesid)
			if v, ok := d.Attr(r.Root, "mesid"); !ok || v != n {
				d.SetAttr(r.Root, "mesid", n)
			}
			if r.Virtual {
				d.SetAttr(r.Root, "data-tt-virtual-index", n)
			}
			if x := d.QueryFirst(r.Root, chatsurface.SelMesIDDisplay); x != 0 {
				d.SetText(x, "#"+n)
			}
			d.SetClass(r.Root, "last_mes", r.Last)
		}
		return
	}
	arr := js.Global().Get("Array").New(len(rs))
	u := bridge.Reserve(3 * len(rs))
	for i, r := range rs {
		arr.SetIndex(i, d.v(r.Root))
		f := uint16(0)
		if r.Virtual {
			f |= 1
		}
		if r.Last {
			f |= 2
		}
		u[3*i], u[3*i+1], u[3*i+2] = uint16(r.Mesid), uint16(r.Mesid>>16), f
	}
	attrs.Invoke(arr, bridge.Addr())
}

var _ chatsurface.DOM = (*DOM)(nil)
var _ chatsurface.AttrWriter = (*DOM)(nil)
var _ chatsurface.BoxReader = (*DOM)(nil)
