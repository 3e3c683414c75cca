package chatsurface

// Startup policy of startChatSurfaceExtensions (C133–C138). The facade walks
// the extensions and awaits their hooks; every decision and message is here.

// Requirement is one capability requirement (C137, C138).
type Requirement struct {
	_                            noCompare
	ExtensionName, ParticipantID string
}

// DefaultRequirements is CHAT_SURFACE_RENDERER_CAPABILITIES, in order (C138).
func DefaultRequirements() []Requirement {
	return []Requirement{
		{ExtensionName: "JS-Slash-Runner", ParticipantID: "js-slash-runner/message-runtime"},
		{ExtensionName: "LittleWhiteBox", ParticipantID: "littlewhitebox/message-runtime"},
	}
}

// ErrRequirementsNotArray is C137's error for a requirements value that is
// not an array.
func ErrRequirementsNotArray() *Error {
	return newTypeError(CodeInvalidArgument, "ChatSurface capability requirements must be an array")
}

// MaxRequirements bounds a capability requirements table (C137 names no
// bound): a longer one is refused before anything is sized by its length.
const MaxRequirements = 4096

// ErrRequirementsTooLong refuses a table over MaxRequirements entries.
func ErrRequirementsTooLong(n float64) *Error {
	return errTooLong("capability requirements have ", n, " entries", MaxRequirements)
}

// ErrMalformedRequirement is C137's error for an entry that is not a
// non-null object with string extensionName and participantId.
func ErrMalformedRequirement() *Error {
	return newTypeError(CodeInvalidArgument, "ChatSurface renderer capability is malformed")
}

// HookKey names the manifest hook startChatSurfaceExtensions calls for an
// extension.
type HookKey int

const (
	NoHook          HookKey = iota
	ChatSurfaceHook         // "hooks": {"chatSurface": "<export>"}, the seed's spelling
	ActivateHook            // "hooks": {"activate": "<export>"}, how renderers declare themselves to SillyTavern
)

// Name is the hook's manifest key.
func (k HookKey) Name() string {
	switch k {
	case ChatSurfaceHook:
		return "chatSurface"
	case ActivateHook:
		return "activate"
	}
	return ""
}

// StartupHook is the precedence rule between the two spellings (C134 and
// docs/sillytavern.md): a non-empty string chatSurface hook wins, else a
// non-empty string activate hook, else none (a required extension is then
// activated through the host, C134). Real renderers declare only activate,
// which SillyTavern itself calls; chatSurface is the explicit startup entry,
// so an extension declaring both is started through chatSurface alone. nil
// stands for a value that is not a string.
func StartupHook(chatSurface, activate *string) HookKey {
	switch {
	case chatSurface != nil && *chatSurface != "":
		return ChatSurfaceHook
	case activate != nil && *activate != "":
		return ActivateHook
	}
	return NoHook
}

// ErrHookNotFunction is C134's error; name is the extension's name as listed.
func ErrHookNotFunction(key HookKey, name, export string) *Error {
	return newError(CodeContract, `Extension "`+name+`" declares `+key.Name()+` hook "`+export+
		`" but does not export a function of that name`)
}

// ExtensionMatches reports whether an extension name, with any leading
// "third-party/" removed, equals a requirement's extensionName (C133).
func ExtensionMatches(name, extensionName string) bool {
	const prefix = "third-party/"
	if len(name) >= len(prefix) && name[:len(prefix)] == prefix {
		name = name[len(prefix):]
	}
	return name == extensionName
}

// Required reports whether the extension named name matches a requirement
// (it is then activated even without a hook, C134).
func Required(name string, reqs []Requirement) bool {
	for _, r := range reqs {
		if ExtensionMatches(name, r.ExtensionName) {
			return true
		}
	}
	return false
}

// Gate is C137's capability gate after every activation resolved: in table
// order, each requirement matching an enabled extension must have its
// participant registered.
func (r *Registry) Gate(enabled []string, reqs []Requirement) error {
	for _, q := range reqs {
		on := false
		for _, name := range enabled {
			on = on || ExtensionMatches(name, q.ExtensionName)
		}
		if on && !r.Has(q.ParticipantID) {
			return newError(CodeRegistration, `Bounded ChatSurface requires extension "`+q.ExtensionName+
				`" to register protocol v1 participant "`+q.ParticipantID+`"`)
		}
	}
	return nil
}
