//go:build js && wasm

package main

import (
	"syscall/js"
	"unsafe"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/protocol"
	"tavern-core/takeover"
	"tavern-core/takeover/editops"
)

// The editor ops (js/editor-ops.js). The facade reads the handle's current
// value (the handle's slot for a core handle, getText()/getReasoning() for
// a duck-typed one), encodes the op's arguments, and applies the returned
// pieces with one setText/setReasoning through the handle itself, so the
// continue invariant, state errors and onUpdate follow the handle's rules.

// opsEdge reaches the value the facade holds for the running op.
type opsEdge struct{ units, indexOf, read, find js.Value }

var opsFx opsEdge

func newOpsEdge(fx js.Value) {
	opsFx = opsEdge{units: fx.Get("units"), indexOf: fx.Get("indexOf"), read: fx.Get("read"), find: fx.Get("find")}
}

// jsBuffer is the op's current value, held by the facade; content is
// copied in only when the op asks (editops.Buffer), searches can run on
// the JS string itself (editops.Indexer), and the section layout reads it
// a few units at a time (editops.Reader).
type jsBuffer struct{ n int }

// addrOf is where u sits in linear memory: the facade writes into it, or
// reads a needle from it, directly (never the shared buffer, which may hold
// the call's arguments).
func addrOf(u []uint16) uint32 { return uint32(uintptr(unsafe.Pointer(&u[0]))) }

func (b jsBuffer) ReadUnits(from int, dst []uint16) {
	if len(dst) > 0 {
		opsFx.read.Invoke(from, len(dst), addrOf(dst))
	}
}

func (b jsBuffer) IndexUnits(needle []uint16, from int) int {
	return opsFx.find.Invoke(addrOf(needle), len(needle), from).Int()
}

// catchUp tells the kept layout about the deltas the facade appended on its
// own under a permit (Edit.Permit): lag units appended since version
// lagFrom make the layout stand for version ver. Their content cannot
// matter (Sections.AppendPlain), so only their length crosses. The facade
// sends a lag only when nothing else wrote the reasoning in between.
func catchUp(h *takeover.Handle, lagFrom, ver float64, lag int) {
	k, ok := h.OpsState.(*keptSections)
	if !ok || lag <= 0 || k.ver != lagFrom {
		return
	}
	k.s.AppendPlain(lag)
	k.ver = ver
}

// keptBuffer is the reasoning of an open core handle: its section layout
// is kept on the handle between ops (editops.SectionKeeper), tagged with
// the facade's count of reasoning writes, so any other write makes it
// stale and the next op lays the text out afresh.
type keptBuffer struct {
	_ noCompare // never compared: editops.Buffer values are not
	jsBuffer
	h   *takeover.Handle
	ver float64
}

type keptSections struct {
	_   noCompare
	ver float64
	s   *editops.Sections
}

// kept returns h's layout for reasoning version ver, or nil.
func kept(h *takeover.Handle, ver float64) *editops.Sections {
	if k, ok := h.OpsState.(*keptSections); ok && k.ver == ver {
		return k.s
	}
	return nil
}

func (b keptBuffer) KeptSections() *editops.Sections {
	if s := kept(b.h, b.ver); s != nil && s.Len() == b.n {
		return s
	}
	return nil
}

// Keep records the layout for the version the op's write will make (the
// facade counts that write), or for this one after a no-op.
func (b keptBuffer) Keep(s *editops.Sections, written bool) {
	ver := b.ver
	if written {
		ver++
	}
	if k, ok := b.h.OpsState.(*keptSections); ok { // no allocation per op
		k.ver, k.s = ver, s
		return
	}
	b.h.OpsState = &keptSections{ver: ver, s: s}
}

func (b jsBuffer) Len() int { return b.n }

func (b jsBuffer) Units() []uint16 {
	bridge.Reserve(b.n)
	m := opsFx.units.Invoke(b.n, bridge.Addr()).Int()
	out := make([]uint16, m)
	copy(out, bridge.Buf())
	return out
}

func (b jsBuffer) IndexOf(sub jsvalue.Value, from int) int {
	return opsFx.indexOf.Invoke(sub.Ref, from).Int()
}

func readPatch(d *bridge.Decoder) editops.Patch {
	var p editops.Patch
	for _, f := range p.Fields() {
		*f, _ = d.Value()
	}
	return p
}

func value(d *bridge.Decoder) jsvalue.Value { v, _ := d.Value(); return v }

// eo_op runs editor op `op` (protocol.OpAppendText …) on the n units the facade encoded: the handle
// kind, the current value's length, then the op's arguments. It answers
// Failed, or the length of the encoded result (encodeEdit) in the buffer.
//
//go:wasmexport eo_op
func eoOp(op, n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	var d bridge.Decoder
	d.Reset(bridge.Buf(), int(n))
	kind := editops.HandleKind(d.Unit())
	buf := jsBuffer{n: int(d.F64())}
	ref, ver := int32(d.F64()), d.F64() // an open core handle's id and reasoning version, or 0
	lagFrom, lag := d.F64(), int(d.F64())
	reasoning := editops.Buffer(buf)
	if h := kernel.Get(ref); kind == editops.CoreHandle && h != nil {
		catchUp(h, lagFrom, ver, lag)
		reasoning = keptBuffer{jsBuffer: buf, h: h, ver: ver}
	}
	var edit editops.Edit
	var err *apierr.Error
	switch op {
	case protocol.OpAppendText:
		edit, err = editops.AppendText(kind, buf, value(&d))
	case protocol.OpAppendReasoning:
		edit, err = editops.AppendReasoning(kind, buf, value(&d))
	case protocol.OpInsertAt:
		off := value(&d)
		edit, err = editops.InsertAt(kind, buf, off, value(&d))
	case protocol.OpReplaceRange:
		start, end := value(&d), value(&d)
		edit, err = editops.ReplaceRange(kind, buf, start, end, value(&d))
	case protocol.OpDeleteRange:
		start := value(&d)
		edit, err = editops.DeleteRange(kind, buf, start, value(&d))
	case protocol.OpApplyPatch:
		// The list's length, then the entries the facade read (at most
		// editops.MaxPatchEntries), decoded one at a time as they apply.
		total := d.F64()
		n := d.Count()
		// A context_replace reads the text into the shared buffer
		// (jsBuffer.Units) while later entries are still to be decoded.
		d.Own()
		if !(total > float64(n) && total <= 1<<53) {
			total = float64(n)
		}
		edit, err = editops.ApplyPatches(kind, buf, n, int(total), func(p *editops.Patch) { *p = readPatch(&d) })
	case protocol.OpPatchBySemantic:
		edit, err = editops.PatchBySemantic(kind, buf, readPatch(&d))
	case protocol.OpEnsureSection:
		id, status := value(&d), value(&d)
		edit, err = editops.EnsureReasoningSection(kind, reasoning, id, status, value(&d))
	case protocol.OpAppendToSection:
		id := value(&d)
		edit, err = editops.AppendToReasoningSection(kind, reasoning, id, value(&d))
	case protocol.OpMarkSection:
		id := value(&d)
		edit, err = editops.MarkReasoningSectionStatus(kind, reasoning, id, value(&d))
	case protocol.OpCheckPipe:
		var a editops.PipeArgs
		a.Opts, a.Mode, a.Signal = value(&d), value(&d), value(&d)
		a.SignalIsAbort, a.StreamIterable = d.Unit() == 1, d.Unit() == 1
		mode, err := editops.CheckPipe(kind, a)
		if err != nil {
			return bridge.Fail(err)
		}
		return int32(mode)
	case protocol.OpClassifyChunk:
		v, typ := value(&d), value(&d)
		return int32(editops.ClassifyChunk(v, typ, value(&d)))
	default:
		panic("editops: unknown op")
	}
	if err != nil {
		return bridge.Fail(err)
	}
	return encodeEdit(buf.n, edit)
}

var editEnc bridge.Encoder

// encodeEdit writes: target, noop flag, the append flag (the edit is one
// insertion at the end: the facade appends through the handle's own fast
// path), the split (Edit.Split), piece count (f64), pieces as
// (source+1, from, to) numbers where source 0 is the value before the
// edit, then each splice's inserted text (a ref back to the argument when
// it is one). The facade concatenates the pieces: O(n + k), and an append
// stays a rope.
func encodeEdit(n int, e editops.Edit) int32 {
	editEnc.Reset()
	editEnc.Unit(uint16(e.Buf))
	if e.Noop {
		editEnc.Unit(1)
		return bridge.Write(editEnc.Out())
	}
	editEnc.Unit(0)
	appends := len(e.Splices) == 1 && e.Splices[0].Start == n && e.Splices[0].End == n
	editEnc.Unit(boolUnit(appends))
	editEnc.F64(float64(e.Split))
	editEnc.Unit(boolUnit(e.Permit))
	pieces := editops.Pieces(n, e.Splices)
	editEnc.F64(float64(len(pieces)))
	for _, p := range pieces {
		editEnc.F64(float64(p.Src + 1))
		editEnc.F64(float64(p.From))
		editEnc.F64(float64(p.To))
	}
	editEnc.F64(float64(len(e.Splices)))
	for _, s := range e.Splices {
		editEnc.Value(s.Ins)
	}
	return bridge.Write(editEnc.Out())
}

// eo_append is appendText (field 0) and appendReasoning (field 1) on a core
// handle in one crossing: the facade has stored the current value plus the
// argument (of JS kind; n units when a string); Go checks the argument
// (O7), then judges the write (Handle.CheckAppend). It answers as tk_set.
//
//go:wasmexport eo_append
func eoAppend(id, field, kind, n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	if err := editops.CheckAppendArg(editops.Target(field), jsvalue.Kind(kind)); err != nil {
		return bridge.Fail(err)
	}
	return appendWrite(handle(id), &st)
}

// eo_section_append is appendToReasoningSection's streaming case on an open
// core handle (editops.AppendAtEnd): the facade has encoded the id, the
// delta, a lag (as eo_op) and `at`, where it inserted the delta (its cut,
// or the end), and already stored the result (a speculation it takes back
// unless the answer is a write status); it holds the value before that
// store for the layout's reads. ver is the reasoning version before the
// store. It answers as tk_set plus protocol.SectionPermit and the next
// cut's offset into the delta (protocol.SectionSplitShift), or
// protocol.SectionNoop or SectionFallback.
//
//go:wasmexport eo_section_append
func eoSectionAppend(id int32, ver float64, n int32) (st int32) {
	if !bridge.Enter() {
		return bridge.Failed
	}
	defer bridge.Exit(&st)
	h := kernel.Get(id)
	if h == nil {
		return protocol.SectionFallback
	}
	var d bridge.Decoder
	d.Reset(bridge.Buf(), int(n))
	// Views, not copies: AppendAtEnd copies the delta into the layout, and
	// an error's details name the arguments by their refs.
	sid, _ := d.View()
	delta, _ := d.View()
	lagFrom, lag := d.F64(), int(d.F64())
	at := int(d.F64())
	catchUp(h, lagFrom, ver, lag)
	s := kept(h, ver)
	if s != nil && len(delta.Str) > protocol.MaxSectionSplit {
		s = nil // the answer could not carry the split
	}
	b := keptBuffer{h: h, ver: ver}
	if s != nil {
		b.n = s.Len()
	}
	fast, err := editops.AppendAtEnd(s, b, sid, delta, at)
	switch {
	case err != nil:
		return bridge.Fail(err)
	case fast.Fast == editops.FastNoop:
		return protocol.SectionNoop
	case fast.Fast == editops.FastNo:
		return protocol.SectionFallback
	}
	b.Keep(s, true) // the handle is open: the write below stands
	w := appendWrite(h, &st)
	if w >= 0 {
		w |= int32(fast.Split-at) << protocol.SectionSplitShift
		if fast.Permit {
			w |= protocol.SectionPermit
		}
	}
	return w
}
