package sessionlog

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The generic tree keeps lone surrogates (and U+FDD0, the mark it uses for
// them) through decodeValue and EncodeJSON: the same JSON text comes back.
func TestSurrogatesRoundTrip(t *testing.T) {
	for in, want := range map[string]string{
		`"a\ud800b"`:                 `"a\ud800b"`,
		`"\udc00"`:                   `"\udc00"`,
		`"\uD83D\uDE00 pair"`:        `"😀 pair"`,
		`"\ud83d"`:                   `"\ud83d"`,
		`"\ud83d\u0041"`:             `"\ud83dA"`,
		`"\ud83d\\u0041"`:            `"\ud83d\\u0041"`,
		"\"raw \ufdd0 mark\"":        `"raw \ufdd0 mark"`,
		`"escaped \ufdd0d800"`:       `"escaped \ufdd0d800"`,
		`{"\ud800":["\udfff",1.50]}`: `{"\ud800":["\udfff",1.50]}`,
		`"plain é"`:                  `"plain é"`,
	} {
		v, err := decodeValue([]byte(in))
		if err != nil {
			t.Fatal(in, err)
		}
		got, err := EncodeJSON(v)
		if err != nil {
			t.Fatal(in, err)
		}
		if string(got) != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

// S6, S72, S73: an edit's copy carries a field holding a lone surrogate
// through unchanged, and undo restores text that holds one (it came back
// as U+FFFD and answered ok before).
func TestS6_S73_LoneSurrogatesSurviveCopies(t *testing.T) {
	b, err := os.ReadFile(fixturePath("f.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, ln := range lines {
		if bytes.Contains(ln, []byte(`"id":"u1"`)) {
			ln = bytes.Replace(ln, []byte(`"id":"u1"`), []byte(`"id":"u1","note":"a\ud800b"`), 1)
			lines[i] = bytes.Replace(ln, []byte(`"text":"q1"`), []byte(`"text":"q\ud83d1"`), 1)
		}
	}
	l, err := DecodeBytes(bytes.Join(lines, nil), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := apply(t, l, OpEdit, byID("u1"), ptr("q1*"), nil, Env{})
	js, err := p.Event.MarshalJSON()
	if err != nil || !strings.Contains(string(js), `"note":"a\ud800b"`) {
		t.Fatalf("edit copy: %s %v", js, err)
	}
	u := apply(t, l, OpUndo, byID("u1"), nil, nil, Env{})
	js, err = u.Event.MarshalJSON()
	if err != nil || !strings.Contains(string(js), `"text":"q\ud83d1"`) || !strings.Contains(string(js), `"note":"a\ud800b"`) {
		t.Fatalf("undo copy: %s %v", js, err)
	}
}
