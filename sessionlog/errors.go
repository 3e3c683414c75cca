package sessionlog

import "fmt"

// MaxLogBytes bounds a log handed over as bytes: a copy of more would not
// leave a 32-bit module room to read it (Go's out-of-memory is fatal), and no
// session comes near it.
const MaxLogBytes = 1 << 30

// Stable error codes. The editor codes are the ones of S76; CodeInvalidLog
// covers every decoder and validator refusal (V1–V23, JSON syntax).
const (
	CodeInvalidLog         = "invalid-log"
	CodeReadFailed         = "read-failed" // the reader itself failed, not the log
	CodeBadRequest         = "bad-request"
	CodeEmptyMessage       = "empty-message"
	CodeMessageNotFound    = "message-not-found"
	CodeNotUserMessage     = "not-user-message"
	CodeAssistantImmutable = "assistant-immutable"
	CodeTargetShadowed     = "target-shadowed"
	CodeNoPrompt           = "no-prompt"
	CodeRegenerateNotLast  = "regenerate-not-last"
	CodeAgentBusy          = "agent-busy"
	CodeNothingToUndo      = "nothing-to-undo"
	CodeCompactionOpen     = "compaction-open"
	CodeSessionNotLoaded   = "session-not-loaded"
	CodeUnsupportedFormat  = "unsupported-format"
	CodeInternal           = "internal"
	// CodeTornTail: the bytes end in an incomplete line, the trace of a
	// write that did not finish (S105); Error.Offset says where it starts.
	CodeTornTail = "torn-tail"
)

// AssistantImmutableMessage is the normative S53 text.
const AssistantImmutableMessage = "Model replies cannot be rewritten in this session format: a surface replacement must list every node it shadows in sourceEventSeqs, and assistant/message refuses that field, so no valid write exists. Nothing was saved."

// LiveAssistantImmutableMessage refuses an edit or undo of a model reply in
// a live v0–v2 session, where S53's reason does not hold.
const LiveAssistantImmutableMessage = "Model replies cannot be rewritten in a live session: the editor changes only your own messages. Use \"Regenerate this turn\" for a new reply. Nothing was saved."

// Error is the value every refusal in this package returns.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Rule names the validator rule (V1…V23) for CodeInvalidLog errors.
	Rule string `json:"rule,omitempty"`
	// Seq is the offending event's index, or -1 when the problem is not
	// tied to an event (header, JSON syntax, editor refusals).
	Seq int `json:"seq"`
	// Line is the 1-based input line for decoder errors, 0 otherwise.
	Line int `json:"line,omitempty"`
	// Offset is the byte offset of a torn tail (CodeTornTail only).
	Offset *int64 `json:"offset,omitempty"`
}

func (e *Error) Error() string { return e.Message }

func refuse(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Seq: -1}
}

func invalid(rule string, seq int, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidLog, Rule: rule, Message: fmt.Sprintf(format, args...), Seq: seq}
}
