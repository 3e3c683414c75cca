// Types for the message-takeover handle (rules T1–T45, T65; behaviour: docs/api.md#message-takeover-the-handle).

export type GenerationType = 'normal' | 'regenerate' | 'swipe' | 'continue';

export type TakeoverErrorCode =
  | 'invalid_generation_type'
  | 'invalid_argument'
  | 'editor_committed'
  | 'editor_aborted'
  | 'editor_discarded'
  | 'invalid_op_for_continue'
  | 'reentry_too_deep'
  | 'too_many_open_handles'
  | 'internal';

export class TakeoverError extends Error {
  constructor(code: string, message: string, options?: { cause?: unknown; details?: unknown } | null);
  readonly name: 'TakeoverError';
  code: TakeoverErrorCode | string;
  cause: unknown;
  details: Record<string, unknown> | null;
}

export interface CreateOpts {
  generationType: GenerationType;
  /** Default ''. Used for discard rollback and the continue prefix check. */
  originalText?: string;
  /** Default ''. */
  originalReasoning?: string;
  /** Default: a signal of the handle's own that never aborts. */
  abortSignal?: AbortSignal;
  /** Default 33. 0 delivers every write synchronously. */
  flushIntervalMs?: number;
  /** Default 'unknown'. Named in every warning about the handle. */
  owner?: string;
  /** Extension. Default false: the signal never settles the handle (T34). */
  settleOnAbort?: boolean;
}

export interface TakeoverOutcome {
  status: 'committed' | 'aborted' | 'discarded';
  finalText: string;
  finalReasoning: string;
}

export interface MessageEditorHandle {
  getText(): string;
  getReasoning(): string;
  setText(text: string): void;
  setReasoning(text: string): void;
  appendReasoning(delta: string): void;
  isSettled(): boolean;
  commit(): Promise<void>;
  abort(): Promise<void>;
  discard(): Promise<void>;
  readonly complete: Promise<TakeoverOutcome>;
  readonly abortSignal: AbortSignal;
  /** Host-facing: subscribe to throttled buffer updates; null unsubscribes. */
  setOnUpdate(fn: ((text: string, reasoning: string) => void) | null | undefined): void;
}

export const GENERATE_TAKEOVER_DISPATCH: 'generate_takeover_dispatch';

export function createMessageEditorHandle(opts?: CreateOpts): MessageEditorHandle;
