package editops

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// PipeMode is pipeFrom's mode option.
type PipeMode uint8

const (
	PipeAppend PipeMode = iota
	PipeReplace
)

// PipeArgs is what the facade learned about pipeFrom's arguments (O27).
// Mode and Signal are opts.mode and opts.signal (Undefined when opts is
// undefined or null, or lacks them).
type PipeArgs struct {
	Opts           jsvalue.Value
	Mode           jsvalue.Value
	Signal         jsvalue.Value
	SignalIsAbort  bool // Signal is an AbortSignal
	StreamIterable bool // stream has a callable Symbol.asyncIterator or Symbol.iterator
}

// CheckPipe validates pipeFrom's arguments in O27's order: handle, opts,
// mode, signal, stream. The facade turns an error into a rejection (O26).
func CheckPipe(h HandleKind, a PipeArgs) (PipeMode, *apierr.Error) {
	if err := checkHandle(h); err != nil {
		return 0, err
	}
	switch a.Opts.Kind {
	case jsvalue.Undefined, jsvalue.Null, jsvalue.Object:
	default:
		return 0, invalid(ReasonNotAnObject, typeofMsg("pipeFrom: opts must be an object, got ", a.Opts))
	}
	mode := PipeAppend
	switch {
	case a.Mode.Kind == jsvalue.Undefined:
	case a.Mode.Kind == jsvalue.String && unitsEqualASCII(a.Mode.Str, "append"):
	case a.Mode.Kind == jsvalue.String && unitsEqualASCII(a.Mode.Str, "replace"):
		mode = PipeReplace
	default:
		msg := jsvalue.Cat(jsvalue.U("pipeFrom: unknown mode "), a.Mode.Display())
		return 0, invalid(ReasonUnknownMode, msg).With("mode", a.Mode)
	}
	if a.Signal.Kind != jsvalue.Undefined && !a.SignalIsAbort {
		return 0, invalid(ReasonNotAnObject, jsvalue.U("pipeFrom: signal must be an AbortSignal"))
	}
	if !a.StreamIterable {
		return 0, invalid(ReasonNotAnObject, jsvalue.U("pipeFrom: stream is not iterable"))
	}
	return mode, nil
}

// ChunkTarget says where a stream value's delta goes (O29).
type ChunkTarget uint8

const (
	ChunkSkip      ChunkTarget = iota // no write
	ChunkText                         // setText(getText() + delta)
	ChunkReasoning                    // setReasoning(getReasoning() + delta)
)

// ClassifyChunk is O29 for a value v produced by the stream, with typ and
// delta its type and delta properties (read only when v is an object). An
// accepted chunk makes one write even for ”: the facade can get the splice
// from AppendText or AppendReasoning with the delta.
func ClassifyChunk(v, typ, delta jsvalue.Value) ChunkTarget {
	if !isPlainObject(v) || typ.Kind != jsvalue.String || delta.Kind != jsvalue.String {
		return ChunkSkip
	}
	switch {
	case unitsEqualASCII(typ.Str, "text"):
		return ChunkText
	case unitsEqualASCII(typ.Str, "reasoning"):
		return ChunkReasoning
	}
	return ChunkSkip
}
