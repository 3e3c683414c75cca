// Types for the editor ops (rules O1–O38; behaviour: docs/api.md#editor-ops).
import type { MessageEditorHandle } from './message-takeover.js';

/** O2: the codes an EditorOpsError carries ('internal' for a contained core fault). */
export type EditorOpsErrorCode = 'invalid_offset' | 'patch_not_found' | 'patch_ambiguous' | 'reentry_too_deep' | 'internal';

/** O2: `details.reason` of an `invalid_offset` error. */
export type InvalidOffsetReason =
  | 'not_integer'
  | 'out_of_range'
  | 'end_before_start'
  | 'not_a_string'
  | 'not_an_object'
  | 'unknown_kind'
  | 'unknown_mode'
  | 'bad_section';

/** O24: the window of the text closest to `find` (absent over the work budget). */
export interface NearMiss {
  offset: number;
  text: string;
  distance: number;
}

/** O22/O23: details of a `patch_not_found` from matching. */
export interface PatchNotFoundDetails {
  find: string;
  replaceWith: string;
  matchCount: number;
  nearest?: NearMiss;
  occurrence?: number;
  /** O16: set by applyPatch. */
  index?: number;
}

/** O22: details of a `patch_ambiguous`. */
export interface PatchAmbiguousDetails {
  find: string;
  replaceWith: string;
  firstMatch: number;
  secondMatch: number;
  matchCount: number;
  index?: number;
}

/** O2/O6/O11/O14/O19/O27/O34: details of an `invalid_offset`. Values are as given. */
export interface InvalidOffsetDetails {
  reason: InvalidOffsetReason;
  offset?: unknown;
  start?: unknown;
  end?: unknown;
  max?: number;
  kind?: unknown;
  mode?: unknown;
  occurrence?: unknown;
  id?: unknown;
  status?: unknown;
  index?: number;
}

/** T7: same shape as TakeoverError, with `name === 'EditorOpsError'`. */
export class EditorOpsError extends Error {
  constructor(code: string, message: string, options?: { details?: unknown; cause?: unknown } | null);
  readonly name: 'EditorOpsError';
  code: EditorOpsErrorCode | string;
  cause: unknown;
  /**
   * `{ find }` for an empty or non-string find (O17); otherwise one of the
   * shapes above. Null only for errors built by hand.
   */
  details: InvalidOffsetDetails | PatchNotFoundDetails | PatchAmbiguousDetails | { find: unknown; index?: number } | null;
}

/**
 * O3: the ops accept handles from createMessageEditorHandle and any object
 * with these four methods, and act only through them.
 */
export type EditorHandle = Pick<MessageEditorHandle, 'getText' | 'getReasoning' | 'setText' | 'setReasoning'>;

export interface ReplaceRangePatch {
  kind: 'replace_range';
  start: number;
  end: number;
  text: string;
}

export interface InsertAtPatch {
  kind: 'insert_at';
  offset: number;
  text: string;
}

export interface DeleteRangePatch {
  kind: 'delete_range';
  start: number;
  end: number;
}

/**
 * find/replaceWith, or Luker's newest spelling oldString/newString. For each
 * pair the spec's name is read unless it is undefined or null and the other
 * spelling holds a value, so a patch that gives both reads as find/replaceWith.
 */
export type ContextReplaceFields =
  | { /** O17: a non-empty string, matched by exact code units (T4). */ find: string; oldString?: string;
      /** O18: undefined or null deletes the match. */ replaceWith?: string | null; newString?: string | null }
  | { oldString: string; newString?: string | null; find?: null; replaceWith?: null };

export type ContextReplacePatch = { kind: 'context_replace';
  /** O19, O23 (extension): replace the n-th overlapping match, n ≥ 1. */
  occurrence?: number | null } & ContextReplaceFields;

/** O14: one applyPatch entry; other fields are ignored. */
export type Patch = ReplaceRangePatch | InsertAtPatch | DeleteRangePatch | ContextReplacePatch;

/** O25: one context replace; `kind` and other fields are ignored. */
export type SemanticPatch = { occurrence?: number | null } & ContextReplaceFields;

/** O29: the chunks pipeFrom applies; any other value is skipped. */
export type StreamChunk = { type: 'text'; delta: string } | { type: 'reasoning'; delta: string };

/** O27. */
export interface PipeOptions {
  /** Default 'append'. 'replace' clears the text with setText('') before iterating. */
  mode?: 'append' | 'replace';
  /** Extension: aborting rejects with `signal.reason` and calls the iterator's return() once (O31). */
  signal?: AbortSignal;
}

/** O8: setText(getText() + text); '' still writes. */
export function appendText(h: EditorHandle, text: string): void;
/** O9: setReasoning(getReasoning() + text); '' still writes. */
export function appendReasoning(h: EditorHandle, text: string): void;
/** O10: offset in code units, 0 ≤ offset ≤ length. */
export function insertAt(h: EditorHandle, offset: number, text: string): void;
/** O11: slice(0, start) + text + slice(end). */
export function replaceRange(h: EditorHandle, start: number, end: number, text: string): void;
/** O12. */
export function deleteRange(h: EditorHandle, start: number, end: number): void;
/** O13–O16: entries apply in order to a scratch copy; one setText, or nothing on any failure. */
export function applyPatch(h: EditorHandle, input: Patch | readonly Patch[]): void;
/** O25. */
export function patchBySemantic(h: EditorHandle, spec: SemanticPatch): void;
/** O26–O32: never throws synchronously; resolves when the stream ends, never settles the handle. */
export function pipeFrom(
  h: EditorHandle,
  stream: AsyncIterable<StreamChunk | unknown> | Iterable<StreamChunk | unknown | PromiseLike<StreamChunk | unknown>>,
  opts?: PipeOptions | null,
): Promise<void>;
/** O35: status defaults to 'running'; null or '' gives a bare header. An existing section is left alone. */
export function ensureReasoningSection(h: EditorHandle, id: string, status?: string | null | { status?: string | null }): void;
/** O36: creates the section (status 'running') when missing; '' does nothing. */
export function appendToReasoningSection(h: EditorHandle, id: string, text: string): void;
/** O37: undefined, null or '' gives a bare header. */
export function markReasoningSectionStatus(h: EditorHandle, id: string, status?: string | null): void;
