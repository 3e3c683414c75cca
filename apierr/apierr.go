// Package apierr defines the error value every tavern-core core returns: a
// stable code, a message a user can act on, optional details and cause, and
// the JavaScript error class the facade must throw it as.
package apierr

import "tavern-core/jsvalue"

// Class names the JS error class an error is thrown as.
type Class uint8

const (
	TakeoverError Class = iota
	EditorOpsError
	TypeError
	PlainError
	Internal   // a contained Go panic or a broken invariant
	RangeError // the chat surface's out-of-range arguments
)

// Error is a core error. Message is in code units so it can echo JS text
// exactly (lone surrogates included).
type Error struct {
	Class   Class
	Code    string
	Message []uint16
	Details *jsvalue.Obj // nil means null
	Cause   jsvalue.Value
}

func (e *Error) Error() string { return e.Code + ": " + jsvalue.GoString(e.Message) }

// Errors are built on cold paths: New, NewU and With are not inlined, so
// the dozens of call sites do not each carry a copy (browser .wasm size).

// New builds an error with a message made of ASCII/UTF-8 core text.
//
//go:noinline
func New(class Class, code, msg string) *Error {
	return &Error{Class: class, Code: code, Message: jsvalue.U(msg)}
}

// NewU builds an error whose message is already in code units.
//
//go:noinline
func NewU(class Class, code string, msg []uint16) *Error {
	return &Error{Class: class, Code: code, Message: msg}
}

// With sets a detail, creating the details object on first use.
//
//go:noinline
func (e *Error) With(key string, v jsvalue.Value) *Error {
	if e.Details == nil {
		e.Details = jsvalue.NewObj()
	}
	e.Details.Set(key, v)
	return e
}
