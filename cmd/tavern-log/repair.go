package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"tavern-core/sessionlog"
	"tavern-core/sessionlog/zstdlog"
)

// repair carries out sessionlog.PlanRepair on a file (S105): a torn last
// line is cut off after the whole file is copied aside, a missing final
// newline is added; each step is fsynced before the next, and the copy's
// directory entry before the file is cut, so a crash during the repair
// loses nothing either.
func repair(path string, importSnap bool, stdout, stderr io.Writer) int {
	if path == "-" {
		fmt.Fprintln(stderr, "repair needs a FILE: it changes the file in place")
		return 2
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if zstdlog.IsCompressed(b) {
		return repairZstd(path, b, importSnap, stdout, stderr)
	}
	plan, err := sessionlog.PlanRepair(b, path, time.Now().UnixMilli(), sessionlog.DecodeOptions{ImportSnapshot: importSnap})
	if err != nil {
		return refusal(err, " (repair removes only a torn last line; nothing was changed)", stdout, stderr)
	}
	switch plan.Action {
	case "truncate":
		if !copyThenTruncate(path, b, plan.Copy, plan.TruncateTo, stderr) {
			return 2
		}
	case "terminate":
		if err := appendDurable(path, int64(len(b)), []byte("\n")); err != nil {
			fmt.Fprintf(stderr, "adding the final newline failed: %v\n", err)
			return 2
		}
	}
	writeJSON(stdout, map[string]any{"ok": true, "repair": plan})
	return 0
}

// zstdRepair is a compressed log's repair, printed as a plain log's is,
// plus how many whole records of the torn frame were kept.
type zstdRepair struct {
	sessionlog.Repair
	Frames    int `json:"frames"`
	Recovered int `json:"recovered"`
}

// repairZstd recovers a compressed log whose last frame is incomplete (the
// trace of an append that did not finish): the whole file is copied aside
// and fsynced, the file is cut where that frame starts, and the whole
// records the frame's decodable prefix still holds are appended again as
// one checksummed frame, as the harness's own recovery keeps them. They
// are kept only if the log with them is valid; the log without them must
// be. Nothing is changed when the complete frames are corrupt or invalid.
func repairZstd(path string, b []byte, importSnap bool, stdout, stderr io.Writer) int {
	const note = " (repair removes only an unfinished last frame; nothing was changed)"
	refuse := func(err error) int { return refusal(err, note, stdout, stderr) }
	z, err := zstdlog.Read(b)
	if err != nil {
		return refuse(err)
	}
	opts := sessionlog.DecodeOptions{ImportSnapshot: importSnap}
	// With the recovered records first: a log validates event by event, so
	// when it is valid with them, it is without them too, and one read does.
	var tail []byte
	recovered := 0
	l, err := sessionlog.DecodeOwned(append(bytes.Clone(z.Plain), z.Recovered...), opts)
	if err == nil && z.RecoveredLines > 0 {
		if tail, err = zstdlog.Frame(z.Recovered); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		recovered = z.RecoveredLines
	} else if err != nil && z.RecoveredLines > 0 {
		l, err = sessionlog.DecodeBytes(z.Plain, opts)
	}
	if err != nil {
		return refuse(err)
	}
	out := zstdRepair{Repair: sessionlog.Repair{Action: "none", Events: l.Len(), Tail: sessionlog.Tail{Offset: int64(len(b))}}, Frames: z.Frames, Recovered: recovered}
	if !z.Torn {
		writeJSON(stdout, map[string]any{"ok": true, "repair": out})
		return 0
	}
	if recovered > 0 {
		out.Frames++
	}
	out.Action, out.TruncateTo = "truncate", z.TornAt
	out.Tail = sessionlog.Tail{Offset: z.TornAt, Torn: true, TornBytes: z.TornBytes, TornLine: z.Lines + 1}
	out.Copy = path + ".torn-" + strconv.FormatInt(z.TornAt, 10) + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	if !copyThenTruncate(path, b, out.Copy, z.TornAt, stderr) {
		return 2
	}
	if len(tail) > 0 {
		if err := appendDurable(path, z.TornAt, tail); err != nil {
			fmt.Fprintf(stderr, "keeping the torn frame's whole records failed (the log is cut at %d and valid; the copy %s holds them): %v\n", z.TornAt, out.Copy, err)
			return 2
		}
	}
	writeJSON(stdout, map[string]any{"ok": true, "repair": out})
	return 0
}

// copyThenTruncate keeps the file's bytes b at copy (durably, a new file),
// then cuts the file to size; it says on stderr what failed, and what is
// where, and reports whether both steps succeeded.
func copyThenTruncate(path string, b []byte, copy string, size int64, stderr io.Writer) bool {
	if err := writeNewDurable(copy, b); err != nil {
		fmt.Fprintf(stderr, "keeping a copy failed, nothing was changed: %v\n", err)
		return false
	}
	if err := truncateDurable(path, int64(len(b)), size); err != nil {
		fmt.Fprintf(stderr, "truncating failed (the copy %s holds the original): %v\n", copy, err)
		return false
	}
	return true
}

// writeNewDurable creates path (it must not exist) holding b, fsyncs it and
// then its directory.
func writeNewDurable(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// truncateDurable cuts path, which must still be was bytes long, to size.
func truncateDurable(path string, was, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() != was {
		return fmt.Errorf("%s changed while it was being repaired", path)
	}
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// appendDurable writes b at offset at (the file's expected end) and fsyncs.
func appendDurable(path string, at int64, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() != at {
		return fmt.Errorf("%s changed while it was being repaired", path)
	}
	if _, err := f.WriteAt(b, at); err != nil {
		return err
	}
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
