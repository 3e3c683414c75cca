package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkLean asserts the lean reader's contract on one line: when it accepts,
// the generic reader accepts too, and every member reads the same through
// the lean event as in the generic tree, data included.
func checkLean(t *testing.T, line []byte) {
	t.Helper()
	line = bytes.Clone(line)
	ev := leanEvent(line, 0)
	if ev == nil {
		return
	}
	// encoding/json itself, without decodeValue's keeping of lone
	// surrogates (surrogates.go): the lean reader decodes envelope members
	// as JSON.parse and encoding/json both do, U+FFFD for a lone surrogate.
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	err := dec.Decode(&v)
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		t.Fatalf("lean reader accepted %q, generic reader refused: %v", line, err)
	}
	want, isMap := v.(map[string]any)
	if !isMap {
		t.Fatalf("lean reader accepted a non-object %q", line)
	}
	g := newEvent(want, 0)
	for _, k := range []string{"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs", "ignorable", "other"} {
		lv, lok := ev.Field(k)
		gv, gok := g.Field(k)
		if lok != gok || !reflect.DeepEqual(lv, gv) {
			t.Fatalf("lean and generic readers differ on %q member %s:\n lean    %#v %v\n generic %#v %v", line, k, lv, lok, gv, gok)
		}
	}
	if ev.Type != g.Type || len(ev.env.extra) != len(g.env.extra) || ev.env.hasData != g.env.hasData {
		t.Fatalf("lean and generic envelopes differ on %q: %+v vs %+v", line, ev.env, g.env)
	}
	// The data members noted while skipping data match the decoded data.
	if d, isObj := want["data"].(map[string]any); ev.env.hasData {
		var bits uint16
		if !isObj {
			bits = dataNotObject
		}
		for name, bit := range map[string]uint16{"message": dataMessage, "content": dataContent, "callId": dataCallID, "id": dataID,
			"role": dataRole, "source": dataSource, "provenance": dataProvenance, "isError": dataIsError, "trigger": dataTrigger} {
			if _, has := d[name]; has {
				bits |= bit
			}
		}
		if bits != ev.env.dataKeys {
			t.Fatalf("data keys of %q: noted %b, decoded %b", line, ev.env.dataKeys, bits)
		}
		if bits&dataMessage != 0 {
			m, err := decodeValue(ev.rawData[ev.env.msgStart:ev.env.msgEnd])
			if err != nil || !reflect.DeepEqual(m, d["message"]) {
				t.Fatalf("message span of %q: %v %v", line, m, err)
			}
		}
	}
	if !reflect.DeepEqual(ev.env.seq, g.env.seq) || !reflect.DeepEqual(ev.env.time, g.env.time) {
		t.Fatalf("seq/time differ on %q: %+v %+v vs %+v %+v", line, ev.env.seq, ev.env.time, g.env.seq, g.env.time)
	}
}

var leanCases = []string{
	`{}`,
	` {"type":"x","seq":0} `,
	`{"type":"x","seq":0,"data":{"a":[1,2.5e-3,-0,true,false,null,"s"]}}`,
	`{"data":1,"data":{"b":2}}`,
	`{"data":{"b":2},"d\u0061ta":3}`,
	`{"type":"\u00e9\ud800x","seq":1e2}`,
	"{\"type\":\"\xff\xfe\",\"data\":\"\xc3\"}",
	`{"type":"a"}{"type":"b"}`,
	`{"type":"a"} x`,
	`{"type":01}`,
	`{"type":1.}`,
	`{"type":-}`,
	`{"data":"\x"}`,
	`{"data":"\u12"}`,
	"{\"data\":\"a\tb\"}",
	`{"data":[1,]}`,
	`{"data":{"a":1,}}`,
	`{"data":tru}`,
	`[1]`,
	`"s"`,
	"\ufeff{}",
	"{\"a\":1}\u00a0",
	`{"surfaceOp":{"op":"replace","startSeq":1,"endSeq":2},"sourceEventSeqs":[1,2],"ignorable":true}`,
	`{"data":{"message":{"id":"a"},"x":[{"message":1}],"message":{"id":"b","content":[]}, "content" : 1 }}`,
	`{"data":{"m\u0065ssage":{"id":"a"},"callId":"c","id":null}}`,
	`{"data":[{"message":1}]}`,
	`{"data":{"a":{"b":{"message":2}},"callId":[1,{"id":3}]}}`,
	`{"data":{}}`,
	`{"data":{"message":"m"},"data":{"content":0}}`,
}

func TestLeanReaderMatchesGeneric(t *testing.T) {
	for _, c := range leanCases {
		checkLean(t, []byte(c))
	}
	files, _ := filepath.Glob(fixturePath("*.jsonl"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(raw, []byte("\n")) {
			if _, _, ok := parseEnvelope(bytes.Clone(line)); !ok && len(bytes.TrimSpace(line)) > 0 {
				t.Errorf("%s: lean reader refused a plain line %q", name, line)
			}
			checkLean(t, line)
		}
	}
	// Deep nesting goes to the generic reader, which owns the depth limit.
	deep := `{"data":` + string(bytes.Repeat([]byte("["), maxLeanDepth+1)) + string(bytes.Repeat([]byte("]"), maxLeanDepth+1)) + `}`
	if _, _, ok := parseEnvelope([]byte(deep)); ok {
		t.Fatal("lean reader accepted nesting beyond its limit")
	}
}

// A line the lean reader refuses is read, or refused with the same message,
// by the generic path.
func TestLeanReaderFallbackMessages(t *testing.T) {
	log := "{\"type\":\"session\",\"version\":4,\"id\":\"s\",\"createdAt\":0}\n{\"type\":\"turn/start\",\"seq\":0,\"time\":0,\"data\":{\"turn\":1}} x\n"
	_, err := DecodeBytes([]byte(log), DecodeOptions{})
	if err == nil || err.Error() == "" {
		t.Fatal("want an error")
	}
	_, want := decodeValue([]byte(`{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}} x`))
	if e := err.(*Error); e.Message != "line 2: "+want.Error() || e.Line != 2 {
		t.Fatalf("got %q (line %d), want %q", e.Message, e.Line, want)
	}
}

func FuzzLeanEnvelope(f *testing.F) {
	for _, c := range leanCases {
		f.Add([]byte(c))
	}
	if raw, err := os.ReadFile(fixturePath("f.jsonl")); err == nil {
		for _, line := range bytes.Split(raw, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkLean(t, line)
	})
}

// S14: the reader's interned answer to "is this a known type" agrees with
// knownType for every word it interns.
func TestS14_InternedTypesKnownAsKnownType(t *testing.T) {
	for _, e := range internTable {
		if e.word != "" && e.known != knownType(e.word) {
			t.Errorf("%s: interned known=%v, knownType %v", e.word, e.known, knownType(e.word))
		}
	}
	l := NewLog(Header{Version: 3}, false)
	ev, _ := ParseEvent([]byte(`{"type":"hook/invoked","seq":0,"time":0,"data":{}}`), 0)
	if err := l.Append(ev); err != nil {
		t.Fatal(err)
	}
}
