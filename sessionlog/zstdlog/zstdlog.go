// Package zstdlog reads and repairs the agent harness's compressed session
// logs, the files it writes by default (session.jsonl.zstd): a run of
// independently decodable, checksummed Zstandard frames (RFC 8878), the
// first holding exactly the header line and each later one a batch of whole
// JSONL records (docs/session-log.md, "Compressed logs"). The harness
// appends one frame per durable batch, so a crash mid-append leaves the
// last frame incomplete; that frame was never acknowledged, but its
// decodable prefix may hold whole records, which the harness itself keeps
// on recovery, and so does Repair here.
//
// This package is native-only (cmd/tavern-log); the pure sessionlog
// package and the wasm modules do not import it, so the decoder costs the
// browser nothing.
package zstdlog

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/klauspost/compress/zstd"

	"tavern-core/sessionlog"
)

const (
	magic = sessionlog.ZstdMagic
	// maxWindow bounds what one frame may make the decoder allocate before
	// a byte is decoded: a frame header's window or content size is a
	// number from the file.
	maxWindow = 1 << 30
)

// IsCompressed reports whether b starts with a Zstandard frame's magic
// (sessionlog.IsCompressed, the one check of it).
func IsCompressed(b []byte) bool { return sessionlog.IsCompressed(b) }

// Log is a compressed log's content.
type Log struct {
	// Plain is the plaintext of the complete frames, in file order: a JSONL
	// log the sessionlog decoder reads.
	Plain []byte `json:"-"`
	// Frames counts the complete frames; Lines the records in Plain.
	Frames int `json:"frames"`
	Lines  int `json:"lines"`
	// Torn: the file ends inside a frame, which starts at TornAt and runs
	// TornBytes to the end of the file.
	Torn      bool  `json:"torn,omitempty"`
	TornAt    int64 `json:"tornAt,omitempty"`
	TornBytes int   `json:"tornBytes,omitempty"`
	// Recovered holds the whole records (each ending in a newline) that the
	// incomplete frame's decodable prefix yields; RecoveredLines counts them.
	Recovered      []byte `json:"-"`
	RecoveredLines int    `json:"recoveredLines,omitempty"`
}

// Read decodes a compressed log's bytes. A structurally invalid frame, a
// checksum mismatch, a header frame that is not exactly one line, or a
// complete frame that ends inside a record is an invalid-log refusal that
// names the byte offset; an incomplete final frame is not an error here
// (Log.Torn), the caller decides (TornTail, Repair).
func Read(b []byte) (*Log, error) {
	if !IsCompressed(b) {
		return nil, corrupt(0, "the file does not start with a Zstandard frame")
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow), zstd.WithDecoderMaxMemory(maxWindow))
	if err != nil {
		return nil, &sessionlog.Error{Code: sessionlog.CodeReadFailed, Seq: -1, Message: err.Error()}
	}
	defer dec.Close()
	l := &Log{}
	for off := 0; off < len(b); {
		end, err := frameEnd(b, off)
		if err != nil {
			return nil, err
		}
		if end < 0 { // the file ends inside this frame
			l.Torn, l.TornAt, l.TornBytes = true, int64(off), len(b)-off
			l.Recovered = wholeRecords(prefixOf(dec, b[off:]))
			l.RecoveredLines = bytes.Count(l.Recovered, []byte{'\n'})
			break
		}
		start := len(l.Plain)
		l.Plain, err = dec.DecodeAll(b[off:end], l.Plain)
		if err != nil {
			return nil, corrupt(off, "frame "+strconv.Itoa(l.Frames+1)+" does not decode ("+err.Error()+")")
		}
		text := l.Plain[start:]
		n := bytes.Count(text, []byte{'\n'})
		switch {
		case l.Frames == 0 && (n != 1 || text[len(text)-1] != '\n'):
			return nil, corrupt(off, "the first frame must hold exactly the header line")
		case len(text) > 0 && text[len(text)-1] != '\n':
			return nil, corrupt(off, "frame "+strconv.Itoa(l.Frames+1)+" ends inside a record")
		}
		l.Frames++
		l.Lines += n
		off = end
	}
	if l.Frames == 0 {
		return nil, corrupt(0, "the header frame is incomplete: nothing of the log is readable")
	}
	return l, nil
}

// TornTail is the refusal a reader gives a compressed log that ends inside
// a frame (S105, as for a torn plain line): where the frame starts, the
// record number that follows the complete frames, and the way out.
func (l *Log) TornTail() *sessionlog.Error {
	at := l.TornAt
	line := l.Lines + 1
	return &sessionlog.Error{
		Code: sessionlog.CodeTornTail, Rule: "S105", Seq: -1, Line: line, Offset: &at,
		Message: "line " + strconv.Itoa(line) + ": torn tail at byte offset " + strconv.FormatInt(at, 10) +
			": the last " + strconv.Itoa(l.TornBytes) + " bytes are an unfinished Zstandard frame (an append that did not finish); " +
			"nothing in it was acknowledged. Run `tavern-log repair FILE` to keep a copy of the file and cut the frame off" + keeps(l.RecoveredLines),
	}
}

// keeps says what a repair keeps of the cut frame.
func keeps(n int) string {
	switch n {
	case 0:
		return " (it holds no whole record)"
	case 1:
		return ", keeping the 1 whole record it still holds"
	}
	return ", keeping the " + strconv.Itoa(n) + " whole records it still holds"
}

// Frame encodes plain as one checksummed frame, as the harness writes a
// batch.
func Frame(plain []byte) ([]byte, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(plain, nil), nil
}

func corrupt(off int, why string) *sessionlog.Error {
	return &sessionlog.Error{
		Code: sessionlog.CodeInvalidLog, Seq: -1,
		Message: "corrupt Zstandard session log at byte offset " + strconv.Itoa(off) + ": " + why,
	}
}

// frameEnd walks the frame starting at off through its header and block
// headers without decoding (RFC 8878 §3.1.1) and returns where it ends, or
// -1 when the file ends first.
func frameEnd(b []byte, off int) (int, error) {
	p := off
	if len(b)-p < 5 {
		if len(b)-p < 4 || binary.LittleEndian.Uint32(b[p:]) == magic {
			return -1, nil
		}
	}
	if binary.LittleEndian.Uint32(b[p:]) != magic {
		return 0, corrupt(p, "not a Zstandard frame (bad magic)")
	}
	p += 4
	d := b[p]
	p++
	if d&0x08 != 0 {
		return 0, corrupt(p-1, "reserved bit set in the frame header")
	}
	single, dict, fcs := fields(d)
	rest := dict + fcs
	if !single {
		rest++
	}
	if len(b)-p < rest {
		return -1, nil
	}
	p += rest
	for {
		if len(b)-p < 3 {
			return -1, nil
		}
		size, last, reserved := block(b, p)
		if reserved {
			return 0, corrupt(p, "reserved block type")
		}
		p += 3
		if len(b)-p < size {
			return -1, nil
		}
		p += size
		if last {
			break
		}
	}
	if d&0x04 != 0 { // content checksum
		if len(b)-p < 4 {
			return -1, nil
		}
		p += 4
	}
	return p, nil
}

// fields reads a frame header's descriptor byte (RFC 8878 §3.1.1.1):
// whether the frame is single-segment (no window descriptor), and the
// lengths of its dictionary id and content size fields.
func fields(d byte) (single bool, dict, fcs int) {
	single = d&0x20 != 0
	dict = [4]int{0, 1, 2, 4}[d&0x03]
	fcs = [4]int{0, 2, 4, 8}[d>>6]
	if fcs == 0 && single {
		fcs = 1
	}
	return single, dict, fcs
}

// block reads the block header at b[p:p+3] (§3.1.1.2): the block's size in
// the frame (one byte for RLE, which repeats it), whether it is the last,
// and whether its type is the reserved one.
func block(b []byte, p int) (size int, last, reserved bool) {
	h := int(b[p]) | int(b[p+1])<<8 | int(b[p+2])<<16
	size = h >> 3
	if (h>>1)&3 == 1 {
		size = 1
	}
	return size, h&1 != 0, (h>>1)&3 == 3
}

// prefixOf decodes what the whole blocks of an incomplete frame hold, as
// the reference decoder (and so the harness's recovery) does: the decoder
// here gives nothing of a single-segment frame (the harness's) until the
// frame is whole, nor of any frame whose checksum the file cuts. The frame
// is rebuilt from its whole blocks (salvage) and decoded as a frame of its
// own.
func prefixOf(dec *zstd.Decoder, frame []byte) []byte {
	f := salvage(frame)
	if f == nil {
		return nil
	}
	out, err := dec.DecodeAll(f, nil)
	if err != nil {
		return nil
	}
	return out
}

// salvage returns a frame made of the whole blocks of an incomplete one
// (RFC 8878 §3.1.1): the same dictionary id, the window the frame declared
// (or, for a single-segment frame, one that holds its content size), no
// content size and no checksum (neither is known for the part), and the
// last whole block marked last. nil when no block is whole.
func salvage(b []byte) []byte {
	if len(b) < 6 || binary.LittleEndian.Uint32(b) != magic {
		return nil
	}
	d := b[4]
	p := 5
	single, dict, fcs := fields(d)
	window := -1 // the original's Window_Descriptor byte
	if !single {
		window = int(b[p])
		p++
	}
	if len(b)-p < dict+fcs {
		return nil
	}
	dictID := b[p : p+dict]
	p += dict
	if single { // the window is the content size: the smallest power of two that holds it
		var size uint64
		for i := fcs - 1; i >= 0; i-- {
			size = size<<8 | uint64(b[p+i])
		}
		if fcs == 2 {
			size += 256
		}
		e := 0
		for uint64(1)<<(10+e) < size {
			e++
		}
		if 10+e > 30 { // beyond maxWindow: the decoder would refuse it
			return nil
		}
		window = e << 3
	}
	p += fcs
	blocks, last := p, -1 // where the blocks start; the header of the last whole one
	for len(b)-p >= 3 {
		size, end, reserved := block(b, p)
		if len(b)-(p+3) < size || reserved {
			break
		}
		last = p
		p += 3 + size
		if end {
			break
		}
	}
	if last < 0 {
		return nil
	}
	out := binary.LittleEndian.AppendUint32(nil, magic)
	out = append(out, d&0x03, byte(window))
	out = append(out, dictID...)
	k := len(out) + last - blocks
	out = append(out, b[blocks:p]...)
	out[k] |= 1 // Last_Block
	return out
}

// wholeRecords is b up to and including its last newline.
func wholeRecords(b []byte) []byte {
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 {
		return nil
	}
	return b[:i+1]
}
