package editops

import (
	"tavern-core/apierr"
	"tavern-core/jsvalue"
)

// Error codes (O2).
const (
	CodeInvalidOffset  = "invalid_offset"
	CodePatchNotFound  = "patch_not_found"
	CodePatchAmbiguous = "patch_ambiguous"
)

// Reasons carried in details.reason of invalid_offset (O2).
const (
	ReasonNotInteger     = "not_integer"
	ReasonOutOfRange     = "out_of_range"
	ReasonEndBeforeStart = "end_before_start"
	ReasonNotAString     = "not_a_string"
	ReasonNotAnObject    = "not_an_object"
	ReasonUnknownKind    = "unknown_kind"
	ReasonUnknownMode    = "unknown_mode"
	ReasonBadSection     = "bad_section"
	ReasonTooMany        = "too_many_entries"
)

// invalid builds an invalid_offset error whose details start with reason.
//
//go:noinline
func invalid(reason string, msg []uint16) *apierr.Error {
	return apierr.NewU(apierr.EditorOpsError, CodeInvalidOffset, msg).With("reason", jsvalue.ASCII(reason))
}

//go:noinline
func typeofMsg(prefix string, v jsvalue.Value) []uint16 {
	return jsvalue.U(prefix + v.TypeOf())
}

// checkHandle is O3, run before every other argument.
func checkHandle(h HandleKind) *apierr.Error {
	if h == CoreHandle || h == DuckHandle {
		return nil
	}
	return invalid(ReasonNotAnObject, jsvalue.U("handle must be a message editor handle"))
}

// isPlainObject is "a non-null object": typeof 'object' and not null. A
// function is not one (T10 lists it among the rejected values).
func isPlainObject(v jsvalue.Value) bool { return v.Kind == jsvalue.Object }
