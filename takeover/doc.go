// Package takeover is the message-takeover kernel: the editor handle's state
// machine (rules T10–T45, docs/api.md) and, later, dispatch claiming
// and driver routing.
//
// The handle's text and reasoning live at the JavaScript edge: a plugin's
// `setText(getText() + chunk)` builds a V8 rope, and reading it per call
// would make streaming quadratic. So the facade keeps the latest strings,
// stores a written value before telling the kernel, and restores the old one
// when the kernel refuses the write. The kernel tracks only lengths and pulls
// content through Edge.Pull when a rule needs it (the continue prefix, the
// violation message). Every decision — validation, state, pending mark,
// throttle windows, delivery, re-entrancy — is made here; effects go out
// through Edge.
package takeover
