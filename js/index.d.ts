import type { CreateOpts, MessageEditorHandle, TakeoverError, GenerationType } from './message-takeover.js';
import type { runTakeover, installTakeoverContext } from './takeover-host.js';

// Types only: the values are the loaded core's (TavernCore below), or
// message-takeover.js's own exports.
export type * from './message-takeover.js';

export interface UnsettledHandle {
  owner: string;
  generationType: GenerationType;
  ageMs: number;
  claimed: boolean;
}

export interface TavernCore {
  createMessageEditorHandle(opts?: CreateOpts): MessageEditorHandle;
  TakeoverError: typeof TakeoverError;
  GENERATE_TAKEOVER_DISPATCH: 'generate_takeover_dispatch';
  listUnsettledHandles(): UnsettledHandle[];
  runTakeover: typeof runTakeover;
  installTakeoverContext: typeof installTakeoverContext;
  /** The editor ops of editor-ops.js (EditorOpsError, appendText, …, pipeFrom). */
  [op: string]: unknown;
}

export interface LoadOptions {
  /** Where to fetch tavern-core.wasm (default: beside this module). */
  wasmURL?: string | URL;
  /** The module's bytes, already loaded. */
  wasmBytes?: BufferSource;
}

/**
 * Without options: the package's shared instance (the one every module
 * uses). With wasmURL/wasmBytes: a separate instance.
 */
export function load(options?: LoadOptions): Promise<TavernCore>;
