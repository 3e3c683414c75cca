// Generated from tavern-core/protocol by `go test ./protocol -update`: do not edit.
// Every number Go and JavaScript agree on at the bridge has its one source there.

// value tags of the buffer codec (bridge/codec.go)
export const TAG = Object.freeze({
  UNDEFINED: 0,
  NULL: 1,
  FALSE: 2,
  TRUE: 3,
  NUMBER: 4,
  STRING: 5,
  OBJECT: 6,
  FUNCTION: 7,
  SYMBOL: 8,
  BIGINT: 9,
  RECORD: 10,
  REF: 11,
});

// what the facade reports about an object (bridge/codec.go)
export const BRAND = Object.freeze({
  PLAIN: 0,
  SIGNAL: 1,
  ABORTED_SIGNAL: 2,
  ARRAY: 3,
  HANDLE: 4,
});

// jsvalue.Kind, keyed by typeof (null split out)
export const KIND = Object.freeze({
  undefined: 0,
  null: 1,
  boolean: 2,
  number: 3,
  string: 4,
  object: 5,
  function: 6,
  symbol: 7,
  bigint: 8,
});

// fast-lane call results (bridge/errors.go)
export const STATUS = Object.freeze({
  OK: 0,
  FAILED: -1,
});

// apierr.Class: the JS class an error record is thrown as
export const CLASS = Object.freeze({
  TAKEOVER_ERROR: 0,
  EDITOR_OPS_ERROR: 1,
  TYPE_ERROR: 2,
  PLAIN_ERROR: 3,
  INTERNAL: 4,
  RANGE_ERROR: 5,
});

// chat surface host operations (protocol/surface.go)
export const SURFACE_OP = Object.freeze({
  OPEN: 0,
  RENDER: 1,
  UPDATE: 2,
  JUMP: 3,
  SCROLL_TO_END: 4,
  HELD: 5,
  REFRESH_LAYOUT: 6,
  RESET: 7,
  DISPOSE: 8,
  ELEMENT: 9,
  FAULT: 10,
  SNAPSHOT: 11,
});

// what the browser tells a host through cs_event (protocol/surface.go)
export const SURFACE_EVENT = Object.freeze({
  FRAME: 0,
  TIMER: 1,
  SCROLL: 2,
  SCROLL_END: 3,
  MUTATION: 4,
  RESIZE: 5,
});

// startChatSurfaceExtensions steps (protocol/surface.go)
export const SURFACE_START = Object.freeze({
  DEFAULTS: 0,
  VALIDATE: 1,
  REQUIRED: 2,
  HOOK_ERROR: 3,
  GATE: 4,
  DONE: 5,
  HOOK: 6,
});

// the facade's answers to Go's version comparisons (protocol/surface.go)
export const VERSION_READ = Object.freeze({
  SAME: 0,
  CHANGED: 1,
  THREW: -1,
  NOT_THERE: -2,
  UNREAD: -3,
});

// a processor's string result the facade keeps, and inline settlements (protocol/surface.go)
export const PROCESSOR_RESULT = Object.freeze({
  HELD: -1,
  INLINE_HTML: 0,
  INLINE_HELD: 1,
});

// cs_claim's answer besides OK and a contained panic (protocol/surface.go)
export const CLAIM = Object.freeze({
  FAILED: 1,
});

// bounds the facade applies before Go sizes anything (chatsurface)
export const SURFACE_LIMIT = Object.freeze({
  MAX_MESSAGES: 4194304,
});

// the chat surface's DOM batch stream (chatsurface/batch.go): op codes
export const DOM_OP = Object.freeze({
  REMOVE: 1,
  INSERT: 2,
  ROOT_ATTRS: 3,
  SET_ATTR: 4,
  REMOVE_ATTR: 5,
  SET_STYLE: 6,
  SPACER: 7,
  HEIGHT: 8,
  CLONE: 9,
  DIV: 10,
  SET_HTML: 11,
  SWAP: 12,
  SCROLL: 13,
  OBSERVE: 14,
  LISTEN: 15,
  RELEASE: 16,
  FORGET_STYLES: 17,
  READ_SCROLL: 18,
  READ_VIEW: 19,
  READ_BOX: 20,
  READ_RECT: 21,
  READ_HOST_RECT: 22,
  READ_HTML: 23,
  READ_ATTR: 24,
  READ_STYLE: 25,
  READ_CHILDREN: 26,
  READ_NODE: 27,
  QUERY: 28,
  CONTAINS: 29,
  READ_CHILDREN_CHANGED: 30,
  OWNERSHIP: 31,
});

// flags of ROOT_ATTRS and of node reads
export const DOM_FLAG = Object.freeze({
  ROOT_VIRTUAL: 1,
  ROOT_LAST: 2,
  ELEMENT: 1,
  CONNECTED: 2,
  MES: 4,
  MES_TEXT: 8,
  STYLE_PINS: 16,
  UNREGISTERED: -2147483648,
});

// attribute and property names of the batch stream, by number
export const DOM_NAME = Object.freeze([
  "",
  "mesid",
  "data-tt-chat-surface",
  "data-tt-chat-bootstrap",
  "aria-busy",
  "overflow-anchor",
]);

// selectors of QUERY, by number
export const DOM_SELECTOR = Object.freeze([
  "",
  ".mes",
  ".mes_text",
  ".mesIDDisplay",
  "#show_more_messages",
  ".style-pins",
  "tt-chat-spacer",
  ".edit_textarea, .reasoning_edit_textarea",
]);

// spacer kinds (C74): the data-tt-chat-spacer value, by number
export const DOM_SPACER = Object.freeze([
  "top",
  "middle",
]);

// a classified callback result (C5): kind | ref << REF_SHIFT, negative when it threw
export const RESULT = Object.freeze({
  UNDEFINED: 0,
  THENABLE: 1,
  FUNCTION: 2,
  DISPOSABLE: 3,
  OTHER: 4,
});

// the bit layout of a classified result
export const RESULT_LAYOUT = Object.freeze({
  REF_SHIFT: 3,
});

// takeover.State: a handle's status, and tk_settle's argument
export const TK_STATE = Object.freeze({
  OPEN: 0,
  COMMITTED: 1,
  ABORTED: 2,
  DISCARDED: 3,
});

// takeover.State's names, by number
export const TK_STATE_NAME = Object.freeze([
  "open",
  "committed",
  "aborted",
  "discarded",
]);

// takeover.GenType's names, by number (tk_create_fast takes the index)
export const TK_GEN = Object.freeze([
  "normal",
  "regenerate",
  "swipe",
  "continue",
]);

// takeover.Field: what pull reads, and where an outcome's text comes from
export const TK_FIELD = Object.freeze({
  TEXT: 0,
  REASONING: 1,
  ORIGINAL_TEXT: 2,
  ORIGINAL_REASONING: 3,
});

// a settling call's answer (protocol/takeover.go)
export const TK_PACK = Object.freeze({
  SETTLED: 256,
  REMNANT_SHIFT: 9,
  STATUS_SHIFT: 4,
  TEXT_FROM_SHIFT: 2,
  MASK: 3,
});

// a create's answer (protocol/takeover.go)
export const TK_CREATE = Object.freeze({
  SETTLED: 1,
  LISTENS: 2,
  ID_SHIFT: 2,
  TERMINAL_SHIFT: 1,
});

// tk_create_fast's fields, from the low end
export const TK_FAST_FIELD = Object.freeze({
  TEXT: 0,
  REASONING: 1,
  SIGNAL: 2,
  INTERVAL: 3,
  OWNER: 4,
  SETTLE: 5,
});

// tk_create_fast's layout
export const TK_FAST = Object.freeze({
  BITS: 4,
  MASK: 15,
  SETTLE_VALUE: 28,
});

// tk_create_fast's signal field
export const TK_FAST_SIGNAL = Object.freeze({
  ABSENT: 0,
  GIVEN: 1,
  ABORTED: 2,
  INVALID: 3,
});

// tk_create_fast's owner field
export const TK_FAST_OWNER = Object.freeze({
  NONE: 0,
  LAST: 1,
  NEW: 2,
  KIND: 3,
});

// a write's answer (protocol/takeover.go)
export const TK_WRITE = Object.freeze({
  QUIET: 1,
  QUIET_APPEND: 2,
  MASK: 3,
  SECTION_NOOP: 4,
  SECTION_FALLBACK: 8,
  NOT_WRITTEN: 12,
  SECTION_PERMIT: 16,
  SECTION_SPLIT_SHIFT: 5,
});

// editor op codes of eo_op (protocol/takeover.go)
export const EO_OP = Object.freeze({
  APPEND_TEXT: 0,
  APPEND_REASONING: 1,
  INSERT_AT: 2,
  REPLACE_RANGE: 3,
  DELETE_RANGE: 4,
  APPLY_PATCH: 5,
  PATCH_BY_SEMANTIC: 6,
  ENSURE_SECTION: 7,
  APPEND_TO_SECTION: 8,
  MARK_SECTION: 9,
  CHECK_PIPE: 10,
  CLASSIFY_CHUNK: 11,
});

// editops.HandleKind: what the facade found the handle to be
export const EO_HANDLE = Object.freeze({
  NONE: 0,
  CORE: 1,
  DUCK: 2,
  DUCK_NON_STRING: 3,
});

// editops.Target: which value an edit writes
export const EO_TARGET = Object.freeze({
  TEXT: 0,
  REASONING: 1,
});

// editops.ChunkTarget: where a piped value's delta goes
export const EO_CHUNK = Object.freeze({
  SKIP: 0,
  TEXT: 1,
  REASONING: 2,
});

// editops.PipeMode: pipeFrom's mode
export const EO_PIPE = Object.freeze({
  APPEND: 0,
  REPLACE: 1,
});

// a patch entry's properties, in the order they cross (editops.PatchFields)
export const EO_PATCH_FIELD = Object.freeze([
  "kind",
  "start",
  "end",
  "offset",
  "text",
  "find",
  "replaceWith",
  "occurrence",
  "oldString",
  "newString",
]);

// bounds the facade applies before reading a page's list (takeover/editops)
export const EO_LIMIT = Object.freeze({
  MAX_PATCH_ENTRIES: 100000,
});

// takeover.Op: what a driver action asks the facade to do
export const DRIVER_OP = Object.freeze({
  DONE: 0,
  DISPATCH: 1,
  CALL: 2,
  WARN: 3,
  SUBSCRIBE: 4,
  AWAIT_COMPLETE: 5,
  UNSUBSCRIBE: 6,
  USE_CLEANED: 7,
  USE_SNAPSHOT: 8,
});

// takeover.Store: where a call's result goes
export const DRIVER_STORE = Object.freeze({
  NONE: 0,
  SLOT: 1,
  SNAPSHOT: 2,
  CLEANUP: 3,
  LIVE: 4,
});

// takeover.Arg: the values a host call is given
export const DRIVER_ARG = Object.freeze({
  SLOT: 0,
  TYPE: 1,
  PAYLOAD: 2,
  TOKEN: 3,
  FINAL_TEXT: 4,
  FINAL_REASONING: 5,
  CLEANED: 6,
  SNAP_TEXT: 7,
  SNAP_REASONING: 8,
  TYPE_OBJ: 9,
  CLEANUP_OBJ: 10,
  AFTER_OBJ: 11,
  EVENT_DEFAULT: 12,
  EVENT_OVERRIDE: 13,
  LIVE: 14,
});

// takeover.HostFn's names, by number: the host members, in validation order (T54)
export const DRIVER_FN = Object.freeze([
  "emit",
  "acquirePlaceholder",
  "readSlot",
  "writeSlot",
  "redraw",
  "persist",
  "removeSlot",
  "restoreSlot",
  "unlockUI",
  "cleanupText",
  "afterCommit",
  "onClaimed",
  "isCurrentGeneration",
]);

// takeover.Event's eventTypes keys, by number
export const DRIVER_EVENT = Object.freeze([
  "MESSAGE_RECEIVED",
  "CHARACTER_MESSAGE_RENDERED",
  "GENERATION_STOPPED",
]);
