package chatsurface

import "tavern-core/jsvalue"

// Content processors (C113–C132). A processor is a JS prepare(ctx,
// renderBase) function; Go owns every decision around it (chain order,
// renderBase memoisation, the base, the queue, the cache, aborts, error
// wrapping, waiting Promises) and the bridge only calls functions and wires
// Promises:
//
//   - Go starts one layer of a request with ProcessorCallbacks.CallProcessor(
//     token, …). The bridge calls prepare(ctx, renderBase); ctx is one frozen
//     {message, mesid, signal} per request (memoise it by signal, C116).
//   - renderBase() calls Host.RenderBase(token) every time. On the first call
//     for a token (it returns true) the bridge creates a Promise for the token
//     and returns it, later calls return that identical Promise; Go settles it
//     with ProcessorCallbacks.SettleBase, possibly before RenderBase returns.
//   - prepare's Promise settles into Host.ProcessorDone(token, value) or
//     Host.ProcessorFailed(token, thrown); a string the bridge keeps for the
//     length of the call settles into Host.ProcessorDoneHeld(token) instead:
//     an inner layer's HTML then goes to the layer outside it without
//     crossing (SettleBaseHeld), and only the outermost layer's crosses, once
//     (HeldText), for the cache.
//   - Promises of render()/open(), finishContent and refresh() are created by
//     the bridge with a Wait id and settled by ProcessorCallbacks.Settle.

// Processor is a registered content processor: its untrimmed id and prepare.
type Processor struct {
	_       noCompare
	ID      string
	Prepare Ref
}

// Token names one processor call: one layer of one request.
type Token int32

// Wait names a Promise the bridge created and Go settles (C129–C131).
type Wait int32

// ProcessorCallbacks is the part of the bridge content processors need. The
// Callbacks value of a host implements it when the bridge supports
// processors; without it no processor can run (and none can be registered
// through the bridge).
type ProcessorCallbacks interface {
	// C121's versions (JSON of a message's fields) are the bridge's: it
	// computes a request's when the request is made and keeps it with the
	// request's message object; Go only asks whether a later read equals
	// it, so a message's text never crosses for a comparison.
	//
	// SameVersion reports whether the version of the object at mesid now
	// equals request req's (C122: may req's cache entry serve?). A
	// NewRequest for the same message that follows keeps the version read.
	SameVersion(msg MessageID, mesid int, req Signal) (bool, *JSValue)
	// VersionChanged reports whether the version of request req's own
	// object now differs from req's (C117: a processor changed the raw
	// message before renderBase); AdoptVersion makes that new read req's
	// version, once the base has been formatted afresh for it.
	VersionChanged(req Signal) (bool, *JSValue)
	AdoptVersion(req Signal)
	// CurrentVersion is C125's last test (the object msg is still at mesid
	// in chat[]; a throw of getMessages means it is not) and, only when it
	// holds, whether request req's object still has req's version: one
	// crossing where a settling layer needs both (C119).
	CurrentVersion(msg MessageID, mesid int, req Signal) (current, same bool, thrown *JSValue)
	// NewRequest creates a request's AbortController and holds its message
	// object for the processors (C116) until ReleaseSignal, with the version
	// SameVersion last read for that message.
	NewRequest(msg MessageID, mesid int) Signal
	// VersionedRequest reads the version of the object at mesid and, when
	// that did not throw, makes a request that keeps it (as NewRequest), in
	// one crossing: C122 starts a request whatever the version when no
	// entry can be used.
	VersionedRequest(msg MessageID, mesid int) (Signal, *JSValue)
	// CallProcessor calls prepare(ctx, renderBase) for one layer; its
	// outcome comes back as Host.ProcessorDone or Host.ProcessorFailed.
	CallProcessor(token Token, prepare Ref, msg MessageID, mesid int, signal Signal)
	// SettleBase resolves (err nil) or rejects the Promise renderBase()
	// returned for token.
	SettleBase(token Token, html string, err error)
	// SettleBaseHeld resolves token's renderBase() Promise with the string
	// the bridge keeps as layer from's result (ProcessorDoneHeld, during
	// that call only); HeldText reads that string.
	SettleBaseHeld(token, from Token)
	HeldText(from Token) string
	// AbortRequest aborts a request's signal with an AbortError (C126).
	AbortRequest(s Signal)
	// Settle settles a waiting Promise: err non-nil rejects with it; else,
	// when emit is true, the bridge calls and awaits emit(event, mesid,
	// ...args) of the finishContent call first (C131); then it fulfils.
	Settle(w Wait, emit bool, err error)
}

// RegisterContentProcessor is registerContentProcessor(definition) (C113).
// id and prepare are definition.id and definition.prepare (Undefined when
// the definition is null or not an object). It returns the processor's index.
func (p *Page) RegisterContentProcessor(id, prepare Value) (int, error) {
	if p.contentStarted {
		return 0, newError(CodeRegistration, "ChatSurface content processors must register before the first projection")
	}
	if id.Kind != jsvalue.String || jsTrim(id.Str) == "" || prepare.Kind != jsvalue.Function {
		return 0, newTypeError(CodeRegistration, "ChatSurface content processor requires an id and prepare function")
	}
	for _, q := range p.processors {
		if q.ID == id.Str {
			return 0, newError(CodeRegistration, "ChatSurface content processor already registered: "+id.Str)
		}
	}
	p.processors = append(p.processors, &Processor{ID: id.Str, Prepare: prepare.Func})
	return len(p.processors) - 1, nil
}

// Processors returns the registered processors, outermost first (C115).
func (p *Page) Processors() []*Processor { return p.processors }

// ContentStarted reports whether content preparation started (C114).
func (p *Page) ContentStarted() bool { return p.contentStarted }

// Host is the live (created, not disposed) host, or nil: refresh() of a
// processor registration acts on it (C129).
func (p *Page) Host() *Host {
	if p.host == nil || p.host.disposed {
		return nil
	}
	return p.host
}

// request is one processing of one message object: its cache entry (C122).
type request struct {
	msg      MessageID
	mesid    int
	base     string // formatted for the request's version, which the bridge keeps (C117)
	signal   Signal
	layers   []layer // one allocation per request: its room is the chain's length
	aborted  bool
	settled  bool // the chain settled, or it was skipped (C126)
	done     bool // result holds a committed-worthy result
	failed   bool
	result   string
	err      error
	waiters  []*waiter
	released bool
}

type layer struct {
	req     *request
	i       int
	token   Token
	based   bool // renderBase was called
	settled bool
}

// waiter is one Promise waiting for requests (C129–C131): n counts the
// requests still outstanding plus one guard while it is being set up.
type waiter struct {
	_     noCompare
	w     Wait
	n     int
	emit  bool
	msg   MessageID
	mesid int
	fired bool
}

type processorState struct {
	cache     map[MessageID]*request
	queue     []*request // waiting for their turn, start order (C120)
	running   *request   // the request whose chain holds the queue
	tokens    map[Token]*layer
	nextToken Token
	pumping   bool
}

func (h *Host) pcb() ProcessorCallbacks {
	if h.js.pc == nil {
		return nil
	}
	return h.js
}

func (h *Host) processing() bool { return len(h.page.processors) > 0 && h.pcb() != nil }

// prepared is C122's decision for content that holds the host-formatted
// HTML: ready (prepared) or pending (emptied and busy, C124), and, for a
// cached result, the HTML that replaces it.
type prepared struct {
	ready  bool
	cached bool
	result string
}

// write makes node hold what p decided: a cached result without aria-busy,
// or nothing with aria-busy="true" while pending; ready content is kept.
func (p prepared) write(d *Doc, node Node) {
	if html, busy := p.content(""); busy != 0 {
		d.SetHTML(node, html)
		setBusy(d, node, busy)
	}
}

// content is what p makes of content whose formatted HTML is html: the
// HTML to hold and its aria-busy (-1 removed, 1 "true", 0 kept, in which
// case html is kept too).
func (p prepared) content(html string) (string, int8) {
	switch {
	case p.cached:
		return p.result, -1
	case !p.ready:
		return "", 1 // pending (C124)
	}
	return html, 0
}

// setBusy applies an aria-busy decision of content.
func setBusy(d *Doc, node Node, busy int8) {
	switch busy {
	case -1:
		d.RemoveAttr(node, NameAriaBusy)
	case 1:
		d.SetAttr(node, NameAriaBusy, "true")
	}
}

// processContent is C122 for content whose host-formatted HTML is html
// (normalised). It decides whether the content is prepared and queues the
// request when one must run; the caller writes the decision (prepared.write).
func (h *Host) processContent(msg MessageID, mesid int, html string) (prepared, error) {
	if !h.processing() {
		return prepared{ready: true}, nil
	}
	p := &h.proc
	e := p.cache[msg]
	usable := e != nil && !e.aborted && !e.failed
	var sig Signal
	var same bool
	var thrown *JSValue
	if usable {
		same, thrown = h.pcb().SameVersion(msg, mesid, e.signal)
	} else { // a new request whatever the version: one crossing for both
		sig, thrown = h.pcb().VersionedRequest(msg, mesid)
	}
	if thrown != nil {
		return prepared{}, thrown
	}
	if usable && same && e.base == html {
		if e.done {
			return prepared{ready: true, cached: true, result: e.result}, nil
		}
		if e.mesid == mesid {
			return prepared{}, nil
		}
	}
	if e != nil {
		h.abortRequest(e)
		h.dropEntry(e)
	}
	if sig == 0 {
		sig = h.pcb().NewRequest(msg, mesid)
	}
	req := &request{msg: msg, mesid: mesid, base: html, signal: sig,
		layers: make([]layer, 0, len(h.page.processors))}
	p.cache[msg] = req
	p.queue = append(p.queue, req)
	return prepared{}, nil
}

// abortRequest aborts a request that has not settled (C126). A running
// request stops holding the queue: an aborted request never blocks it (C120).
func (h *Host) abortRequest(req *request) {
	if req.aborted || req.settled {
		return
	}
	req.aborted = true
	h.pcb().AbortRequest(req.signal)
	if h.proc.running == req {
		h.proc.running = nil
	}
}

// dropEntry removes a request from the cache, releasing its signal once
// nothing can reach it.
func (h *Host) dropEntry(req *request) {
	if h.proc.cache[req.msg] == req {
		delete(h.proc.cache, req.msg)
	}
	if req.settled && !req.released {
		req.released = true
		h.js.ReleaseSignal(req.signal)
	}
}

// pending is every request that has not settled and is not aborted:
// the running one, then the queue, in start order.
func (h *Host) pendingRequests() []*request {
	var out []*request
	if r := h.proc.running; r != nil && !r.aborted {
		out = append(out, r)
	}
	for _, r := range h.proc.queue {
		if !r.aborted {
			out = append(out, r)
		}
	}
	return out
}

// abortMoved is commit phase 1: abort requests whose object is no longer
// at their mesid in the structure (C33, C126).
func (h *Host) abortMoved() {
	if h.pcb() == nil {
		return
	}
	for _, req := range h.pendingRequests() {
		if req.mesid >= len(h.ids) || h.ids[req.mesid] != req.msg {
			h.abortRequest(req)
		}
	}
}

// abortAll aborts every pending request and clears the cache (reset step 1,
// refresh() step 1).
func (h *Host) abortAll() {
	if h.pcb() == nil {
		return
	}
	for _, req := range h.pendingRequests() {
		h.abortRequest(req)
	}
	for _, req := range h.proc.cache {
		h.dropEntry(req)
	}
	clear(h.proc.cache)
}

// dropAborted settles, as not current (C126), the requests a disposal
// aborted while their processors still run: nothing reaches a disposed
// host, so their waiting Promises (open, finishContent) fulfil now, and
// their signals and layers are let go (C112, C130).
func (h *Host) dropAborted() {
	for t, l := range h.proc.tokens {
		delete(h.proc.tokens, t)
		h.finish(l.req, "", nil, currentNo)
	}
}

// abortTransient aborts the request of an object marked transient (C55).
func (h *Host) abortTransient(msg MessageID) {
	if req := h.proc.cache[msg]; req != nil && !req.settled {
		h.abortRequest(req)
	}
}

// pump starts queued requests while the queue is free (C120). A request
// already aborted when its turn comes is skipped and settles then.
//
// Requests whose message is mounted go first, in start order, then the
// others (a deviation from C120's one start order, docs/decisions.md):
// after a fast scroll the queue holds a request for every message scrolled
// past (unmounting does not abort one, C126), and the messages on screen
// stayed empty and busy behind all of them.
func (h *Host) pump() {
	p := &h.proc
	if p.pumping || h.pcb() == nil {
		return
	}
	p.pumping = true
	defer func() { p.pumping = false }()
	for p.running == nil && len(p.queue) > 0 {
		i := 0
		for j, r := range p.queue {
			if r.aborted || h.disposed || h.onScreen(r) {
				i = j
				break
			}
		}
		req := p.queue[i]
		if i == 0 {
			p.queue[0] = nil
			p.queue = p.queue[1:]
		} else {
			n := copy(p.queue[i:], p.queue[i+1:])
			p.queue[i+n] = nil
			p.queue = p.queue[:i+n]
		}
		if req.aborted || h.disposed {
			h.finish(req, "", nil, currentNo) // aborted or disposed: not current
			continue
		}
		p.running = req
		h.startLayer(req, 0)
	}
	if len(p.queue) == 0 {
		p.queue = nil
	}
}

// onScreen reports whether req's message is mounted at the request's mesid.
func (h *Host) onScreen(req *request) bool {
	r := h.residencyAt(req.mesid)
	return r != nil && r.msg == req.msg
}

func (h *Host) startLayer(req *request, i int) {
	p := &h.proc
	p.nextToken++
	// Within its room (the chain's length) no append moves the layers the
	// token table points to.
	req.layers = append(req.layers, layer{req: req, i: i, token: p.nextToken})
	l := &req.layers[len(req.layers)-1]
	p.tokens[l.token] = l
	h.pcb().CallProcessor(l.token, h.page.processors[i].Prepare, req.msg, req.mesid, req.signal)
}

// RenderBase is renderBase() of the processor call token (C115, C117). It
// returns true on the first call for the token, when the bridge must create
// the Promise it then returns on every call; false means "return the Promise
// made before" (or, for an unknown token, an inert call). The first call
// starts the next processor, or, after the last, settles with the base.
func (h *Host) RenderBase(token Token) bool {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	l := h.proc.tokens[token]
	if l == nil || l.based {
		return false
	}
	l.based = true
	req := l.req
	if l.i+1 < len(h.page.processors) {
		h.startLayer(req, l.i+1)
		return true
	}
	pc := h.pcb()
	changed, thrown := pc.VersionChanged(req.signal)
	if thrown != nil {
		pc.SettleBase(token, "", thrown)
		return true
	}
	if changed {
		// A processor changed the raw message before calling renderBase:
		// the base is formatted afresh (C117), for the new version.
		html, thrown := h.js.FormatMessage(req.msg, req.mesid)
		if thrown != nil {
			pc.SettleBase(token, "", thrown)
			return true
		}
		req.base = h.normalize(html)
		pc.AdoptVersion(req.signal)
	}
	pc.SettleBase(token, req.base, nil)
	return true
}

// normalize is an innerHTML round trip through a detached element (C117).
func (h *Host) normalize(html string) string {
	return h.roundTrip(h.doc.Div(), html)
}

// normalizeIn is that round trip through a childless shallow clone of r's
// content, as C51 step 2 parses the host's HTML. A round trip is a function
// of the HTML and of the fragment parser's context, which is the clone's tag
// (a node's for life) and its document (a detached clone has no ancestors):
// the same HTML through the same content normalises to what it did last
// time, so that parse, its clone and its crossing are skipped. refresh()
// re-formats every mounted message to the HTML it had (docs/chatsurface.md,
// "Normalising the same HTML once").
func (h *Host) normalizeIn(r *residency, html string) string {
	if r.normed && r.raw == html {
		return r.norm
	}
	out := h.roundTrip(h.doc.Clone(r.content), html)
	r.raw, r.norm, r.normed = html, out, true
	return out
}

func (h *Host) roundTrip(n Node, html string) string {
	h.doc.SetHTML(n, html)
	out := h.doc.HTML(n)
	h.doc.Release(n)
	return out
}

// ProcessorDone delivers the fulfilment value of the processor call token.
// A string must hold the HTML; any other type fails C118.
func (h *Host) ProcessorDone(token Token, v Value) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	l := h.proc.tokens[token]
	if l == nil || l.settled {
		return
	}
	if v.Kind != jsvalue.String {
		h.layerFailed(l, newTypeError(CodeProcessor, "prepare must return an HTML string"), currentAsk)
		return
	}
	h.layerDone(l, layerHTML{s: v.Str})
}

// ProcessorDoneHeld is ProcessorDone for a string result the bridge keeps
// while this call runs (ProcessorCallbacks.SettleBaseHeld, HeldText).
func (h *Host) ProcessorDoneHeld(token Token) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	l := h.proc.tokens[token]
	if l == nil || l.settled {
		return
	}
	h.layerDone(l, layerHTML{held: token})
}

// layerHTML is a layer's HTML: its text, or the token of the layer whose
// result the bridge keeps (held non-zero).
type layerHTML struct {
	s    string
	held Token
}

// layerDone is C119's check of a layer that fulfilled with HTML, then its
// settlement.
func (h *Host) layerDone(l *layer, html layerHTML) {
	req := l.req
	cur, same, thrown := false, false, (*JSValue)(nil)
	if h.currentHere(req) {
		cur, same, thrown = h.pcb().CurrentVersion(req.msg, req.mesid, req.signal)
	}
	// No JS runs between this read and finish's C125 test (the outermost
	// layer settles the request at once), so finish takes its answer.
	known := currentNo
	if cur {
		known = currentYes
	}
	switch {
	case cur && thrown != nil:
		h.layerFailed(l, thrown, known)
	case cur && !same: // C119
		h.layerFailed(l, newError(CodeProcessor, "ChatSurface content processor "+
			h.page.processors[l.i].ID+" changed message "+itoa(req.mesid)+" after renderBase"), known)
	default:
		h.settleLayer(l, html, nil, known)
	}
}

// What a caller of finish knows of C125's test: nothing (finish asks
// chat[]), or its answer read with no JS run since.
const (
	currentAsk = iota
	currentYes
	currentNo
)

// ProcessorFailed delivers the rejection (or synchronous throw) of the
// processor call token.
func (h *Host) ProcessorFailed(token Token, thrown *JSValue) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	l := h.proc.tokens[token]
	if l == nil || l.settled {
		return
	}
	h.layerFailed(l, thrown, currentAsk)
}

// layerFailed wraps a layer's failure with the processor id and mesid (C118).
func (h *Host) layerFailed(l *layer, cause error, known int) {
	h.settleLayer(l, layerHTML{}, causedError(CodeProcessor,
		"ChatSurface content processor "+h.page.processors[l.i].ID+" failed for message "+itoa(l.req.mesid), cause), known)
}

// settleLayer settles the outer layer's renderBase with this layer's
// outcome, or the request when this is the outermost layer (known as
// finish takes it). HTML the bridge keeps crosses only for the request's
// result.
func (h *Host) settleLayer(l *layer, html layerHTML, err error, known int) {
	l.settled = true
	delete(h.proc.tokens, l.token)
	req := l.req
	if l.i == 0 {
		if err == nil && html.held != 0 {
			html.s = h.pcb().HeldText(html.held)
		}
		h.finish(req, html.s, err, known)
		return
	}
	outer := &req.layers[l.i-1]
	if outer.settled || req.settled {
		return
	}
	if err == nil && html.held != 0 {
		h.pcb().SettleBaseHeld(outer.token, html.held)
		return
	}
	h.pcb().SettleBase(outer.token, html.s, err)
}

// current is C125: not aborted, still the cache entry, and the same object
// still at its mesid in chat[].
func (h *Host) current(req *request) bool {
	if !h.currentHere(req) {
		return false
	}
	id, thrown := h.js.MessageAt(req.mesid)
	return thrown == nil && id == req.msg
}

// currentHere is the part of current that Go knows without asking chat[].
func (h *Host) currentHere(req *request) bool {
	return !req.aborted && !h.disposed && h.proc.cache[req.msg] == req
}

// finish settles a request (C125–C127): a current success is stored and,
// when mounted, committed under content-commit; a current failure faults;
// anything else is dropped. Waiting Promises settle, and the queue moves on.
// known is C125's test when the caller read it with no JS run since.
func (h *Host) finish(req *request, html string, err error, known int) {
	if req.settled {
		return
	}
	req.settled = true
	p := &h.proc
	if p.running == req {
		p.running = nil
	}
	cur := known == currentYes
	if known == currentAsk {
		cur = h.current(req)
	}
	switch {
	case !cur:
		err = nil // C126: dropped, never written, never rejects
	case err != nil:
		req.failed, req.err = true, err
		h.setFault(err)
	default:
		req.done, req.result = true, html
		if r := h.residencyAt(req.mesid); r != nil && r.msg == req.msg && r.pending {
			err = h.contentCommit(r, req)
		}
	}
	if p.cache[req.msg] != req {
		h.dropEntry(req)
	}
	ws := req.waiters
	req.waiters = nil
	for _, w := range ws {
		h.waiterDone(w, err)
	}
	h.pump()
}

// contentCommit commits a result into a mounted pending message (C125): a
// content update labelled content-commit. On a faulted epoch it does nothing.
func (h *Host) contentCommit(r *residency, req *request) error {
	if h.fault != nil || h.disposed {
		return nil
	}
	// In managed mode no JS runs between C112a's check of the root's
	// children (C79) and this identity check, so its reads share that batch;
	// static mode's C101 absorption may close leases in between.
	var pre identity
	if h.managed {
		pre = h.queueIdentity(r)
	}
	if err := h.begin(LabelContentCommit, true); err != nil {
		return err
	}
	defer h.end()
	if h.residencyAt(r.mesid) != r { // removed by foreign code (C101)
		return nil
	}
	if pre.r == nil {
		pre = h.queueIdentity(r)
	}
	if !h.identityHolds(pre) {
		return h.fail(newError(CodeOwnership, "ChatSurface message "+itoa(r.mesid)+" DOM identity changed during content reconciliation"))
	}
	return h.swapContent(r, h.stage(r, "", prepared{ready: true, cached: true, result: req.result}, false))
}

// waiterDone counts one settled request (or the set-up guard) for w; err
// rejects it at once (the first failure wins).
func (h *Host) waiterDone(w *waiter, err error) {
	if w.fired {
		return
	}
	pc := h.pcb()
	if err != nil {
		w.fired = true
		pc.Settle(w.w, false, err)
		return
	}
	w.n--
	if w.n > 0 {
		return
	}
	w.fired = true
	emit := false
	if w.emit && w.msg != 0 && !h.disposed {
		id, thrown := h.js.MessageAt(w.mesid)
		emit = thrown == nil && id == w.msg
	}
	pc.Settle(w.w, emit, nil)
}

// watch makes w wait for the unsettled request of msg, if any. A request
// that already failed rejects w.
func (h *Host) watch(w *waiter, msg MessageID) {
	req := h.proc.cache[msg]
	switch {
	case req == nil:
	case !req.settled:
		w.n++
		req.waiters = append(req.waiters, w)
	case req.failed:
		h.waiterDone(w, req.err)
	}
}

// WaitMounted is the Promise of open() and render() (C130), called after
// the operation returned without error: w settles once the requests of all
// messages mounted now have settled, rejecting with the first failure.
func (h *Host) WaitMounted(w Wait) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.pcb() == nil {
		return
	}
	wt := &waiter{w: w, n: 1}
	if !h.disposed {
		for _, r := range h.mounted {
			if r.pending {
				h.watch(wt, r.msg)
			}
		}
	}
	h.waiterDone(wt, nil)
}

// FinishContent is finishContent(mesid, event, ...args) (C131). event says
// whether an event was given. A returned error is thrown synchronously;
// otherwise w settles later (Settle with emit true means "emit, then fulfil").
func (h *Host) FinishContent(mesid Value, w Wait, event bool) error {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed {
		return errDisposed()
	}
	m := -1
	if mesid.isInteger() && mesid.Num >= 0 && mesid.Num <= 1<<40 {
		m = int(mesid.Num)
	}
	var id MessageID
	if m >= 0 {
		var thrown *JSValue
		if id, thrown = h.js.MessageAt(m); thrown != nil {
			return h.fail(thrown)
		}
	}
	if id != 0 && h.transient[id] {
		if h.residencyAt(m) != nil {
			if _, err := h.UpdateContent(mesid, false); err != nil {
				return err
			}
		} else {
			delete(h.transient, id)
		}
	}
	wt := &waiter{w: w, n: 1, emit: event, msg: id, mesid: m}
	if id != 0 && h.pcb() != nil {
		h.watch(wt, id)
	}
	if h.pcb() == nil {
		return nil
	}
	h.waiterDone(wt, nil)
	return nil
}

// RefreshClear is refresh()'s synchronous first step (C129): every cached
// result is cleared, which aborts pending requests.
func (h *Host) RefreshClear() {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.disposed {
		return
	}
	h.abortAll()
	h.pump()
}

// RefreshApply is refresh()'s second step, run by the bridge in a later
// microtask (C129): each mounted message that is neither transient nor
// being edited is updated from chat[] and w settles once all are committed.
func (h *Host) RefreshApply(w Wait) {
	defer h.doc.Sync() // the batch this call queued reaches the DOM
	if h.pcb() == nil {
		return
	}
	wt := &waiter{w: w, n: 1}
	if !h.disposed {
		rs := append([]*residency(nil), h.mounted...)
		editing := make([]Read, len(rs))
		for i, r := range rs {
			editing[i] = h.doc.QQuery(r.root, SelEditor)
		}
		h.doc.Sync()
		skip := make([]bool, len(rs))
		for i := range rs {
			skip[i] = h.doc.NodeOf(editing[i]) != 0
		}
		for i, r := range rs {
			if h.transient[r.msg] || skip[i] {
				continue
			}
			// The number alone: UpdateContent reads no text of it (Num would
			// format it, once per mounted message).
			if _, err := h.UpdateContent(Value{Kind: jsvalue.Number, Num: float64(r.mesid)}, false); err != nil {
				h.waiterDone(wt, err)
				return
			}
			h.watch(wt, r.msg)
		}
	}
	h.waiterDone(wt, nil)
}
