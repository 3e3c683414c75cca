//go:build js && wasm

package main

import (
	"syscall/js"

	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/jsvalue"
	"tavern-core/takeover/editops"
)

// The editor ops (js/editor-ops.js). The facade reads the handle's current
// value (the handle's slot for a core handle, getText()/getReasoning() for
// a duck-typed one), encodes the op's arguments, and applies the returned
// pieces with one setText/setReasoning through the handle itself, so the
// continue invariant, state errors and onUpdate follow the handle's rules.

// Op codes shared with js/editor-ops.js.
const (
	opAppendText = iota
	opAppendReasoning
	opInsertAt
	opReplaceRange
	opDeleteRange
	opApplyPatch
	opPatchBySemantic
	opEnsureSection
	opAppendToSection
	opMarkSection
	opCheckPipe
	opClassifyChunk
)

// opsEdge reaches the value the facade holds for the running op.
type opsEdge struct{ units, indexOf js.Value }

var opsFx opsEdge

func newOpsEdge(fx js.Value) { opsFx = opsEdge{units: fx.Get("units"), indexOf: fx.Get("indexOf")} }

// jsBuffer is the op's current value, held by the facade; content is
// copied in only when the op asks (editops.Buffer), and searches can run on
// the JS string itself (editops.Indexer).
type jsBuffer struct{ n int }

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
	for _, f := range []*jsvalue.Value{&p.Entry, &p.Kind, &p.Start, &p.End, &p.Offset, &p.Text, &p.Find, &p.ReplaceWith, &p.Occurrence, &p.OldString, &p.NewString} {
		*f, _ = d.Value()
	}
	return p
}

func value(d *bridge.Decoder) jsvalue.Value { v, _ := d.Value(); return v }

// eo_op runs editor op `op` on the n units the facade encoded: the handle
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
	var edit editops.Edit
	var err *apierr.Error
	switch op {
	case opAppendText:
		edit, err = editops.AppendText(kind, buf, value(&d))
	case opAppendReasoning:
		edit, err = editops.AppendReasoning(kind, buf, value(&d))
	case opInsertAt:
		off := value(&d)
		edit, err = editops.InsertAt(kind, buf, off, value(&d))
	case opReplaceRange:
		start, end := value(&d), value(&d)
		edit, err = editops.ReplaceRange(kind, buf, start, end, value(&d))
	case opDeleteRange:
		start := value(&d)
		edit, err = editops.DeleteRange(kind, buf, start, value(&d))
	case opApplyPatch:
		entries := make([]editops.Patch, int(d.F64()))
		for i := range entries {
			entries[i] = readPatch(&d)
		}
		edit, err = editops.ApplyPatch(kind, buf, entries)
	case opPatchBySemantic:
		edit, err = editops.PatchBySemantic(kind, buf, readPatch(&d))
	case opEnsureSection:
		id, status := value(&d), value(&d)
		edit, err = editops.EnsureReasoningSection(kind, buf, id, status, value(&d))
	case opAppendToSection:
		id := value(&d)
		edit, err = editops.AppendToReasoningSection(kind, buf, id, value(&d))
	case opMarkSection:
		id := value(&d)
		edit, err = editops.MarkReasoningSectionStatus(kind, buf, id, value(&d))
	case opCheckPipe:
		var a editops.PipeArgs
		a.Opts, a.Mode, a.Signal = value(&d), value(&d), value(&d)
		a.SignalIsAbort, a.StreamIterable = d.Unit() == 1, d.Unit() == 1
		mode, err := editops.CheckPipe(kind, a)
		if err != nil {
			return bridge.Fail(err)
		}
		return int32(mode)
	case opClassifyChunk:
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

// encodeEdit writes: target, noop flag, piece count (f64), pieces as
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
