// Package sessionlog reads, validates and folds append-only agent session
// logs (format versions 0–4) and plans the message editor's writes over them.
//
// It is pure: no I/O beyond the io.Reader handed to Decode, no syscall/js,
// and no clock. The host side (a net/http route over a host port) lives in
// the route sub-package; it hands snapshots in and appends the planned event.
//
// Rule numbers (S…, V…, C…, L…) refer to the session-log rules.
package sessionlog
