// Package protocol is the one source of every number Go and JavaScript must
// agree on at the bridge: value tags and brands of the buffer codec, value
// kinds, error classes, statuses, op codes and bit layouts. Constants that
// belong to a core (jsvalue.Kind, apierr.Class, chatsurface.Kind) stay
// there and are listed here by reference; the edge's own codes (op codes,
// steps, layouts) are defined here.
//
// js/protocol.js is generated from Groups (`go test ./protocol -update`,
// or `go generate ./protocol`) and TestJSProtocolIsGenerated fails when the
// two differ, so no number is ever copied by hand.
package protocol

//go:generate go test -run TestJSProtocolIsGenerated -update

// Entry is one named number.
type Entry struct {
	Name  string
	Value int
}

// Group is one JS object of js/protocol.js: a frozen map of names to
// numbers. An enumeration's values are distinct; a layout's (bit shifts,
// masks, sizes) need not be.
type Group struct {
	Name    string
	Doc     string
	Entries []Entry
	Layout  bool
	// Strings, when set, makes the group a frozen array of strings instead
	// (names and selectors indexed by a number).
	Strings []string
}
