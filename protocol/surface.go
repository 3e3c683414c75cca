package protocol

// Chat surface host operations: js/chat-surface.js calls op(host, code, …).
const (
	SurfaceOpen = iota
	SurfaceRender
	SurfaceUpdate
	SurfaceJump
	SurfaceScrollToEnd
	SurfaceHeld
	SurfaceRefreshLayout
	SurfaceReset
	SurfaceDispose
	SurfaceElement
	SurfaceFault
	SurfaceSnapshot
)

// What the browser tells a host (cs_event): frames and timers it asked for,
// the root's notifications.
const (
	SurfaceFrame = iota
	SurfaceTimer
	SurfaceScroll
	SurfaceScrollEnd
	SurfaceMutation
	SurfaceResize
)

// Steps of startChatSurfaceExtensions (C133–C139) the facade asks Go for.
const (
	StartDefaults  = iota // the C138 table as frozen JS objects
	StartValidate         // requirements → call id (C137)
	StartRequired         // call id, extension name → bool (C134)
	StartHookError        // name, export, hook key → throws (C134)
	StartGate             // call id, enabled names → throws or nothing (C137)
	StartDone             // call id: forget its requirements
	StartHook             // hooks.chatSurface, hooks.activate → the hook key to call (chatsurface.StartupHook)
)

// What the facade answers when Go compares a message's version with a
// request's (C119, C121, C122): the facade keeps the versions, so their
// text never crosses. versionedRequest answers a signal (positive) or Threw.
const (
	VersionSame     = 0
	VersionChanged  = 1
	VersionThrew    = -1 // versionOf threw; the facade recorded the throw
	VersionNotThere = -2 // another object (or none) is at the mesid, or getMessages threw
	VersionUnread   = -3 // cs_processor_done: not read here (Go asks itself)
)

// A processor's string result crosses into Go only when Go asks for it:
// cs_processor_done's length is ProcessorResultHeld while the facade keeps
// it for the call. A renderBase settlement returned inline (the value of
// cs_render_base or cs_processor_done) is the call token (two units), then
// InlineHTML and the HTML's units, or InlineHeld and the token whose kept
// result it is (two units).
const (
	ProcessorResultHeld = -1
	InlineHTML          = 0
	InlineHeld          = 1
)

// cs_claim's answer when the claim failed: the error waits in the facade
// (its fail effect), to be thrown out of claims.claim. OK is 0; a contained
// panic is bridge.Failed, with its record in tc_err.
const ClaimFailed = 1

// A classified callback result (C5) crosses as kind | ref<<ResultRefShift;
// a negative result means the call threw.
const ResultRefShift = 3
