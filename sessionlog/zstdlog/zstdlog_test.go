package zstdlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"tavern-core/sessionlog"
)

// frames builds a compressed log the way the harness lays one out: the
// header line alone in the first frame, then one checksummed frame per
// batch. A small window makes each frame several blocks, so a cut inside a
// frame leaves whole blocks before it.
func frames(t testing.TB, batches ...string) ([]byte, []int) {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithWindowSize(zstd.MinWindowSize), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var out []byte
	var starts []int
	for _, b := range batches {
		starts = append(starts, len(out))
		out = enc.EncodeAll([]byte(b), out)
	}
	return out, starts
}

// fixture splits testdata's log into header, a first batch and the rest.
func fixture(t testing.TB) (header, first, rest string) {
	t.Helper()
	b, err := os.ReadFile("../../testdata/sessionlog/f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	return lines[0], strings.Join(lines[1:4], ""), strings.Join(lines[4:], "")
}

func TestS105_ZstdLogReadsAsItsPlaintext(t *testing.T) {
	h, a, r := fixture(t)
	b, _ := frames(t, h, a, r)
	if !IsCompressed(b) || IsCompressed([]byte(h)) {
		t.Fatal("IsCompressed: the magic decides")
	}
	l, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(l.Plain) != h+a+r || l.Frames != 3 || l.Torn || l.Lines != strings.Count(h+a+r, "\n") {
		t.Fatalf("got frames=%d lines=%d torn=%v plain ok=%v", l.Frames, l.Lines, l.Torn, string(l.Plain) == h+a+r)
	}
	if _, err := sessionlog.DecodeBytes(l.Plain, sessionlog.DecodeOptions{}); err != nil {
		t.Fatalf("the plaintext is a valid log: %v", err)
	}
}

// Every cut inside the last frame is a torn tail at that frame's start; the
// complete frames are all of Plain, and what is recovered is whole records
// of the cut frame, in order, never a partial one.
func TestS105_ZstdTornFinalFrameAtEveryCut(t *testing.T) {
	h, a, r := fixture(t)
	b, starts := frames(t, h, a, r)
	last := starts[2]
	recoveredSome := false
	for cut := last + 1; cut < len(b); cut++ {
		l, err := Read(b[:cut])
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if !l.Torn || l.TornAt != int64(last) || l.TornBytes != cut-last || string(l.Plain) != h+a || l.Frames != 2 {
			t.Fatalf("cut %d: torn=%v at=%d bytes=%d frames=%d", cut, l.Torn, l.TornAt, l.TornBytes, l.Frames)
		}
		if !strings.HasPrefix(r, string(l.Recovered)) || (len(l.Recovered) > 0 && l.Recovered[len(l.Recovered)-1] != '\n') {
			t.Fatalf("cut %d: recovered %q is not whole records of the frame", cut, l.Recovered)
		}
		if l.RecoveredLines != bytes.Count(l.Recovered, []byte{'\n'}) {
			t.Fatalf("cut %d: recoveredLines", cut)
		}
		recoveredSome = recoveredSome || l.RecoveredLines > 0
		e := l.TornTail()
		if e.Code != sessionlog.CodeTornTail || *e.Offset != int64(last) || e.Line != strings.Count(h+a, "\n")+1 {
			t.Fatalf("cut %d: %+v", cut, e)
		}
	}
	if !recoveredSome {
		t.Fatal("no cut recovered a record: the fixture's last frame should span several blocks")
	}
	// A cut inside the header frame leaves nothing readable.
	for cut := 1; cut < starts[1]; cut++ {
		if _, err := Read(b[:cut]); err == nil {
			t.Fatalf("cut %d inside the header frame was accepted", cut)
		}
	}
}

func TestS105_ZstdCorruptionIsRefusedWithItsOffset(t *testing.T) {
	h, a, r := fixture(t)
	b, starts := frames(t, h, a, r)
	invalid := func(name string, b []byte, want string) {
		t.Helper()
		_, err := Read(b)
		var se *sessionlog.Error
		if !errors.As(err, &se) || se.Code != sessionlog.CodeInvalidLog || !strings.Contains(se.Message, want) {
			t.Fatalf("%s: got %v, want invalid-log containing %q", name, err, want)
		}
	}
	// A flipped checksum byte of the middle frame.
	bad := bytes.Clone(b)
	bad[starts[2]-1] ^= 0xff
	invalid("checksum", bad, "frame 2 does not decode")
	// Garbage between frames.
	invalid("magic", append(bytes.Clone(b[:starts[2]]), append([]byte("junk"), b[starts[2]:]...)...), "bad magic")
	// A header frame with two lines, a frame ending inside a record.
	two, _ := frames(t, h+a)
	invalid("header", two, "exactly the header line")
	split, _ := frames(t, h, a[:10], a[10:])
	invalid("record", split, "frame 2 ends inside a record")
	// A reserved bit in the frame header.
	res := bytes.Clone(b)
	res[starts[1]+4] |= 0x08
	invalid("reserved", res, "reserved bit")
}

// A frame header may claim any window; the decoder is bounded before it
// allocates for it (the number comes from the file).
func TestS105_ZstdHugeWindowIsRefusedBeforeAllocation(t *testing.T) {
	h, _, _ := fixture(t)
	b, _ := frames(t, h)
	// Magic, descriptor (not single-segment, no checksum, no dictionary, no
	// content size), window descriptor 2^(10+31) bytes, one raw last block.
	frame := binary.LittleEndian.AppendUint32(nil, magic)
	frame = append(frame, 0x00, 31<<3)
	frame = append(frame, byte(1|2<<3), 0, 0, 'x', '\n') // raw, last, 2 bytes
	_, err := Read(append(b, frame...))
	var se *sessionlog.Error
	if !errors.As(err, &se) || se.Code != sessionlog.CodeInvalidLog {
		t.Fatalf("got %v", err)
	}
}

func TestS105_FrameRoundTrips(t *testing.T) {
	h, a, _ := fixture(t)
	hf, _ := Frame([]byte(h))
	af, _ := Frame([]byte(a))
	l, err := Read(append(hf, af...))
	if err != nil || string(l.Plain) != h+a {
		t.Fatalf("%v", err)
	}
}

// A frame the file cuts keeps every record of its whole blocks, as the
// reference decoder (and the harness's own recovery) does: a cut inside
// the checksum loses nothing, and a later cut never recovers less. The
// harness writes single-segment frames (content size, no window
// descriptor), of which the decoder's stream gave nothing until the frame
// was whole: repair dropped records the harness kept.
func TestS105_ZstdTornFrameKeepsItsWholeBlocks(t *testing.T) {
	h, a, r := fixture(t)
	for _, single := range []bool{true, false} {
		opts := []zstd.EOption{zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(single)}
		if !single {
			opts = append(opts, zstd.WithWindowSize(zstd.MinWindowSize))
		}
		enc, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		var last int
		for i, batch := range []string{h, a, r} {
			if i == 2 {
				last = len(b)
			}
			b = enc.EncodeAll([]byte(batch), b)
		}
		enc.Close()
		if single != (b[last+4]&0x20 != 0) {
			t.Fatalf("single %v: the frame header says otherwise", single)
		}
		for cut := 1; cut <= 4; cut++ {
			l, err := Read(b[:len(b)-cut])
			if err != nil || !l.Torn || string(l.Recovered) != r {
				t.Fatalf("single %v, the checksum cut by %d: recovered %d of %d bytes (%v)", single, cut, len(l.Recovered), len(r), err)
			}
		}
		prev := 0
		for cut := last + 1; cut < len(b); cut++ {
			l, err := Read(b[:cut])
			if err != nil {
				t.Fatal(err)
			}
			if l.RecoveredLines < prev || !strings.HasPrefix(r, string(l.Recovered)) {
				t.Fatalf("single %v, cut %d: %d lines after %d", single, cut, l.RecoveredLines, prev)
			}
			prev = l.RecoveredLines
		}
	}
}

// S105: the refusal says what a repair keeps ("keep the 0 whole record(s)"
// read as if something were kept).
func TestS105_TornTailSaysWhatRepairKeeps(t *testing.T) {
	for n, want := range map[int]string{0: "cut the frame off (it holds no whole record)", 1: "keeping the 1 whole record it still holds",
		3: "keeping the 3 whole records it still holds"} {
		if m := (&Log{RecoveredLines: n}).TornTail().Message; !strings.HasSuffix(m, want) {
			t.Fatalf("%d: %q", n, m)
		}
	}
}
