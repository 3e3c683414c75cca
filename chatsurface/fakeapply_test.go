package chatsurface

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"tavern-core/jsvalue"
)

// The fake's side of the batch boundary: Apply decodes the same stream
// js/chat-surface.js's applier decodes and runs it on the in-memory tree,
// so native tests run the core's production path (batch.go).

type resultEnc struct{ u []uint16 }

func (e *resultEnc) unit(v uint16) { e.u = append(e.u, v) }
func (e *resultEnc) node(n Node)   { e.u = append(e.u, uint16(uint32(n)), uint16(uint32(n)>>16)) }
func (e *resultEnc) f64(f float64) {
	x := math.Float64bits(f)
	e.u = append(e.u, uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48))
}
func (e *resultEnc) str(s string) {
	u := jsvalue.FromWTF8(s)
	e.u = append(e.u, uint16(len(u)), uint16(len(u)>>16))
	e.u = append(e.u, u...)
}

func bit(b bool) uint16 {
	if b {
		return 1
	}
	return 0
}

// parseLength is Number.parseFloat for the fake's "<n>px" strings.
func parseLength(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "px"), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// treeWrites are the ops that may change a child list or a root's
// attributes (DomReadChildrenChanged's "wrote nothing").
var treeWrites = map[uint16]bool{DomRemove: true, DomInsert: true, DomRootAttrs: true, DomSetAttr: true,
	DomRemoveAttr: true, DomSetHTML: true, DomSwap: true}

var selectors = map[Selector]bool{SelMes: true, SelMesText: true, SelMesIDDisplay: true, SelShowMore: true,
	SelStylePins: true, SelSpacer: true, SelEditor: true}

func (d *fakeDOM) Apply(cmd []uint16) ([]uint16, *JSValue) {
	d.batches++
	r := decoder{u: cmd}
	var out resultEnc
	if d.mut != d.seen {
		d.dirty = true // changed by someone else since the last batch
	}
	defer func() { d.seen = d.mut }()
	wrote := false
	for r.pos < len(cmd) {
		op := r.unit()
		d.ops[op]++
		if treeWrites[op] {
			wrote = true
		}
		switch op {
		case DomRemove:
			n, from := r.node(), r.node()
			if x := d.nodes[n]; x != nil && x.parent != nil && (from == 0 || x.parent.id == from) {
				d.Remove(n)
			}
		case DomInsert:
			p, n, ref := r.node(), r.node(), r.node()
			d.InsertBefore(p, n, ref)
		case DomRootAttrs:
			n, mesid, f := r.node(), int(r.u32()), r.unit()
			m := itoa(mesid)
			if v, ok := d.Attr(n, "mesid"); !ok || v != m {
				d.SetAttr(n, "mesid", m)
			}
			if v, ok := d.Attr(n, "data-tt-virtual-index"); f&RootVirtual != 0 && (!ok || v != m) {
				d.SetAttr(n, "data-tt-virtual-index", m)
			}
			if x := d.QueryFirst(n, SelMesIDDisplay); x != 0 && d.textOf(x) != "#"+m {
				d.SetText(x, "#"+m)
			}
			if slices.Contains(d.n(n).classes, "last_mes") != (f&RootLast != 0) {
				d.SetClass(n, "last_mes", f&RootLast != 0)
			}
		case DomSetAttr:
			n, name := r.node(), Names[r.unit()]
			d.SetAttr(n, name, r.str())
		case DomRemoveAttr:
			n, name := r.node(), Names[r.unit()]
			d.RemoveAttr(n, name)
		case DomSetStyle:
			n, prop := r.node(), Names[r.unit()]
			d.SetInlineStyle(n, prop, r.str())
		case DomSpacer:
			n, kind := r.node(), r.unit()
			x := d.mkID(n, "tt-chat-spacer")
			d.setAttr(x, "data-tt-chat-spacer", SpacerKinds[kind])
			d.setAttr(x, "aria-hidden", "true")
		case DomHeight:
			n, h := r.node(), r.f64()
			d.SetInlineStyle(n, "height", jsNumber(h)+"px")
		case DomClone:
			d.clones++
			n, from := r.node(), r.node()
			x, src := d.mkID(n, d.n(from).tag), d.n(from)
			for _, k := range src.order {
				if v, ok := d.getAttr(src, k); ok {
					d.setAttr(x, k, v)
				}
			}
		case DomDiv:
			d.mkID(r.node(), "div")
		case DomSetHTML:
			n := r.node()
			d.SetInnerHTML(n, r.str())
		case DomSwap:
			from, to := r.node(), r.node()
			d.MoveChildren(from, to)
			if v, ok := d.Attr(from, "aria-busy"); ok {
				d.SetAttr(to, "aria-busy", v)
			} else {
				d.RemoveAttr(to, "aria-busy")
			}
		case DomScroll:
			n, v := r.node(), r.f64()
			d.SetScrollTop(n, v)
		case DomObserve:
			n, on := r.node(), r.unit() != 0
			d.ObserveSize(n, on)
		case DomListen:
			n, on := r.node(), r.unit() != 0
			d.Listen(n, on)
		case DomRelease:
			d.released[r.node()]++
		case DomForgetStyles:
		case DomReadScroll:
			n := r.node()
			out.f64(d.ScrollTop(n))
			out.f64(d.ClientHeight(n))
			out.f64(d.ScrollHeight(n))
		case DomReadView:
			n := r.node()
			out.f64(d.ScrollTop(n))
			out.f64(d.ClientHeight(n))
			out.f64(d.ScrollHeight(n))
			for _, p := range [...]string{"padding-top", "padding-bottom", "row-gap"} {
				out.f64(parseLength(d.ComputedStyle(n, p)))
			}
		case DomReadBox:
			n := r.node()
			rc := d.Rect(n)
			out.f64(rc.Top)
			out.f64(rc.Bottom)
			out.f64(parseLength(d.ComputedStyle(n, "margin-top")))
			out.f64(parseLength(d.ComputedStyle(n, "margin-bottom")))
		case DomReadRect:
			rc := d.Rect(r.node())
			out.f64(rc.Top)
			out.f64(rc.Bottom)
		case DomReadHostRect:
			p := d.Parent(r.node())
			if p == 0 || !d.IsElement(p) {
				out.unit(0)
				out.f64(0)
				out.f64(0)
				break
			}
			rc := d.Rect(p)
			out.unit(1)
			out.f64(rc.Top)
			out.f64(rc.Bottom)
		case DomReadHTML:
			out.str(d.InnerHTML(r.node()))
		case DomReadAttr:
			n, name := r.node(), Names[r.unit()]
			v, ok := d.Attr(n, name)
			out.unit(bit(ok))
			if ok {
				out.str(v)
			}
		case DomReadStyle:
			n, prop := r.node(), Names[r.unit()]
			out.str(d.InlineStyle(n, prop))
		case DomReadChildrenChanged:
			n := r.node()
			if !d.dirty && !wrote && d.listen > 0 {
				out.unit(0)
				break
			}
			d.dirty = false
			out.unit(1)
			d.children(&out, n)
		case DomReadChildren:
			d.children(&out, r.node())
		case DomReadNode:
			n := r.node()
			f := bit(d.IsElement(n))*NodeElement | bit(d.IsConnected(n))*NodeConnected |
				bit(d.Matches(n, SelMes))*NodeMes | bit(d.Matches(n, SelMesText))*NodeMesText
			out.unit(f)
			out.node(d.Parent(n))
		case DomQuery:
			n, s := r.node(), Selector(r.unit())
			if !selectors[s] {
				panic("fake DOM: unknown selector")
			}
			out.node(d.QueryFirst(n, s))
		case DomContains:
			a, b := r.node(), r.node()
			out.unit(bit(d.Contains(a, b)))
		case DomOwnership:
			held, source := d.ownership(&r)
			out.u = append(out.u, uint16(held), uint16(held>>16))
			out.unit(bit(source))
		default:
			panic("fake DOM: unknown op " + strconv.Itoa(int(op)))
		}
	}
	return out.u, nil
}

// ownership answers DomOwnership: the operands are read to the end
// whatever fails first.
func (d *fakeDOM) ownership(r *decoder) (held uint32, source bool) {
	n := r.u32()
	failed := false
	for i := uint32(0); i < n; i++ {
		root, content, k := r.node(), r.node(), r.u32()
		if !failed && d.QueryFirst(root, SelMesText) != content {
			failed, held = true, i
		}
		for j := uint32(0); j < k; j++ {
			src := r.node()
			if !failed && !(d.IsConnected(src) && d.Contains(content, src)) {
				failed, held, source = true, i, true
			}
		}
	}
	if !failed {
		held = n
	}
	return held, source
}

// children answers DomReadChildren for n.
func (d *fakeDOM) children(out *resultEnc, n Node) {
	kids := d.Children(n)
	out.u = append(out.u, uint16(len(kids)), uint16(len(kids)>>16))
	for _, k := range kids {
		f := bit(d.Matches(k, SelMes))*NodeMes | bit(d.Matches(k, SelStylePins))*NodeStylePins
		out.node(k)
		out.unit(f)
		if f&NodeMes != 0 {
			v, ok := d.Attr(k, "mesid")
			out.unit(bit(ok))
			if ok {
				out.str(v)
			}
		} else {
			out.str(d.TagName(k))
		}
	}
}

// mkID makes a node under an id the core chose.
func (d *fakeDOM) mkID(id Node, tag string) *fnode {
	n := &fnode{id: id, tag: tag, attrs: map[string]string{}, style: map[string]string{}}
	d.nodes[id] = n
	return n
}

var _ DOM = (*fakeDOM)(nil)
