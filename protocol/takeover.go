package protocol

import (
	"tavern-core/takeover"
	"tavern-core/takeover/editops"
)

// The takeover edge (wasm/browser/takeover.go ↔ js/takeover-api.js).

// A call that may settle a handle answers, once it settled,
// remnant<<PackRemnantShift | PackSettled | status<<PackStatusShift |
// textFrom<<PackTextFromShift | reasonFrom (status a takeover.State, the
// froms takeover.Fields, each PackMask wide), so the facade resolves
// `complete` and switches to the remnant reference without another
// crossing; OK when it did not settle; Failed.
const (
	PackSettled       = 0x100
	PackRemnantShift  = 9
	PackStatusShift   = 4
	PackTextFromShift = 2
	PackMask          = 3
)

// A create answers id<<CreateIDShift | CreateListens (the facade must
// listen for the signal's abort), or packed<<CreateTerminalShift |
// CreateSettled for a handle created already settled (T35), or Failed.
const (
	CreateSettled       = 1
	CreateListens       = 2
	CreateIDShift       = 2
	CreateTerminalShift = 1
)

// tk_create_fast describes the options in one number: FastBits per field
// (FastText … FastSettle from the low end), settleOnAbort's value at bit
// FastSettleValue. A field holds the option's jsvalue.Kind, but the signal
// (FastSignal*) and the owner (FastOwner*; FastOwnerKind+kind for a
// non-string).
const (
	FastText = iota
	FastReasoning
	FastSignal
	FastInterval
	FastOwner
	FastSettle
)

const (
	FastBits        = 4
	FastMask        = 15
	FastSettleValue = 28
)

const (
	FastSignalAbsent = iota
	FastSignalGiven
	FastSignalAborted
	FastSignalInvalid
)

const (
	FastOwnerNone = iota // undefined
	FastOwnerLast        // the string sent last again (Kernel.LastOwner)
	FastOwnerNew         // a new string, in the buffer
	FastOwnerKind        // + the kind of anything else
)

// A write answers OK, Failed, WriteQuiet: accepted, and string writes stay
// no-ops for the kernel until the facade's next other call (Handle.Quiet),
// so it may skip the crossing for them; or WriteQuietAppend: the same for
// reasoning writes and the editor ops' appends only (Handle.QuietAppend).
// eo_section_append may answer instead SectionNoop (an empty delta: nothing
// written, O36) or SectionFallback (not the streaming case: run eo_op), or
// add SectionPermit to a write status (Sections.AppendsAtEnd holds for the
// id) and, from bit SectionSplitShift up, the offset into the delta where
// the next append lands (FastResult.Split; a delta longer than
// MaxSectionSplit takes the general op). WriteMask masks the write status,
// NotWritten the two non-writes.
const (
	WriteQuiet        = 1
	WriteQuietAppend  = 2
	WriteMask         = 3
	SectionNoop       = 4
	SectionFallback   = 8
	NotWritten        = SectionNoop | SectionFallback
	SectionPermit     = 16
	SectionSplitShift = 5
	MaxSectionSplit   = 1<<(31-SectionSplitShift) - 1
)

// Editor op codes of eo_op (wasm/browser/editops.go).
const (
	OpAppendText = iota
	OpAppendReasoning
	OpInsertAt
	OpReplaceRange
	OpDeleteRange
	OpApplyPatch
	OpPatchBySemantic
	OpEnsureSection
	OpAppendToSection
	OpMarkSection
	OpCheckPipe
	OpClassifyChunk
)

// takeoverGroups are the takeover edge's groups of js/protocol.js.
func takeoverGroups() []Group {
	return []Group{
		{"TK_STATE", "takeover.State: a handle's status, and tk_settle's argument", []Entry{
			{"OPEN", int(takeover.Open)}, {"COMMITTED", int(takeover.Committed)},
			{"ABORTED", int(takeover.Aborted)}, {"DISCARDED", int(takeover.Discarded)},
		}, false, nil},
		{"TK_STATE_NAME", "takeover.State's names, by number", nil, false, names(int(takeover.Discarded)+1, func(i int) string { return takeover.State(i).String() })},
		{"TK_GEN", "takeover.GenType's names, by number (tk_create_fast takes the index)", nil, false, names(int(takeover.Continue)+1, func(i int) string { return takeover.GenType(i).String() })},
		{"TK_FIELD", "takeover.Field: what pull reads, and where an outcome's text comes from", []Entry{
			{"TEXT", int(takeover.Text)}, {"REASONING", int(takeover.Reasoning)},
			{"ORIGINAL_TEXT", int(takeover.OriginalText)}, {"ORIGINAL_REASONING", int(takeover.OriginalReasoning)},
		}, false, nil},
		{"TK_PACK", "a settling call's answer (protocol/takeover.go)", []Entry{
			{"SETTLED", PackSettled}, {"REMNANT_SHIFT", PackRemnantShift}, {"STATUS_SHIFT", PackStatusShift},
			{"TEXT_FROM_SHIFT", PackTextFromShift}, {"MASK", PackMask},
		}, true, nil},
		{"TK_CREATE", "a create's answer (protocol/takeover.go)", []Entry{
			{"SETTLED", CreateSettled}, {"LISTENS", CreateListens}, {"ID_SHIFT", CreateIDShift},
			{"TERMINAL_SHIFT", CreateTerminalShift},
		}, true, nil},
		{"TK_FAST_FIELD", "tk_create_fast's fields, from the low end", []Entry{
			{"TEXT", FastText}, {"REASONING", FastReasoning}, {"SIGNAL", FastSignal}, {"INTERVAL", FastInterval},
			{"OWNER", FastOwner}, {"SETTLE", FastSettle},
		}, false, nil},
		{"TK_FAST", "tk_create_fast's layout", []Entry{
			{"BITS", FastBits}, {"MASK", FastMask}, {"SETTLE_VALUE", FastSettleValue},
		}, true, nil},
		{"TK_FAST_SIGNAL", "tk_create_fast's signal field", []Entry{
			{"ABSENT", FastSignalAbsent}, {"GIVEN", FastSignalGiven}, {"ABORTED", FastSignalAborted}, {"INVALID", FastSignalInvalid},
		}, false, nil},
		{"TK_FAST_OWNER", "tk_create_fast's owner field", []Entry{
			{"NONE", FastOwnerNone}, {"LAST", FastOwnerLast}, {"NEW", FastOwnerNew}, {"KIND", FastOwnerKind},
		}, false, nil},
		{"TK_WRITE", "a write's answer (protocol/takeover.go)", []Entry{
			{"QUIET", WriteQuiet}, {"QUIET_APPEND", WriteQuietAppend}, {"MASK", WriteMask},
			{"SECTION_NOOP", SectionNoop}, {"SECTION_FALLBACK", SectionFallback}, {"NOT_WRITTEN", NotWritten},
			{"SECTION_PERMIT", SectionPermit}, {"SECTION_SPLIT_SHIFT", SectionSplitShift},
		}, true, nil},
		{"EO_OP", "editor op codes of eo_op (protocol/takeover.go)", []Entry{
			{"APPEND_TEXT", OpAppendText}, {"APPEND_REASONING", OpAppendReasoning}, {"INSERT_AT", OpInsertAt},
			{"REPLACE_RANGE", OpReplaceRange}, {"DELETE_RANGE", OpDeleteRange}, {"APPLY_PATCH", OpApplyPatch},
			{"PATCH_BY_SEMANTIC", OpPatchBySemantic}, {"ENSURE_SECTION", OpEnsureSection},
			{"APPEND_TO_SECTION", OpAppendToSection}, {"MARK_SECTION", OpMarkSection},
			{"CHECK_PIPE", OpCheckPipe}, {"CLASSIFY_CHUNK", OpClassifyChunk},
		}, false, nil},
		{"EO_HANDLE", "editops.HandleKind: what the facade found the handle to be", []Entry{
			{"NONE", int(editops.NotAHandle)}, {"CORE", int(editops.CoreHandle)}, {"DUCK", int(editops.DuckHandle)},
			{"DUCK_NON_STRING", int(editops.DuckNonString)},
		}, false, nil},
		{"EO_TARGET", "editops.Target: which value an edit writes", []Entry{
			{"TEXT", int(editops.Text)}, {"REASONING", int(editops.Reasoning)},
		}, false, nil},
		{"EO_CHUNK", "editops.ChunkTarget: where a piped value's delta goes", []Entry{
			{"SKIP", int(editops.ChunkSkip)}, {"TEXT", int(editops.ChunkText)}, {"REASONING", int(editops.ChunkReasoning)},
		}, false, nil},
		{"EO_PIPE", "editops.PipeMode: pipeFrom's mode", []Entry{
			{"APPEND", int(editops.PipeAppend)}, {"REPLACE", int(editops.PipeReplace)},
		}, false, nil},
		{"EO_PATCH_FIELD", "a patch entry's properties, in the order they cross (editops.PatchFields)", nil, false, editops.PatchFields[:]},
		{"EO_LIMIT", "bounds the facade applies before reading a page's list (takeover/editops)", []Entry{
			{"MAX_PATCH_ENTRIES", editops.MaxPatchEntries},
		}, false, nil},
		{"DRIVER_OP", "takeover.Op: what a driver action asks the facade to do", []Entry{
			{"DONE", int(takeover.OpDone)}, {"DISPATCH", int(takeover.OpDispatch)}, {"CALL", int(takeover.OpCall)},
			{"WARN", int(takeover.OpWarn)}, {"SUBSCRIBE", int(takeover.OpSubscribe)},
			{"AWAIT_COMPLETE", int(takeover.OpAwaitComplete)}, {"UNSUBSCRIBE", int(takeover.OpUnsubscribe)},
			{"USE_CLEANED", int(takeover.OpUseCleaned)}, {"USE_SNAPSHOT", int(takeover.OpUseSnapshot)},
		}, false, nil},
		{"DRIVER_STORE", "takeover.Store: where a call's result goes", []Entry{
			{"NONE", int(takeover.StoreNone)}, {"SLOT", int(takeover.StoreSlot)}, {"SNAPSHOT", int(takeover.StoreSnapshot)},
			{"CLEANUP", int(takeover.StoreCleanup)}, {"LIVE", int(takeover.StoreLive)},
		}, false, nil},
		{"DRIVER_ARG", "takeover.Arg: the values a host call is given", []Entry{
			{"SLOT", int(takeover.ArgSlot)}, {"TYPE", int(takeover.ArgType)}, {"PAYLOAD", int(takeover.ArgPayload)},
			{"TOKEN", int(takeover.ArgToken)}, {"FINAL_TEXT", int(takeover.ArgFinalText)},
			{"FINAL_REASONING", int(takeover.ArgFinalReasoning)}, {"CLEANED", int(takeover.ArgCleaned)},
			{"SNAP_TEXT", int(takeover.ArgSnapText)}, {"SNAP_REASONING", int(takeover.ArgSnapReasoning)},
			{"TYPE_OBJ", int(takeover.ArgTypeObj)}, {"CLEANUP_OBJ", int(takeover.ArgCleanupObj)},
			{"AFTER_OBJ", int(takeover.ArgAfterObj)}, {"EVENT_DEFAULT", int(takeover.ArgEventDefault)},
			{"EVENT_OVERRIDE", int(takeover.ArgEventOverride)}, {"LIVE", int(takeover.ArgLive)},
		}, false, nil},
		{"DRIVER_FN", "takeover.HostFn's names, by number: the host members, in validation order (T54)", nil, false,
			names(int(takeover.FnIsCurrentGeneration)+1, func(i int) string { return takeover.HostFn(i).String() })},
		{"DRIVER_EVENT", "takeover.Event's eventTypes keys, by number", nil, false,
			names(int(takeover.GenerationStopped)+1, func(i int) string { return takeover.Event(i).EventKey() })},
	}
}

func names(n int, name func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name(i)
	}
	return out
}
