package route

// FuzzRoute drives the editor route with arbitrary requests and request
// sequences over a live session (its own small doubles, so it does not
// depend on route_test.go's). Whatever comes in: no panic escapes, every
// answer is the S84 envelope with its headers and the S86 status for its
// code, a refusal writes nothing and wakes nobody, and the log stays valid.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tavern-core/sessionlog"
)

type fzSession struct {
	mu    sync.Mutex
	log   *sessionlog.Log
	agent *fzAgent
}

func (s *fzSession) HeaderVersion() (int, error) { return 4, nil }
func (s *fzSession) Events() ([]json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]json.RawMessage, 0, s.log.Len())
	for _, e := range s.log.Events {
		b, err := e.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
func (s *fzSession) Append(typ string, data, surfaceOp json.RawMessage, src []int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	env := map[string]any{"type": typ, "seq": s.log.Len(), "time": 1790000999000, "data": data, "surfaceOp": surfaceOp}
	if src != nil {
		env["sourceEventSeqs"] = src
	}
	b, _ := json.Marshal(env)
	ev, err := sessionlog.ParseEvent(b, s.log.Len())
	if err != nil {
		return 0, err
	}
	if err := s.log.Append(ev); err != nil {
		return 0, err
	}
	return ev.Seq, nil
}
func (s *fzSession) Agent() (Agent, bool) { return s.agent, true }

type fzAgent struct {
	status    string
	followups int
}

func (a *fzAgent) Status() string                 { return a.status }
func (a *fzAgent) Followup(json.RawMessage) error { a.followups++; return nil }

type fzPort struct{ s *fzSession }

func (p fzPort) Session(id string) (Session, bool) {
	if id == "sF" {
		return p.s, true
	}
	return nil, false
}
func (fzPort) Authorize(r *http.Request) bool { return r.Header.Get("X-Deny") == "" }
func (fzPort) Origin() string                 { return "http://127.0.0.1:4000" }
func (fzPort) Version() string                { return "1.3.0" }

// s86Status is S86's table.
var s86Status = map[string]int{
	"bad-request": 400, "empty-message": 400, "not-user-message": 400,
	"unauthorized": 401, "forbidden": 403, "message-not-found": 404, "method-not-allowed": 405,
	"assistant-immutable": 409, "target-shadowed": 409, "no-prompt": 409, "regenerate-not-last": 409,
	"agent-busy": 409, "nothing-to-undo": 409, "session-not-loaded": 409, "unsupported-format": 409,
	"version-skew": 409, "too-large": 413, "compaction-open": 423,
}

// Targets worth hitting in f.jsonl: user rows, model rows, a tool row,
// unknown ids and seqs.
var fzTargets = []string{
	`{"messageId":"u1"}`, `{"messageId":"u2"}`, `{"messageId":"a1"}`, `{"messageId":"a3"}`, `{"messageId":"rc1"}`,
	`{"messageId":"nope"}`, `{"seq":2}`, `{"seq":0}`, `{"seq":-1}`, `{"seq":1e99}`, `{"seq":2.5}`, `{}`, `null`,
	`{"messageId":"u1","seq":2}`,
}

func FuzzRoute(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessionlog", "f.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0, 1, 2, 3}, "q1*", `{"session":"sF","target":{"messageId":"u1"},"text":"x"}`)
	f.Add([]byte{0x10, 0x11, 0x21, 0x32}, "   ", `{"session":"sF"}`)
	f.Add([]byte{0x40, 0x81, 0xc2, 0x03}, "new\ntext", `{"session":"sF","target":{"seq":2},"text":"a","removeAttachments":["x"]}`)
	f.Add([]byte{0xff, 0x7f, 0x55}, "\xed\xa0\x80", `[]`)
	f.Fuzz(func(t *testing.T, ops []byte, text, body string) {
		if len(ops) > 12 {
			ops = ops[:12]
		}
		log, err := sessionlog.DecodeBytes(raw, sessionlog.DecodeOptions{Live: true})
		if err != nil {
			t.Fatal(err)
		}
		a := &fzAgent{status: "idle"}
		s := &fzSession{log: log, agent: a}
		h := New(fzPort{s})
		for i, op := range ops {
			path := Paths[op&3]
			method := http.MethodPost
			if path == PathState {
				method = http.MethodGet
			}
			if op&0x80 != 0 && op&0x40 != 0 {
				method = http.MethodPut
			}
			a.status = map[bool]string{false: "idle", true: "running"}[op&0x20 != 0]
			b := body
			if op&0x10 == 0 {
				target := fzTargets[int(op>>2)%len(fzTargets)]
				switch path {
				case PathUndo:
					b = fmt.Sprintf(`{"session":"sF","target":%s}`, target)
				case PathState:
					b = ""
				default:
					tb, _ := json.Marshal(text)
					b = fmt.Sprintf(`{"session":"sF","target":%s,"text":%s}`, target, tb)
				}
			}
			url := "http://127.0.0.1:4000" + path
			if path == PathState {
				url += "?session=sF"
			}
			r := httptest.NewRequest(method, url, strings.NewReader(b))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(VersionHeader, "1.3.0")
			switch i % 7 {
			case 3:
				if op&0x08 != 0 {
					r.Header.Set("Origin", "http://evil.example")
				}
			case 5:
				if op&0x04 != 0 {
					r.Header.Set(VersionHeader, "0.9.0")
				}
			}
			before, beforeFollowups := s.log.Len(), a.followups
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" || w.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("S84 headers: %q %q for %s %s", ct, w.Header().Get("Cache-Control"), method, b)
			}
			var env struct {
				OK    *bool           `json:"ok"`
				Value json.RawMessage `json:"value"`
				Error *struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			dec := json.NewDecoder(bytes.NewReader(w.Body.Bytes()))
			if err := dec.Decode(&env); err != nil || env.OK == nil {
				t.Fatalf("not an envelope (%d): %q", w.Code, w.Body.String())
			}
			if *env.OK {
				if w.Code != 200 || env.Error != nil {
					t.Fatalf("ok with %d: %s", w.Code, w.Body.String())
				}
				continue
			}
			if env.Error == nil || env.Error.Message == "" {
				t.Fatalf("failure without code/message: %s", w.Body.String())
			}
			if env.Error.Code == "internal" {
				t.Fatalf("internal error for %s %s: %s", method, b, env.Error.Message)
			}
			if want, ok := s86Status[env.Error.Code]; !ok || w.Code != want {
				t.Fatalf("code %q answered %d (S86 says %d)", env.Error.Code, w.Code, want)
			}
			if s.log.Len() != before || a.followups != beforeFollowups {
				t.Fatalf("refusal %q wrote %d events, %d wakes", env.Error.Code, s.log.Len()-before, a.followups-beforeFollowups)
			}
		}
		// Whatever was accepted is still a valid live log.
		var buf bytes.Buffer
		if err := s.log.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := sessionlog.DecodeBytes(buf.Bytes(), sessionlog.DecodeOptions{Live: true}); err != nil {
			t.Fatalf("the route left an invalid log: %v", err)
		}
	})
}
