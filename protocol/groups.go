package protocol

import (
	"tavern-core/apierr"
	"tavern-core/bridge"
	"tavern-core/chatsurface"
	"tavern-core/jsvalue"
)

// Groups lists every group of js/protocol.js, in file order.
func Groups() []Group {
	return append([]Group{
		{"TAG", "value tags of the buffer codec (bridge/codec.go)", []Entry{
			{"UNDEFINED", bridge.TagUndefined}, {"NULL", bridge.TagNull}, {"FALSE", bridge.TagFalse},
			{"TRUE", bridge.TagTrue}, {"NUMBER", bridge.TagNumber}, {"STRING", bridge.TagString},
			{"OBJECT", bridge.TagObject}, {"FUNCTION", bridge.TagFunction}, {"SYMBOL", bridge.TagSymbol},
			{"BIGINT", bridge.TagBigInt}, {"RECORD", bridge.TagRecord}, {"REF", bridge.TagRef},
		}, false, nil},
		{"BRAND", "what the facade reports about an object (bridge/codec.go)", []Entry{
			{"PLAIN", bridge.BrandPlain}, {"SIGNAL", bridge.BrandAbortSignal},
			{"ABORTED_SIGNAL", bridge.BrandAbortedSignal}, {"ARRAY", bridge.BrandArray}, {"HANDLE", bridge.BrandHandle},
		}, false, nil},
		{"KIND", "jsvalue.Kind, keyed by typeof (null split out)", []Entry{
			{"undefined", int(jsvalue.Undefined)}, {"null", int(jsvalue.Null)}, {"boolean", int(jsvalue.Boolean)},
			{"number", int(jsvalue.Number)}, {"string", int(jsvalue.String)}, {"object", int(jsvalue.Object)},
			{"function", int(jsvalue.Function)}, {"symbol", int(jsvalue.Symbol)}, {"bigint", int(jsvalue.BigInt)},
		}, false, nil},
		{"STATUS", "fast-lane call results (bridge/errors.go)", []Entry{
			{"OK", bridge.OK}, {"FAILED", bridge.Failed},
		}, false, nil},
		{"CLASS", "apierr.Class: the JS class an error record is thrown as", []Entry{
			{"TAKEOVER_ERROR", int(apierr.TakeoverError)}, {"EDITOR_OPS_ERROR", int(apierr.EditorOpsError)},
			{"TYPE_ERROR", int(apierr.TypeError)}, {"PLAIN_ERROR", int(apierr.PlainError)}, {"INTERNAL", int(apierr.Internal)},
			{"RANGE_ERROR", int(apierr.RangeError)},
		}, false, nil},
		{"SURFACE_OP", "chat surface host operations (protocol/surface.go)", []Entry{
			{"OPEN", SurfaceOpen}, {"RENDER", SurfaceRender}, {"UPDATE", SurfaceUpdate}, {"JUMP", SurfaceJump},
			{"SCROLL_TO_END", SurfaceScrollToEnd}, {"HELD", SurfaceHeld}, {"REFRESH_LAYOUT", SurfaceRefreshLayout},
			{"RESET", SurfaceReset}, {"DISPOSE", SurfaceDispose}, {"ELEMENT", SurfaceElement},
			{"FAULT", SurfaceFault}, {"SNAPSHOT", SurfaceSnapshot},
		}, false, nil},
		{"SURFACE_EVENT", "what the browser tells a host through cs_event (protocol/surface.go)", []Entry{
			{"FRAME", SurfaceFrame}, {"TIMER", SurfaceTimer}, {"SCROLL", SurfaceScroll},
			{"SCROLL_END", SurfaceScrollEnd}, {"MUTATION", SurfaceMutation}, {"RESIZE", SurfaceResize},
		}, false, nil},
		{"SURFACE_START", "startChatSurfaceExtensions steps (protocol/surface.go)", []Entry{
			{"DEFAULTS", StartDefaults}, {"VALIDATE", StartValidate}, {"REQUIRED", StartRequired},
			{"HOOK_ERROR", StartHookError}, {"GATE", StartGate}, {"DONE", StartDone}, {"HOOK", StartHook},
		}, false, nil},
		{"VERSION_READ", "the facade's answers to Go's version comparisons (protocol/surface.go)", []Entry{
			{"SAME", VersionSame}, {"CHANGED", VersionChanged},
			{"THREW", VersionThrew}, {"NOT_THERE", VersionNotThere}, {"UNREAD", VersionUnread},
		}, false, nil},
		{"PROCESSOR_RESULT", "a processor's string result the facade keeps, and inline settlements (protocol/surface.go)", []Entry{
			{"HELD", ProcessorResultHeld}, {"INLINE_HTML", InlineHTML}, {"INLINE_HELD", InlineHeld},
		}, false, nil},
		{"CLAIM", "cs_claim's answer besides OK and a contained panic (protocol/surface.go)", []Entry{
			{"FAILED", ClaimFailed},
		}, false, nil},
		{"SURFACE_LIMIT", "bounds the facade applies before Go sizes anything (chatsurface)", []Entry{
			{"MAX_MESSAGES", chatsurface.MaxMessages},
		}, false, nil},
		{"DOM_OP", "the chat surface's DOM batch stream (chatsurface/batch.go): op codes", []Entry{
			{"REMOVE", chatsurface.DomRemove}, {"INSERT", chatsurface.DomInsert}, {"ROOT_ATTRS", chatsurface.DomRootAttrs},
			{"SET_ATTR", chatsurface.DomSetAttr}, {"REMOVE_ATTR", chatsurface.DomRemoveAttr}, {"SET_STYLE", chatsurface.DomSetStyle},
			{"SPACER", chatsurface.DomSpacer}, {"HEIGHT", chatsurface.DomHeight}, {"CLONE", chatsurface.DomClone},
			{"DIV", chatsurface.DomDiv}, {"SET_HTML", chatsurface.DomSetHTML}, {"SWAP", chatsurface.DomSwap},
			{"SCROLL", chatsurface.DomScroll}, {"OBSERVE", chatsurface.DomObserve}, {"LISTEN", chatsurface.DomListen},
			{"RELEASE", chatsurface.DomRelease}, {"FORGET_STYLES", chatsurface.DomForgetStyles}, {"READ_SCROLL", chatsurface.DomReadScroll}, {"READ_VIEW", chatsurface.DomReadView},
			{"READ_BOX", chatsurface.DomReadBox}, {"READ_RECT", chatsurface.DomReadRect}, {"READ_HOST_RECT", chatsurface.DomReadHostRect},
			{"READ_HTML", chatsurface.DomReadHTML}, {"READ_ATTR", chatsurface.DomReadAttr}, {"READ_STYLE", chatsurface.DomReadStyle},
			{"READ_CHILDREN", chatsurface.DomReadChildren}, {"READ_NODE", chatsurface.DomReadNode}, {"QUERY", chatsurface.DomQuery},
			{"CONTAINS", chatsurface.DomContains}, {"READ_CHILDREN_CHANGED", chatsurface.DomReadChildrenChanged},
			{"OWNERSHIP", chatsurface.DomOwnership},
		}, false, nil},
		{"DOM_FLAG", "flags of ROOT_ATTRS and of node reads", []Entry{
			{"ROOT_VIRTUAL", chatsurface.RootVirtual}, {"ROOT_LAST", chatsurface.RootLast},
			{"ELEMENT", chatsurface.NodeElement}, {"CONNECTED", chatsurface.NodeConnected}, {"MES", chatsurface.NodeMes},
			{"MES_TEXT", chatsurface.NodeMesText}, {"STYLE_PINS", chatsurface.NodeStylePins},
			{"UNREGISTERED", int(chatsurface.Unregistered)},
		}, true, nil},
		{"DOM_NAME", "attribute and property names of the batch stream, by number", nil, false, chatsurface.Names[:]},
		{"DOM_SELECTOR", "selectors of QUERY, by number", nil, false, chatsurface.Selectors()},
		{"DOM_SPACER", "spacer kinds (C74): the data-tt-chat-spacer value, by number", nil, false, chatsurface.SpacerKinds[:]},
		{"RESULT", "a classified callback result (C5): kind | ref << REF_SHIFT, negative when it threw", []Entry{
			{"UNDEFINED", int(chatsurface.KindUndefined)}, {"THENABLE", int(chatsurface.KindThenable)},
			{"FUNCTION", int(chatsurface.KindFunction)}, {"DISPOSABLE", int(chatsurface.KindDisposable)},
			{"OTHER", int(chatsurface.KindOther)},
		}, false, nil},
		{"RESULT_LAYOUT", "the bit layout of a classified result", []Entry{
			{"REF_SHIFT", ResultRefShift},
		}, true, nil},
	}, takeoverGroups()...)
}
