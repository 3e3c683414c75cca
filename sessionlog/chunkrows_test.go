package sessionlog

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// S106 (issue 15, item 1): a log the harness wrote with packed chunk rows
// (packed-v0.jsonl, written by the harness's own packer from the events of
// packed-v0.unpacked.jsonl) loads without any flag and means exactly what
// its unpacked layout means: the same events, fold, transcript and plans.
func TestS106_PackedRowsLoadLikeTheirUnpackedForm(t *testing.T) {
	packed, err := DecodeBytes(readFixture(t, "packed-v0.jsonl"), DecodeOptions{})
	if err != nil {
		t.Fatalf("packed log refused: %v", err)
	}
	plain, err := DecodeBytes(readFixture(t, "packed-v0.unpacked.jsonl"), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if packed.Len() != 41 || packed.Len() != plain.Len() {
		t.Fatalf("events: packed %d, unpacked %d", packed.Len(), plain.Len())
	}
	for i := range plain.Events {
		a, _ := packed.Events[i].MarshalJSON()
		b, _ := plain.Events[i].MarshalJSON()
		jsonEq(t, string(a), string(b))
	}
	wantSurface(t, packed, 1, 26, 28, 38)
	if !slices.Equal(packed.Surface(), plain.Surface()) || canon(t, packed.Messages()) != canon(t, plain.Messages()) ||
		!slices.Equal(packed.Transcript(), plain.Transcript()) {
		t.Fatal("packed and unpacked layouts fold differently")
	}
	fa, _ := packed.AppendFoldJSON(nil)
	fb, _ := plain.AppendFoldJSON(nil)
	jsonEq(t, string(fa), string(fb))
	// An edit plans the same event on both, citing the same seqs.
	req := Request{Op: OpEdit, Target: byID("pu1"), Text: ptr("Say hello")}
	pa, err := packed.Plan(req, Env{Time: 1})
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := plain.Plan(req, Env{Time: 1})
	ja, _ := pa.Event.MarshalJSON()
	jb, _ := pb.Event.MarshalJSON()
	if string(ja) != string(jb) || pa.Event.Seq != 41 {
		t.Fatalf("plans differ:\n%s\n%s", ja, jb)
	}
	// The assistant/message cites every chunk seq the rows stand for (V13
	// would refuse a citation at or past the message otherwise).
	src, _ := packed.Events[26].Field("sourceEventSeqs")
	if len(src.([]any)) != 22 {
		t.Fatalf("sources %v", src)
	}
}

// S106: members take seq0+k and time0 plus the gaps (a gap may be
// negative), and keep the row's turn/step/index and tool-call identity.
func TestS106_RowMembers(t *testing.T) {
	l, err := DecodeBytes(readFixture(t, "packed-v0.jsonl"), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, l.Events[12].Fields(), `{"type":"assistant/chunk","seq":12,"time":1790000000084,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":1,"text":" Listing"}}}`)
	jsonEq(t, l.Events[17].Fields(), `{"type":"assistant/chunk","seq":17,"time":1790000000119,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":2,"id":"c1","name":"bash","argumentsDelta":"mand\":"}}}`)
	jsonEq(t, l.Events[5].Fields(), `{"type":"assistant/chunk","seq":5,"time":1790000000035,"data":{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"The"}}}`)
}

// S106: a malformed row is refused with the harness's reason, never read
// as an event or skipped; a row whose members break contiguity is V1.
func TestS106_MalformedRows(t *testing.T) {
	head := `{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w","delegationDepth":0}` + "\n"
	row := func(s string) string { return head + s + "\n" }
	for _, c := range []struct{ line, msg string }{
		{`{"type":"text-chunks","seq0":0,"time0":0,"x":1,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`, "malformed text-chunks storage row: envelope must be exactly {type, seq0, time0, data}"},
		{`{"type":"text-chunks","seq":0,"time":0,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`, "malformed text-chunks storage row: envelope must be exactly {type, seq0, time0, data}"},
		{`{"type":"text-chunks","seq0":-1,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`, "malformed text-chunks storage row: seq0 must be a non-negative safe integer"},
		{`{"type":"text-chunks","seq0":0,"time0":0.5,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`, "malformed text-chunks storage row: time0 must be a safe integer"},
		{`{"type":"text-chunks","seq0":0,"time0":0,"data":[]}`, "malformed text-chunks storage row: data must be an object"},
		{`{"type":"reasoning-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}}`, "malformed reasoning-chunks storage row: texts must be a non-empty string array"},
		{`{"type":"text-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[0.5],"texts":["a","b"]}}`, "malformed text-chunks storage row: dt must be an array of safe integers"},
		{`{"type":"text-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[0,1],"texts":["a","b"]}}`, "malformed text-chunks storage row: dt length 2 does not match 2 members"},
		{`{"type":"text-chunks","seq0":0,"time0":0,"data":{"turn":"1","step":1,"index":0,"dt":[0],"texts":["a","b"]}}`, "malformed text-chunks storage row: turn/step/index must be numbers"},
		{`{"type":"tool-call-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"id":"c","name":3,"dt":[0],"args":["a","b"]}}`, "malformed tool-call-chunks storage row: id (and name when present) must be strings"},
		{`{"type":"tool-call-chunks","seq0":0,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[0],"args":["a","b"]}}`, "malformed tool-call-chunks storage row: data must be exactly {turn, step, index, id, name?, dt, args}"},
		{`{"type":"text-chunks","seq0":0,"time0":9007199254740990,"data":{"turn":1,"step":1,"index":0,"dt":[5],"texts":["a","b"]}}`, "malformed text-chunks storage row: member times must stay safe integers"},
		{`{"type":"text-chunks","seq0":5,"time0":0,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`, "session event seq 5 is not contiguous; expected 0"},
	} {
		_, err := DecodeBytes([]byte(row(c.line)), DecodeOptions{})
		wantErr(t, err, c.msg)
		if e := err.(*Error); e.Line != 2 || e.Code != CodeInvalidLog {
			t.Fatalf("%s: %+v", c.line, e)
		}
	}
	// A tool-call row without name expands to deltas without name.
	l, err := DecodeBytes([]byte(row(`{"type":"tool-call-chunks","seq0":0,"time0":3,"data":{"turn":1,"step":1,"index":0,"id":"c","dt":[-1],"args":["a","b"]}}`)), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, l.Events[1].Fields(), `{"type":"assistant/chunk","seq":1,"time":2,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"c","argumentsDelta":"b"}}}`)
}

// S17, S106 (issue 15, acceptance): every shared real harness log, laid out
// as the harness writes it — seq/time on every event, seq0/time0 on every
// packed row — loads with no flag, and folds exactly as its stored snapshot
// (no seq or time) does under --import-snapshot. The real logs are read
// from ../shared/data/dsh-logs when the checkout has them beside it, as CI
// does; the test says so plainly when it cannot run.
func TestS106_RealLogsInHarnessLayout(t *testing.T) {
	root := realLogsRoot(t)
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, _ := os.ReadFile(p)
		snap, err := DecodeBytes(b, DecodeOptions{ImportSnapshot: true})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		laid := harnessLayout(t, b)
		l, err := DecodeBytes(laid, DecodeOptions{})
		if err != nil {
			t.Errorf("%s in harness layout: %v", p, err)
			return nil
		}
		n++
		fs, _ := snap.AppendFoldJSON(nil)
		fl, _ := l.AppendFoldJSON(nil)
		if string(fs) != string(fl) || l.Len() != snap.Len() {
			t.Errorf("%s: layouts fold differently", p)
		}
		return nil
	})
	if n != 128 {
		t.Errorf("read %d real logs, want 128", n)
	}
}

// realLogsRoot is ../shared/data/dsh-logs beside the checkout; it skips,
// saying why, when that folder is absent.
func realLogsRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join("..", "..", "shared", "data", "dsh-logs")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("SKIPPED: the shared real harness logs are not beside this checkout (%s: %v); CI runs this test", root, err)
	}
	return root
}

// harnessLayout gives a stored snapshot's events seq/time and its rows
// seq0/time0 by position, as the harness's writer would have.
func harnessLayout(t *testing.T, b []byte) []byte {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var out bytes.Buffer
	out.Write(lines[0])
	out.WriteByte('\n')
	pos := 0
	for _, line := range lines[1:] {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if isChunkRow(asString(m["type"])) {
			d := asMap(m["data"])
			k := "texts"
			if m["type"] == "tool-call-chunks" {
				k = "args"
			}
			m["seq0"], m["time0"] = pos, 1790000000000+pos
			pos += len(d[k].([]any))
		} else {
			m["seq"], m["time"] = pos, 1790000000000+pos
			pos++
		}
		e, _ := EncodeJSON(m)
		out.Write(e)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
