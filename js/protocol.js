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

// chatsurface.Class: the constructor a chat surface error is made with
export const SURFACE_CLASS = Object.freeze({
  ERROR: 0,
  TYPE_ERROR: 1,
  RANGE_ERROR: 2,
});

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
