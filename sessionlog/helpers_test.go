package sessionlog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func fixturePath(name string) string {
	return filepath.Join("..", "testdata", "sessionlog", name)
}

// load reads a committed fixture; cut > 0 keeps only the first cut events.
func load(t *testing.T, name string, cut int) *Log {
	t.Helper()
	b, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	if cut > 0 {
		lines := bytes.SplitAfter(b, []byte("\n"))
		b = bytes.Join(lines[:cut+1], nil)
	}
	l, err := DecodeBytes(b, DecodeOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

func loadF(t *testing.T) *Log { return load(t, "f.jsonl", 0) }

// ev builds an event for seq = l.Len() from JSON, filling seq and time
// when the JSON omits them.
func ev(t *testing.T, l *Log, js string) *Event {
	t.Helper()
	v, err := decodeValue([]byte(js))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	m := v.(map[string]any)
	if _, ok := m["seq"]; !ok {
		m["seq"] = json.Number(itoa(l.Len()))
	}
	if _, ok := m["time"]; !ok {
		m["time"] = json.Number("1790000999000")
	}
	return newEvent(m, l.Len())
}

func mustAppend(t *testing.T, l *Log, js string) {
	t.Helper()
	if err := l.Append(ev(t, l, js)); err != nil {
		t.Fatalf("append %s: %v", js, err)
	}
}

// wantErr asserts err is an *Error with the exact message.
func wantErr(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %q, got nil", msg)
	}
	if err.Error() != msg {
		t.Fatalf("error\n got: %s\nwant: %s", err.Error(), msg)
	}
}

func wantCode(t *testing.T, err error, code string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", code)
	}
	e, ok := err.(*Error)
	if !ok || e.Code != code {
		t.Fatalf("want code %s, got %v (%s)", code, err, codeOf(err))
	}
	return e
}

func codeOf(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

func wantSurface(t *testing.T, l *Log, want ...int) {
	t.Helper()
	if got := l.Surface(); !slices.Equal(got, want) {
		t.Fatalf("surface = %v, want %v", got, want)
	}
}

// canon re-encodes a JSON value with sorted keys for exact comparison.
func canon(t *testing.T, v any) string {
	t.Helper()
	if s, ok := v.(string); ok {
		x, err := decodeValue([]byte(s))
		if err != nil {
			t.Fatalf("bad JSON %s: %v", s, err)
		}
		v = x
	}
	n, err := normalize(v)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := EncodeJSON(n)
	return string(b)
}

func jsonEq(t *testing.T, got any, want string) {
	t.Helper()
	if g, w := canon(t, got), canon(t, want); g != w {
		t.Fatalf("JSON mismatch\n got: %s\nwant: %s", g, w)
	}
}

// Notation of §18.
const (
	tq1  = `{"type":"text","text":"q1"}`
	cC1  = `{"type":"tool-call","id":"c1","name":"bash","arguments":"{}"}`
	bIA  = `{"type":"image","attachment":{"attachmentId":"img-A","mediaType":"image/png","bytes":16,"width":2,"height":2,"name":"a.png"}}`
	bFB  = `{"type":"file","attachment":{"attachmentId":"file-B","bytes":7,"name":"b.txt"}}`
	tSYS = `{"type":"text","text":"SYS"}`
)

func ptr[T any](v T) *T { return &v }
