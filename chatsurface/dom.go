package chatsurface

// Doc is the host's side of the DOM boundary: writes are queued into the
// pending batch, reads are queued with it, and Sync applies everything in
// one crossing. Reads that a decision needs at once (Scroll, Node, …) sync
// on the spot; hot paths queue several reads and sync once. Before any call
// out to JavaScript the host syncs (syncJS), so JS code always sees
// the DOM the core has decided. The encoders are kept out of line
// (go:noinline): inlined at their dozens of call sites they cost ~14 KB of
// the compressed module.
type Doc struct {
	dom  DOM
	b    Batch
	last int // nodes created by the core get ids -1, -2, …
	// syncs counts the batches applied: a read queued while it was n is
	// answered once it is n+1, and stays readable until it is n+2.
	syncs uint32
	// failed is called when a command threw: the rest of that batch did not
	// run and its reads are zero.
	failed func(*JSValue)
}

func newDoc(dom DOM, failed func(*JSValue)) *Doc { return &Doc{dom: dom, failed: failed} }

// Sync applies the pending batch, if any.
//
//go:noinline
func (d *Doc) Sync() {
	b := &d.b
	if b.Empty() {
		return
	}
	d.syncs++
	// A batch in flight is the adapter's until Apply returns. Page code it
	// runs (a custom element's reaction to an insert) may call the host,
	// whose Sync then sends only what was queued since: sending this batch
	// again re-inserted the same roots, whose reactions called again, until
	// the stack overflowed inside the Go runtime (docs/chatsurface.md,
	// "Page code inside a batch").
	c0, r0 := b.sent, b.sentReads
	b.sent, b.sentReads = len(b.cmd), len(b.reads)
	out, thrown := d.dom.Apply(b.cmd[c0:])
	b.decode(out, r0) // the results stay for the accessors until the next batch
	b.cmd, b.reads, b.sent, b.sentReads = b.cmd[:c0], b.reads[:r0], c0, r0
	b.seen = false
	if thrown != nil && d.failed != nil {
		d.failed(thrown)
	}
}

// syncForJS is Sync before a call out to JavaScript, except for a batch of
// releases only: no JS can observe a dropped node id, so those ride with
// the next batch (at the latest the export's own Sync).
func (d *Doc) syncForJS() {
	if d.b.seen {
		d.Sync()
	}
}

// newID names a node the core creates.
func (d *Doc) newID() Node { d.last--; return Node(d.last) }

// ---- writes ----

// Remove detaches n when its parent is from (any parent when from is 0).
//
//go:noinline
func (d *Doc) Remove(n, from Node) { d.b.op(DomRemove); d.b.node(n); d.b.node(from) }

//go:noinline
func (d *Doc) Insert(parent, n, ref Node) {
	d.b.op(DomInsert)
	d.b.node(parent)
	d.b.node(n)
	d.b.node(ref)
}

//go:noinline
func (d *Doc) SetAttr(n Node, name uint16, v string) {
	d.b.op(DomSetAttr)
	d.b.node(n)
	d.b.unit(name)
	d.b.str(v)
}

//go:noinline
func (d *Doc) RemoveAttr(n Node, name uint16) { d.b.op(DomRemoveAttr); d.b.node(n); d.b.unit(name) }

//go:noinline
func (d *Doc) SetStyle(n Node, prop uint16, v string) {
	d.b.op(DomSetStyle)
	d.b.node(n)
	d.b.unit(prop)
	d.b.str(v)
}

//go:noinline
func (d *Doc) RootAttrs(n Node, mesid int, flags uint16) {
	d.b.op(DomRootAttrs)
	d.b.node(n)
	d.b.u32(uint32(mesid))
	d.b.unit(flags)
}

// Spacer creates a spacer element (C74) and returns its id.
//
//go:noinline
func (d *Doc) Spacer(kind uint16) Node {
	n := d.newID()
	d.b.op(DomSpacer)
	d.b.node(n)
	d.b.unit(kind)
	return n
}

//go:noinline
func (d *Doc) Height(n Node, px float64) { d.b.op(DomHeight); d.b.node(n); d.b.f64(px) }

// Div creates a detached <div> (an innerHTML round trip, C117).
//
//go:noinline
func (d *Doc) Div() Node {
	n := d.newID()
	d.b.op(DomDiv)
	d.b.node(n)
	return n
}

// Clone creates n.cloneNode(false) and returns its id.
//
//go:noinline
func (d *Doc) Clone(n Node) Node {
	c := d.newID()
	d.b.op(DomClone)
	d.b.node(c)
	d.b.node(n)
	return c
}

//go:noinline
func (d *Doc) SetHTML(n Node, html string) { d.b.op(DomSetHTML); d.b.node(n); d.b.str(html) }

// Swap moves from's children into to and copies from's aria-busy onto it
// (C51 step 6).
//
//go:noinline
func (d *Doc) Swap(from, to Node) { d.b.op(DomSwap); d.b.node(from); d.b.node(to) }

//go:noinline
func (d *Doc) SetScroll(n Node, v float64) { d.b.op(DomScroll); d.b.node(n); d.b.f64(v) }

//go:noinline
func (d *Doc) Observe(n Node, on bool) { d.b.op(DomObserve); d.b.node(n); d.b.unit(flag(on)) }

//go:noinline
func (d *Doc) Listen(root Node, on bool) { d.b.op(DomListen); d.b.node(root); d.b.unit(flag(on)) }

//go:noinline
func (d *Doc) Release(n Node) {
	if n != 0 && n != Unregistered {
		d.b.op(DomRelease)
		d.b.node(n)
	}
}

// ForgetStyles tells the adapter that computed styles may have changed.
//
//go:noinline
func (d *Doc) ForgetStyles() { d.b.op(DomForgetStyles) }

func flag(on bool) uint16 {
	if on {
		return 1
	}
	return 0
}

// ---- queued reads ----

//go:noinline
func (d *Doc) QScroll(n Node) Read { d.b.op(DomReadScroll); d.b.node(n); return d.b.read(readF64s, 3) }

//go:noinline
func (d *Doc) QView(root Node) Read {
	d.b.op(DomReadView)
	d.b.node(root)
	return d.b.read(readF64s, 6)
}

//go:noinline
func (d *Doc) QBox(n Node) Read { d.b.op(DomReadBox); d.b.node(n); return d.b.read(readF64s, 4) }

//go:noinline
func (d *Doc) QRect(n Node) Read { d.b.op(DomReadRect); d.b.node(n); return d.b.read(readF64s, 2) }

//go:noinline
func (d *Doc) QHostRect(n Node) Read {
	d.b.op(DomReadHostRect)
	d.b.node(n)
	return d.b.read(readHostRect, 0)
}

//go:noinline
func (d *Doc) QHTML(n Node) Read { d.b.op(DomReadHTML); d.b.node(n); return d.b.read(readHTML, 0) }

//go:noinline
func (d *Doc) QAttr(n Node, name uint16) Read {
	d.b.op(DomReadAttr)
	d.b.node(n)
	d.b.unit(name)
	return d.b.read(readAttr, 0)
}

//go:noinline
func (d *Doc) QStyle(n Node, prop uint16) Read {
	d.b.op(DomReadStyle)
	d.b.node(n)
	d.b.unit(prop)
	return d.b.read(readHTML, 0)
}

//go:noinline
func (d *Doc) QChildren(n Node) Read {
	d.b.op(DomReadChildren)
	d.b.node(n)
	return d.b.read(readChildren, 0)
}

// QChildrenIfChanged is QChildren answered only when the children may have
// changed since the adapter's last batch (DomReadChildrenChanged).
//
//go:noinline
func (d *Doc) QChildrenIfChanged(n Node) Read {
	d.b.op(DomReadChildrenChanged)
	d.b.node(n)
	return d.b.read(readChildrenChanged, 0)
}

//go:noinline
func (d *Doc) QNode(n Node) Read { d.b.op(DomReadNode); d.b.node(n); return d.b.read(readNode, 0) }

//go:noinline
func (d *Doc) QQuery(n Node, s Selector) Read {
	d.b.op(DomQuery)
	d.b.node(n)
	d.b.unit(uint16(s))
	return d.b.read(readID, 0)
}

//go:noinline
func (d *Doc) QContains(a, b Node) Read {
	d.b.op(DomContains)
	d.b.node(a)
	d.b.node(b)
	return d.b.read(readBool, 0)
}

// QOwnership queues C45's read over n roots; n OwnRoot calls follow, each
// with its claimed sources (OwnSource).
//
//go:noinline
func (d *Doc) QOwnership(n int) Read {
	d.b.op(DomOwnership)
	d.b.u32(uint32(n))
	return d.b.read(readOwnership, 0)
}

// OwnRoot names one root of a QOwnership, its recorded content and how
// many claimed sources follow.
//
//go:noinline
func (d *Doc) OwnRoot(root, content Node, sources int) {
	d.b.node(root)
	d.b.node(content)
	d.b.u32(uint32(sources))
}

// OwnSource names one claimed source of the root before it.
func (d *Doc) OwnSource(n Node) { d.b.node(n) }

// ---- results of the last batch ----

func (d *Doc) res(r Read) result {
	if int(r) < len(d.b.res) {
		return d.b.res[r]
	}
	return result{}
}

// F is number i of a numeric read.
//
//go:noinline
func (d *Doc) F(r Read, i int) float64 { return d.res(r).f[i] }

// Rect of a QRect or QBox read.
//
//go:noinline
func (d *Doc) RectOf(r Read) Rect { x := d.res(r); return Rect{Top: x.f[0], Bottom: x.f[1]} }

// Str of a QHTML or QStyle read; AttrOf of a QAttr read.
//
//go:noinline
func (d *Doc) Str(r Read) string { return d.res(r).s }

//go:noinline
func (d *Doc) AttrOf(r Read) (string, bool) { x := d.res(r); return x.s, x.ok }

//go:noinline
func (d *Doc) NodeOf(r Read) Node { return d.res(r).node }

//go:noinline
func (d *Doc) FlagsOf(r Read) uint16 { return d.res(r).flags }

//go:noinline
func (d *Doc) Bool(r Read) bool { return d.res(r).ok }

// Ownership is a QOwnership's answer: how many roots hold C45 before the
// first that fails, and whether a claimed source failed it rather than the
// content.
func (d *Doc) Ownership(r Read) (int, bool) { x := d.res(r); return x.n, x.ok }

//go:noinline
func (d *Doc) ChildrenOf(r Read) []Child { return d.res(r).children }

// ChangedChildrenOf decodes a QChildrenIfChanged read: changed false means
// nobody touched them.
//
//go:noinline
func (d *Doc) ChangedChildrenOf(r Read) ([]Child, bool) { x := d.res(r); return x.children, x.ok }

//go:noinline
func (d *Doc) HostRectOf(r Read) (Rect, bool) { x := d.res(r); return Rect{x.f[0], x.f[1]}, x.ok }

// ---- reads that sync at once (cold paths) ----

//go:noinline
func (d *Doc) Scroll(n Node) float64 { r := d.QScroll(n); d.Sync(); return d.F(r, 0) }

// ScrollView is scrollTop, clientHeight and scrollHeight, read now (no
// computed style).
//
//go:noinline
func (d *Doc) ScrollView(n Node) View {
	r := d.QScroll(n)
	d.Sync()
	return View{S: d.F(r, 0), H: d.F(r, 1), ScrollHeight: d.F(r, 2)}
}

// View is the root's scroll offset, height and metrics, read now (C80).
type View struct {
	S, H, ScrollHeight, PadTop, PadBottom, Gap float64
}

//go:noinline
func (d *Doc) View(root Node) View {
	r := d.QView(root)
	d.Sync()
	return d.ViewOf(r)
}

// ViewOf decodes a QView read; non-finite lengths count as 0 (C2).
//
//go:noinline
func (d *Doc) ViewOf(r Read) View {
	x := d.res(r).f
	return View{S: x[0], H: finite(x[1]), ScrollHeight: x[2], PadTop: finite(x[3]), PadBottom: finite(x[4]), Gap: finite(x[5])}
}

//go:noinline
func (d *Doc) Rect(n Node) Rect { r := d.QRect(n); d.Sync(); return d.RectOf(r) }

//go:noinline
func (d *Doc) HTML(n Node) string {
	r := d.QHTML(n)
	d.Sync()
	return d.Str(r)
}

//go:noinline
func (d *Doc) Style(n Node, prop uint16) string { r := d.QStyle(n, prop); d.Sync(); return d.Str(r) }

//go:noinline
func (d *Doc) Query(n Node, s Selector) Node { r := d.QQuery(n, s); d.Sync(); return d.NodeOf(r) }

//go:noinline
func (d *Doc) Children(n Node) []Child { r := d.QChildren(n); d.Sync(); return d.ChildrenOf(r) }

// Parent is n's parent: 0 when none, Unregistered when not one of the
// core's nodes.
//
//go:noinline
func (d *Doc) Parent(n Node) Node { r := d.QNode(n); d.Sync(); return d.NodeOf(r) }
