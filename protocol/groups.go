package protocol

import (
	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/jsvalue"
)

// Groups lists every group of js/protocol.js, in file order.
func Groups() []Group {
	return []Group{
		{"TAG", "value tags of the buffer codec (bridge/codec.go)", []Entry{
			{"UNDEFINED", bridge.TagUndefined}, {"NULL", bridge.TagNull}, {"FALSE", bridge.TagFalse},
			{"TRUE", bridge.TagTrue}, {"NUMBER", bridge.TagNumber}, {"STRING", bridge.TagString},
			{"OBJECT", bridge.TagObject}, {"FUNCTION", bridge.TagFunction}, {"SYMBOL", bridge.TagSymbol},
			{"BIGINT", bridge.TagBigInt}, {"RECORD", bridge.TagRecord}, {"REF", bridge.TagRef},
		}, false},
		{"BRAND", "what the facade reports about an object (bridge/codec.go)", []Entry{
			{"PLAIN", bridge.BrandPlain}, {"SIGNAL", bridge.BrandAbortSignal},
			{"ABORTED_SIGNAL", bridge.BrandAbortedSignal}, {"ARRAY", bridge.BrandArray}, {"HANDLE", bridge.BrandHandle},
		}, false},
		{"KIND", "jsvalue.Kind, keyed by typeof (null split out)", []Entry{
			{"undefined", int(jsvalue.Undefined)}, {"null", int(jsvalue.Null)}, {"boolean", int(jsvalue.Boolean)},
			{"number", int(jsvalue.Number)}, {"string", int(jsvalue.String)}, {"object", int(jsvalue.Object)},
			{"function", int(jsvalue.Function)}, {"symbol", int(jsvalue.Symbol)}, {"bigint", int(jsvalue.BigInt)},
		}, false},
		{"STATUS", "fast-lane call results (bridge/errors.go)", []Entry{
			{"OK", bridge.OK}, {"FAILED", bridge.Failed},
		}, false},
		{"CLASS", "apierr.Class: the JS class an error record is thrown as", []Entry{
			{"TAKEOVER_ERROR", int(apierr.TakeoverError)}, {"EDITOR_OPS_ERROR", int(apierr.EditorOpsError)},
			{"TYPE_ERROR", int(apierr.TypeError)}, {"PLAIN_ERROR", int(apierr.PlainError)}, {"INTERNAL", int(apierr.Internal)},
		}, false},
		{"SURFACE_OP", "chat surface host operations (protocol/surface.go)", []Entry{
			{"OPEN", SurfaceOpen}, {"RENDER", SurfaceRender}, {"UPDATE", SurfaceUpdate}, {"JUMP", SurfaceJump},
			{"SCROLL_TO_END", SurfaceScrollToEnd}, {"HELD", SurfaceHeld}, {"REFRESH_LAYOUT", SurfaceRefreshLayout},
			{"RESET", SurfaceReset}, {"DISPOSE", SurfaceDispose}, {"ELEMENT", SurfaceElement},
			{"FAULT", SurfaceFault}, {"SNAPSHOT", SurfaceSnapshot},
		}, false},
		{"SURFACE_START", "startChatSurfaceExtensions steps (protocol/surface.go)", []Entry{
			{"DEFAULTS", StartDefaults}, {"VALIDATE", StartValidate}, {"REQUIRED", StartRequired},
			{"HOOK_ERROR", StartHookError}, {"GATE", StartGate}, {"DONE", StartDone}, {"HOOK", StartHook},
		}, false},
		{"SURFACE_LIMIT", "bounds the facade applies before Go sizes anything (chatsurface)", []Entry{
			{"MAX_MESSAGES", chatsurface.MaxMessages},
		}, false},
		{"SURFACE_CLASS", "chatsurface.Class: the constructor a chat surface error is made with", []Entry{
			{"ERROR", int(chatsurface.ClassError)}, {"TYPE_ERROR", int(chatsurface.ClassTypeError)},
			{"RANGE_ERROR", int(chatsurface.ClassRangeError)},
		}, false},
		{"RESULT", "a classified callback result (C5): kind | ref << REF_SHIFT, negative when it threw", []Entry{
			{"UNDEFINED", int(chatsurface.KindUndefined)}, {"THENABLE", int(chatsurface.KindThenable)},
			{"FUNCTION", int(chatsurface.KindFunction)}, {"DISPOSABLE", int(chatsurface.KindDisposable)},
			{"OTHER", int(chatsurface.KindOther)},
		}, false},
		{"RESULT_LAYOUT", "the bit layout of a classified result", []Entry{
			{"REF_SHIFT", ResultRefShift},
		}, true},
	}
}
