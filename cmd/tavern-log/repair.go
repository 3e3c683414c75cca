package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"tavern-core/sessionlog"
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
	plan, err := sessionlog.PlanRepair(b, path, time.Now().UnixMilli(), sessionlog.DecodeOptions{ImportSnapshot: importSnap})
	if err != nil {
		var se *sessionlog.Error
		if !errors.As(err, &se) {
			fmt.Fprintln(stderr, err)
			return 2
		}
		se.Message += " (repair removes only a torn last line; nothing was changed)"
		return invalidLog(se, stdout, stderr)
	}
	switch plan.Action {
	case "truncate":
		if err := writeNewDurable(plan.Copy, b); err != nil {
			fmt.Fprintf(stderr, "keeping a copy failed, nothing was changed: %v\n", err)
			return 2
		}
		if err := truncateDurable(path, int64(len(b)), plan.TruncateTo); err != nil {
			fmt.Fprintf(stderr, "truncating failed (the copy %s holds the original): %v\n", plan.Copy, err)
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
