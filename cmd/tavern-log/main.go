// Command tavern-log inspects agent session logs with the sessionlog
// package: validate, fold, transcript and plan-edit (spec §16a). It reads a
// JSONL file or standard input ("-") and never writes to its input.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"tavern-core/sessionlog"
	"tavern-core/sessionlog/zstdlog"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: tavern-log <command> [--import-snapshot] FILE|-

commands:
  validate FILE      check every event; exit 1 with the validator message if invalid
  fold FILE          print the surface node seqs and the derived model messages
  transcript FILE    print the transcript rows and the editor overlay
  plan-edit FILE --op edit|undo|regenerate|regenerate-turn --target ID|SEQ
                     [--text T] [--remove ATTACHMENT_ID]... [--agent-running] [--time MS]
                     print the exact events the editor would append
  repair FILE        recover a log whose last write did not finish: keep a copy
                     (FILE.torn-OFFSET-TIME) and truncate the torn last line, or
                     add a missing final newline; refuses, changing nothing, when
                     the log is invalid anywhere else (the only command that writes)

FILE is a JSONL log or the harness's compressed session.jsonl.zstd (Zstandard
frames; a torn final frame is cut off by repair, which keeps the whole records
it still holds as a new frame).
`

// removeList collects repeated --remove flags; nil until one is given so an
// absent flag stays distinguishable from an empty list.
type removeList struct{ ids []string }

func (r *removeList) String() string { return fmt.Sprint(r.ids) }
func (r *removeList) Set(v string) error {
	r.ids = append(r.ids, v)
	return nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd := args[0]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	importSnap := fs.Bool("import-snapshot", false, "assign seq/time to snapshot events that lack them")
	op := fs.String("op", "", "plan-edit: edit, undo, regenerate or regenerate-turn")
	target := fs.String("target", "", "plan-edit: message id, or the original event's seq")
	var text optString
	fs.Var(&text, "text", "plan-edit: the new text")
	var remove removeList
	fs.Var(&remove, "remove", "plan-edit: attachment id to remove (repeatable)")
	running := fs.Bool("agent-running", false, "plan-edit: plan as if the agent were running")
	stamp := fs.Int64("time", -1, "plan-edit: time for planned events (epoch ms; default now)")

	// Flags may follow the file argument, as the spec's synopsis shows.
	var files []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch cmd {
	case "validate", "fold", "transcript", "plan-edit", "repair":
	default:
		fmt.Fprintf(stderr, "unknown command %q\n%s", cmd, usage)
		return 2
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "%s needs exactly one FILE argument (or - for standard input)\n", cmd)
		return 2
	}

	if cmd == "repair" {
		return repair(files[0], *importSnap, stdout, stderr)
	}
	var in io.Reader = stdin
	if files[0] != "-" {
		f, err := os.Open(files[0])
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		defer f.Close()
		in = f
	}
	b, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	// The harness's own files are Zstandard frames (session.jsonl.zstd); the
	// magic, not the name, decides, so standard input works too.
	if zstdlog.IsCompressed(b) {
		z, err := zstdlog.Read(b)
		if err != nil {
			return refusal(err, "", stdout, stderr)
		}
		if z.Torn {
			return invalidLog(z.TornTail(), stdout, stderr)
		}
		b = z.Plain
	}
	l, err := sessionlog.DecodeOwned(b, sessionlog.DecodeOptions{ImportSnapshot: *importSnap})
	if err != nil {
		return refusal(err, "", stdout, stderr)
	}

	switch cmd {
	case "validate":
		writeJSON(stdout, map[string]any{"ok": true, "version": l.Version(), "events": l.Len()})
	case "fold":
		// The messages are printed as the log stores them (S102).
		msgs, err := l.AppendMessagesJSON(nil)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		writeJSON(stdout, map[string]any{"version": l.Version(), "surface": l.Surface(), "messages": json.RawMessage(msgs)})
	case "transcript":
		writeJSON(stdout, map[string]any{"version": l.Version(), "rows": l.Transcript(), "overlay": l.Overlay(sessionlog.Env{})})
	case "plan-edit":
		env := sessionlog.Env{AgentRunning: *running, Time: *stamp}
		if *stamp < 0 {
			env.Time = time.Now().UnixMilli()
		}
		return planEdit(l, *op, *target, text.p, remove.ids, env, stdout, stderr)
	}
	return 0
}

// optString is a string flag that remembers whether it was given: an
// absent --text differs from --text "" (S59, S60).
type optString struct{ p *string }

func (o *optString) String() string {
	if o.p == nil {
		return ""
	}
	return *o.p
}
func (o *optString) Set(v string) error {
	o.p = &v
	return nil
}

func planEdit(l *sessionlog.Log, op, target string, text *string, remove []string, env sessionlog.Env, stdout, stderr io.Writer) int {
	fail := func(code, msg string) int {
		writeJSON(stdout, map[string]any{"ok": false, "error": map[string]any{"code": code, "message": msg}})
		fmt.Fprintln(stderr, msg)
		return 1
	}
	if target == "" {
		return fail(sessionlog.CodeBadRequest, "plan-edit needs --target")
	}
	var tg sessionlog.Target
	if n, err := strconv.Atoi(target); err == nil {
		tg.Seq = &n
	} else {
		tg.MessageID = &target
	}
	req := sessionlog.Request{Op: sessionlog.Op(op), Target: tg, Text: text, RemoveAttachments: remove}
	if op == "regenerate-turn" {
		req.Op = sessionlog.OpRegenerate
		ev, err := l.ResolveTarget(tg)
		if err != nil {
			se := err.(*sessionlog.Error)
			return fail(se.Code, se.Message)
		}
		if ev.Type != "assistant/message" {
			return fail(sessionlog.CodeBadRequest, "regenerate-turn targets a model reply; use --op regenerate for a user message")
		}
	}
	p, err := l.Plan(req, env)
	if err != nil {
		se := err.(*sessionlog.Error)
		return fail(se.Code, se.Message)
	}
	events := []*sessionlog.Event{}
	if p.Event != nil {
		events = append(events, p.Event)
	}
	out := map[string]any{"ok": true, "events": events}
	if p.Unchanged {
		out["unchanged"] = true
	}
	writeJSON(stdout, out)
	return 0
}

func writeJSON(w io.Writer, v any) {
	b, err := sessionlog.EncodeJSON(v) // lone surrogates stay as they were read
	if err != nil {
		fmt.Fprintln(os.Stderr, "tavern-log:", err)
		return
	}
	w.Write(append(b, '\n'))
}

// refusal reports a failed read: an invalid log (exit 1, invalidLog, with
// note added to its message) or, when the reader itself failed, the error
// alone (exit 2).
func refusal(err error, note string, stdout, stderr io.Writer) int {
	var se *sessionlog.Error
	if !errors.As(err, &se) || se.Code == sessionlog.CodeReadFailed {
		fmt.Fprintln(stderr, err)
		return 2
	}
	se.Message += note
	return invalidLog(se, stdout, stderr)
}

// invalidLog prints the S102 refusal of an invalid log; a torn tail also
// says where it starts (S105).
func invalidLog(se *sessionlog.Error, stdout, stderr io.Writer) int {
	var seq any
	if se.Seq >= 0 {
		seq = se.Seq
	}
	out := map[string]any{"ok": false, "seq": seq, "error": se.Message}
	if se.Code == sessionlog.CodeTornTail {
		out["code"], out["offset"], out["line"] = se.Code, *se.Offset, se.Line
	}
	writeJSON(stdout, out)
	fmt.Fprintln(stderr, se.Message)
	return 1
}
