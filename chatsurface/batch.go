package chatsurface

import (
	"math"
	"slices"

	"tavern-core/jsvalue"
)

// The DOM boundary (C2), at the level of intent: the core decides each step
// as data — roots to remove and where to insert the rest, the attributes of
// every root, spacer heights, content to swap, the scroll offset, observers
// to (un)watch — and the reads it needs after them (scroll and metrics, root
// boxes, the root's children, node facts), and hands the whole batch to the
// adapter, which applies it in one crossing. js/chat-surface.js is the
// adapter in pages (the only DOM writer); tests use an in-memory fake. Both
// run the same encoded batch, so native tests run what production runs.
//
// A batch is a stream of 16-bit units: an op code (protocol DomOp*), then
// its operands — nodes as two units (int32, little end first), numbers as
// four (IEEE-754 bits), strings as a two-unit length and their UTF-16 code
// units, names (attributes, properties) and selectors as one unit. The
// results of its reads follow the same encoding, in the order the reads
// were queued.

// DOM applies batches. Apply runs every command in order and returns the
// results of the reads; when a command throws, the ones after it do not run
// and thrown names the value (C6).
type DOM interface {
	Apply(cmd []uint16) (out []uint16, thrown *JSValue)
}

// Op codes of the batch stream (shared with js/chat-surface.js through
// protocol).
const (
	// writes
	DomRemove       = iota + 1 // node, from (0: any): node.remove() when node.parentNode is from
	DomInsert                  // parent, node, ref (0: append): parent.insertBefore(node, ref)
	DomRootAttrs               // node, mesid (two units), flags: C31/C75 on one root
	DomSetAttr                 // node, name, string
	DomRemoveAttr              // node, name
	DomSetStyle                // node, property, string ("" removes the property)
	DomSpacer                  // new node, kind: a <tt-chat-spacer> (C74)
	DomHeight                  // node, number: style height "<n>px", n as JavaScript prints it (C84)
	DomClone                   // new node, node: node.cloneNode(false)
	DomDiv                     // new node: a detached <div>
	DomSetHTML                 // node, string: innerHTML
	DomSwap                    // from, to: to.replaceChildren(...from.childNodes), and aria-busy copied from from (C51)
	DomScroll                  // node, number: scrollTop
	DomObserve                 // node, on: the ResizeObserver of mounted roots (C85)
	DomListen                  // root, on: scroll/scrollend listeners and the MutationObserver (C79, C88)
	DomRelease                 // node: forget the id
	DomForgetStyles            // computed styles may have changed (refreshLayout): read them afresh
	// reads
	DomReadScroll   // node → scrollTop, clientHeight, scrollHeight
	DomReadView     // root → scrollTop, clientHeight, scrollHeight, padding-top, padding-bottom, row-gap
	DomReadBox      // node → rect top, rect bottom, margin-top, margin-bottom
	DomReadRect     // node → rect top, rect bottom
	DomReadHostRect // node → has parentElement, its rect top and bottom (C63)
	DomReadHTML     // node → innerHTML
	DomReadAttr     // node, name → present, value
	DomReadStyle    // node, property → inline value
	DomReadChildren // node → count, then per element child: node, flags, mesid or tag
	DomReadNode     // node → flags, parent
	DomQuery        // node, selector → first matching descendant
	DomContains     // a, b → a.contains(b)
	// node → changed, then DomReadChildren's answer when changed. Unchanged
	// means the adapter saw no change to node's child list or to its
	// children's mesid and class attributes since its last batch, and this
	// batch wrote nothing before the read: the children are still what the
	// core last committed or read (C79 needs no list then).
	DomReadChildrenChanged
	// count, then per root: root, content, claims count, each claimed
	// source → how many roots hold C45 before the first that fails (count
	// when all hold; a short answer fails the first), kind (0: its first
	// .mes_text is not content, 1: a source is not connected inside
	// content). One read for every mounted root: C45 runs at every commit
	// and content update, over all of them.
	DomOwnership
)

// Flags of DomRootAttrs.
const (
	RootVirtual = 1 << iota // data-tt-virtual-index (managed, C75)
	RootLast                // the last_mes class (C31)
)

// Flags of a DomReadNode result, and of a DomReadChildren entry.
const (
	NodeElement   = 1 << iota // nodeType 1
	NodeConnected             // isConnected
	NodeMes                   // matches .mes
	NodeMesText               // matches .mes_text
	NodeStylePins             // matches .style-pins
)

// Unregistered is a node the adapter has no id for: it exists, but the core
// never named it, so it is none of the core's nodes.
const Unregistered Node = -1 << 31

// Names of attributes and style properties the core reads and writes.
const (
	NameMesid = iota + 1
	NameSurface
	NameBootstrap
	NameAriaBusy
	NameOverflowAnchor
)

// Names lists them, by index, for the adapters.
var Names = [...]string{"", "mesid", "data-tt-chat-surface", "data-tt-chat-bootstrap", "aria-busy", "overflow-anchor"}

// Spacer kinds of DomSpacer, and their data-tt-chat-spacer values.
const (
	SpacerTop = iota
	SpacerMiddle
)

var SpacerKinds = [...]string{"top", "middle"}

// Batch is one batch being built: commands, and the reads whose results the
// core will decode.
type Batch struct {
	cmd   []uint16
	reads []readSpec
	res   []result
	// seen: the batch holds an op other than DomRelease, one that JS
	// could observe (Doc.syncForJS).
	seen bool
	// sent and sentReads count the commands and reads of batches in
	// flight (Doc.Sync): a Sync nested in one sends only what follows.
	sent, sentReads int
	// kids holds the children of the reads decoded since the last
	// outermost batch that decoded any: a frame reads the root's children
	// twice (the commit's placement, C79's check), and one array reused
	// spares the allocation and the collector's work. A []Child read is
	// therefore valid until the next batch that reads children.
	kids []Child
}

type readKind uint8

type readSpec struct {
	k readKind
	n uint8 // numbers of a readF64s
}

const (
	readF64s readKind = iota
	readHTML
	readAttr
	readChildren
	readNode
	readID
	readBool
	readHostRect
	readChildrenChanged
	readOwnership
)

// result is one decoded read.
type result struct {
	f        [6]float64
	n        int // how many of f
	s        string
	ok       bool
	node     Node
	flags    uint16
	children []Child
}

// Child is one element child of a DomReadChildren result.
type Child struct {
	_     noCompare
	Node  Node   // Unregistered when the adapter has no id for it
	Flags uint16 // NodeMes, NodeStylePins
	// Mesid is the mesid attribute of a .mes child as the number it spells
	// when it is one's canonical decimal (what C79 compares), else -1: no
	// string is made per child per read.
	Mesid int
	Has   bool   // whether it has one
	Tag   string // lower-case localName of any other child
}

// Read names a queued read; its value is valid after the batch ran.
type Read int

//go:noinline
func (b *Batch) op(code uint16) {
	b.cmd = append(b.cmd, code)
	b.seen = b.seen || code != DomRelease
}

//go:noinline
func (b *Batch) unit(u uint16) { b.cmd = append(b.cmd, u) }

//go:noinline
func (b *Batch) node(n Node) { b.cmd = append(b.cmd, uint16(uint32(n)), uint16(uint32(n)>>16)) }

//go:noinline
func (b *Batch) u32(v uint32) { b.cmd = append(b.cmd, uint16(v), uint16(v>>16)) }

//go:noinline
func (b *Batch) f64(f float64) {
	x := math.Float64bits(f)
	b.cmd = append(b.cmd, uint16(x), uint16(x>>16), uint16(x>>32), uint16(x>>48))
}

//go:noinline
func (b *Batch) str(s string) {
	// Encoded in place, its length filled in after: no units made per string.
	at := len(b.cmd)
	b.cmd = jsvalue.AppendUnits(append(b.cmd, 0, 0), s)
	n := uint32(len(b.cmd) - at - 2)
	b.cmd[at], b.cmd[at+1] = uint16(n), uint16(n>>16)
}

//go:noinline
func (b *Batch) read(k readKind, n uint8) Read {
	b.reads = append(b.reads, readSpec{k, n})
	return Read(len(b.reads) - 1)
}

// Empty reports whether nothing is queued that a Sync would send.
func (b *Batch) Empty() bool { return len(b.cmd) == b.sent }

// Cmd is the encoded stream.
func (b *Batch) Cmd() []uint16 { return b.cmd }

// decode reads the results of the reads queued from index from on (0 but
// in a nested Sync, whose results go after the batch in flight's).
func (b *Batch) decode(out []uint16, from int) {
	d := decoder{u: out, kids: &b.kids}
	if from == 0 {
		b.kids = b.kids[:0]
	}
	if len(b.res) > from {
		b.res = b.res[:from]
	}
	for len(b.res) < from {
		b.res = append(b.res, result{})
	}
	for _, spec := range b.reads[from:] {
		var r result
		switch spec.k {
		case readF64s:
			r.n = int(spec.n)
			for i := 0; i < r.n; i++ {
				r.f[i] = d.f64()
			}
		case readHostRect:
			r.ok = d.unit() != 0
			r.f[0], r.f[1] = d.f64(), d.f64()
		case readHTML:
			r.s = d.str()
		case readAttr:
			if r.ok = d.unit() != 0; r.ok {
				r.s = d.str()
			}
		case readChildren:
			r.children = d.children()
		case readChildrenChanged:
			if r.ok = d.unit() != 0; r.ok {
				r.children = d.children()
			}
		case readNode:
			r.flags, r.node = d.unit(), d.node()
		case readID:
			r.node = d.node()
		case readBool:
			r.ok = d.unit() != 0
		case readOwnership:
			r.n, r.ok = int(d.u32()), d.unit() != 0
		}
		b.res = append(b.res, r)
	}
}

// decoder reads results. A short stream reads as zeros: the adapter is
// trusted to write what was asked, and a short answer must not panic.
type decoder struct {
	u    []uint16
	pos  int
	kids *[]Child // where children() puts what it reads (Batch.kids)
}

func (d *decoder) unit() uint16 {
	if d.pos >= len(d.u) {
		return 0
	}
	d.pos++
	return d.u[d.pos-1]
}
func (d *decoder) u32() uint32 { lo := uint32(d.unit()); return lo | uint32(d.unit())<<16 }
func (d *decoder) node() Node  { return Node(int32(d.u32())) }
func (d *decoder) f64() float64 {
	var x uint64
	for i := 0; i < 4; i++ {
		x |= uint64(d.unit()) << (16 * i)
	}
	return math.Float64frombits(x)
}
func (d *decoder) children() []Child {
	// A child takes at least three units (node, flags): the stream's rest
	// bounds the count before it sizes anything.
	n := int(d.u32())
	n = min(n, (len(d.u)-d.pos)/3)
	a := *d.kids
	at := len(a)
	a = slices.Grow(a, n)[:at+n]
	*d.kids = a
	out := a[at : at+n : at+n]
	for i := range out {
		c := &out[i]
		*c = Child{}
		c.Node, c.Flags = d.node(), d.unit()
		if c.Flags&NodeMes != 0 {
			if c.Has = d.unit() != 0; c.Has {
				c.Mesid = d.decimal()
			}
		} else {
			c.Tag = d.str()
		}
	}
	return out
}

// decimal reads a string as decode's Child.Mesid: n when it is String(n)
// for an n below MaxMessages, else -1.
func (d *decoder) decimal() int {
	n := int(d.u32())
	if n > len(d.u)-d.pos {
		n = len(d.u) - d.pos
	}
	u := d.u[d.pos : d.pos+n]
	d.pos += n
	if n == 0 || n > 9 || (u[0] == '0' && n > 1) {
		return -1
	}
	v := 0
	for _, c := range u {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int(c-'0')
	}
	if v >= MaxMessages {
		return -1
	}
	return v
}

func (d *decoder) str() string {
	n := int(d.u32())
	if n > len(d.u)-d.pos {
		n = len(d.u) - d.pos
	}
	s := jsvalue.WTF8(d.u[d.pos : d.pos+n])
	d.pos += n
	return s
}
