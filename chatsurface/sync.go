package chatsurface

// syncJS is the host's view of the bridge: every call out to JavaScript
// first applies the pending DOM batch, so hooks, processors, host callbacks
// and the host's scheduler always see the DOM the core has decided (a batch
// of node-id releases only waits for the next one: Doc.syncForJS).
type syncJS struct {
	_   noCompare
	doc *Doc
	js  Callbacks
	pc  ProcessorCallbacks // nil when the bridge runs no processors
}

func newSyncJS(doc *Doc, js Callbacks) *syncJS {
	s := &syncJS{doc: doc, js: js}
	s.pc, _ = js.(ProcessorCallbacks)
	return s
}

func (s *syncJS) PrepareContent(hook Ref, mesid int, content Node, claims ClaimsID) (Return, *JSValue) {
	s.doc.syncForJS()
	return s.js.PrepareContent(hook, mesid, content, claims)
}
func (s *syncJS) Connected(hook Ref, mesid int, element, content Node, signal Signal) (Return, *JSValue) {
	s.doc.syncForJS()
	return s.js.Connected(hook, mesid, element, content, signal)
}
func (s *syncJS) Activate(fn Ref, source Node, mesid int, element, content Node, signal Signal) (Return, *JSValue) {
	s.doc.syncForJS()
	return s.js.Activate(fn, source, mesid, element, content, signal)
}
func (s *syncJS) Dispose(d Ref) (Return, *JSValue) { s.doc.syncForJS(); return s.js.Dispose(d) }
func (s *syncJS) Release(r Ref)                    { s.js.Release(r) }
func (s *syncJS) Messages(room []MessageID) Pass {
	s.doc.syncForJS()
	return s.js.Messages(room)
}
func (s *syncJS) MessageAt(i int) (MessageID, *JSValue) {
	s.doc.syncForJS()
	return s.js.MessageAt(i)
}
func (s *syncJS) Count() (int, *JSValue) { s.doc.syncForJS(); return s.js.Count() }
func (s *syncJS) Materialize(msg MessageID, mesid int, html bool) (Materialized, *JSValue) {
	s.doc.syncForJS()
	return s.js.Materialize(msg, mesid, html)
}
func (s *syncJS) FormatMessage(msg MessageID, mesid int) (string, *JSValue) {
	s.doc.syncForJS()
	return s.js.FormatMessage(msg, mesid)
}

// Signals are created lazily (Lease.Signal) and aborting one runs JS
// listeners, so these sync too.
func (s *syncJS) NewSignal() Signal { return s.js.NewSignal() }
func (s *syncJS) Abort(sig Signal, reason string) {
	s.doc.syncForJS()
	s.js.Abort(sig, reason)
}
func (s *syncJS) ReleaseSignal(sig Signal) { s.js.ReleaseSignal(sig) }
func (s *syncJS) OnFault(f error)          { s.doc.syncForJS(); s.js.OnFault(f) }

// ProcessorCallbacks.
func (s *syncJS) SameVersion(msg MessageID, mesid int, req Signal) (bool, *JSValue) {
	s.doc.syncForJS()
	return s.pc.SameVersion(msg, mesid, req)
}
func (s *syncJS) VersionChanged(req Signal) (bool, *JSValue) {
	s.doc.syncForJS()
	return s.pc.VersionChanged(req)
}
func (s *syncJS) AdoptVersion(req Signal) { s.pc.AdoptVersion(req) }
func (s *syncJS) CurrentVersion(msg MessageID, mesid int, req Signal) (bool, bool, *JSValue) {
	s.doc.syncForJS()
	return s.pc.CurrentVersion(msg, mesid, req)
}
func (s *syncJS) NewRequest(msg MessageID, mesid int) Signal { return s.pc.NewRequest(msg, mesid) }
func (s *syncJS) VersionedRequest(msg MessageID, mesid int) (Signal, *JSValue) {
	s.doc.syncForJS()
	return s.pc.VersionedRequest(msg, mesid)
}
func (s *syncJS) CallProcessor(token Token, prepare Ref, msg MessageID, mesid int, signal Signal) {
	s.doc.syncForJS()
	s.pc.CallProcessor(token, prepare, msg, mesid, signal)
}
func (s *syncJS) SettleBase(token Token, html string, err error) {
	s.doc.syncForJS()
	s.pc.SettleBase(token, html, err)
}
func (s *syncJS) SettleBaseHeld(token, from Token) {
	s.doc.syncForJS()
	s.pc.SettleBaseHeld(token, from)
}
func (s *syncJS) HeldText(from Token) string { return s.pc.HeldText(from) }
func (s *syncJS) AbortRequest(sig Signal)    { s.doc.syncForJS(); s.pc.AbortRequest(sig) }
func (s *syncJS) Settle(w Wait, emit bool, err error) {
	s.doc.syncForJS()
	s.pc.Settle(w, emit, err)
}

// syncSched does the same for the host's scheduler functions.
type syncSched struct {
	_   noCompare
	doc *Doc
	s   Scheduler
}

func (s syncSched) RequestFrame() (int, *JSValue) { s.doc.syncForJS(); return s.s.RequestFrame() }
func (s syncSched) CancelFrame(id int) *JSValue   { s.doc.syncForJS(); return s.s.CancelFrame(id) }
func (s syncSched) SetTimeout(ms float64) (int, *JSValue) {
	s.doc.syncForJS()
	return s.s.SetTimeout(ms)
}
func (s syncSched) ClearTimeout(id int) *JSValue { s.doc.syncForJS(); return s.s.ClearTimeout(id) }
