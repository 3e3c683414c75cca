package editops

import (
	"testing"

	"tavern-core/jsvalue"
)

// O27 (S125, S131): option validation order and messages.
func TestO27_PipeOptions(t *testing.T) {
	ok := func(a PipeArgs) PipeArgs { a.StreamIterable = true; return a }
	for _, c := range []struct {
		a    PipeArgs
		mode PipeMode
	}{
		{ok(PipeArgs{}), PipeAppend},
		{ok(PipeArgs{Opts: null}), PipeAppend},
		{ok(PipeArgs{Opts: obj}), PipeAppend},
		{ok(PipeArgs{Opts: obj, Mode: S("append")}), PipeAppend},
		{ok(PipeArgs{Opts: obj, Mode: S("replace")}), PipeReplace},
		{ok(PipeArgs{Opts: obj, Signal: obj, SignalIsAbort: true}), PipeAppend},
	} {
		m, err := CheckPipe(CoreHandle, c.a)
		if err != nil || m != c.mode {
			t.Fatalf("%+v: %v %v", c.a, m, err)
		}
	}
	_, err := CheckPipe(CoreHandle, PipeArgs{Opts: N(5), Mode: S("bad")})
	wantErr(t, err, CodeInvalidOffset, "pipeFrom: opts must be an object, got number", D("reason", "not_an_object"))
	_, err = CheckPipe(CoreHandle, PipeArgs{Opts: fn})
	wantErr(t, err, CodeInvalidOffset, "pipeFrom: opts must be an object, got function", nil)
	mode := R(S("prepend"), 3)
	_, err = CheckPipe(CoreHandle, PipeArgs{Opts: obj, Mode: mode, Signal: N(1)})
	wantErr(t, err, CodeInvalidOffset, "pipeFrom: unknown mode prepend", D("reason", "unknown_mode", "mode", mode))
	_, err = CheckPipe(CoreHandle, PipeArgs{Opts: obj, Mode: null})
	wantErr(t, err, CodeInvalidOffset, "pipeFrom: unknown mode null", D("reason", "unknown_mode", "mode", null))
	_, err = CheckPipe(CoreHandle, PipeArgs{Opts: obj, Mode: S("Append")})
	wantErr(t, err, CodeInvalidOffset, "pipeFrom: unknown mode Append", nil)
	for _, sig := range []jsvalue.Value{null, obj, N(1)} {
		_, err = CheckPipe(CoreHandle, PipeArgs{Opts: obj, Signal: sig})
		wantErr(t, err, CodeInvalidOffset, "pipeFrom: signal must be an AbortSignal", D("reason", "not_an_object"))
	}
	_, err = CheckPipe(CoreHandle, PipeArgs{})
	wantErr(t, err, CodeInvalidOffset, "pipeFrom: stream is not iterable", D("reason", "not_an_object"))
}

// O29 (S121, S122, S124): which chunks are applied, and where.
func TestO29_ChunkClassification(t *testing.T) {
	cases := []struct {
		v, typ, delta jsvalue.Value
		want          ChunkTarget
	}{
		{null, undef, undef, ChunkSkip},
		{S("str"), undef, undef, ChunkSkip},
		{N(5), undef, undef, ChunkSkip},
		{obj, S("text"), undef, ChunkSkip},
		{obj, S("text"), N(5), ChunkSkip},
		{obj, S("mystery"), S("x"), ChunkSkip},
		{obj, S("TEXT"), S("b"), ChunkSkip},
		{fn, S("text"), S("a"), ChunkSkip},
		{obj, S("text"), S("a"), ChunkText},
		{obj, S("text"), S(""), ChunkText},
		{obj, S("reasoning"), S("think"), ChunkReasoning},
	}
	for i, c := range cases {
		if got := ClassifyChunk(c.v, c.typ, c.delta); got != c.want {
			t.Fatalf("#%d: got %d want %d", i, got, c.want)
		}
	}
	// S121: accepted deltas append to the current buffer.
	text := "pre: "
	for _, d := range []string{"hello", ", ", "world."} {
		e, err := AppendText(CoreHandle, B(text), S(d))
		if err != nil {
			t.Fatal(err)
		}
		text = jsvalue.GoString(Apply(jsvalue.U(text), e.Splices))
	}
	if text != "pre: hello, world." {
		t.Fatal(text)
	}
}

// S123, S130: replace mode is reported to the facade, which clears the text
// with setText(”) (where a settled or continue handle throws) before
// iterating. S126: each delta is an append to the buffer as it is now, so a
// write made by someone else between chunks is kept.
func TestS123S126_PipeWrites(t *testing.T) {
	m, err := CheckPipe(DuckHandle, PipeArgs{Opts: obj, Mode: S("replace"), StreamIterable: true})
	if err != nil || m != PipeReplace {
		t.Fatal(m, err)
	}
	cur := jsvalue.U("a")
	cur = append(cur, 'X') // an outside setText between chunks
	e, err := AppendText(CoreHandle, &buf{u: cur}, S("b"))
	wantText(t, "aX", e, err, "aXb")
}
