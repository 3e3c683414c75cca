// Types for the host-facing takeover API (rules T46–T71; docs/api.md).
import type { MessageEditorHandle, TakeoverError, GenerationType } from './message-takeover.js';

export interface TakeoverInit {
  type: string;
  isContinue: boolean;
  forceName2: boolean;
  isStreamingEnabled: boolean;
  finalPrompt: unknown;
  generateData: unknown;
  abortSignal: AbortSignal;
  dryRun?: boolean;
  generationToken?: unknown;
}

type MaybePromise<T> = T | Promise<T>;

export interface TakeoverHost {
  emit(eventName: string, ...args: unknown[]): MaybePromise<unknown>;
  /** Pushes a new empty message for 'normal'; reuses the last slot otherwise. */
  acquirePlaceholder(type: GenerationType): MaybePromise<unknown>;
  readSlot(id: unknown): MaybePromise<{ text: string; reasoning: string }>;
  writeSlot(id: unknown, text: string, reasoning: string): MaybePromise<unknown>;
  redraw(id: unknown): MaybePromise<unknown>;
  persist(id: unknown, info: { type: GenerationType }): MaybePromise<unknown>;
  removeSlot(id: unknown): MaybePromise<unknown>;
  restoreSlot(id: unknown, text: string, reasoning: string): MaybePromise<unknown>;
  unlockUI(): MaybePromise<unknown>;
  /** Synchronous: regex and clean-up post-processing. */
  cleanupText?(text: string, info: { type: GenerationType; isContinue: boolean }): string;
  afterCommit?(id: unknown, info: { type: GenerationType; text: string }): MaybePromise<unknown>;
  onClaimed?(payload: DispatchEventData): MaybePromise<unknown>;
  /** Synchronous. */
  isCurrentGeneration?(token: unknown): boolean;
  eventTypes?: { MESSAGE_RECEIVED?: string; CHARACTER_MESSAGE_RENDERED?: string; GENERATION_STOPPED?: string };
}

export interface DispatchEventData {
  type: GenerationType;
  isContinue: boolean;
  forceName2: boolean;
  isStreamingEnabled: boolean;
  finalPrompt: unknown;
  generateData: unknown;
  /** First handle made by this core wins; later assignments are warned and ignored. */
  takeoverHandle: MessageEditorHandle | null;
  abortSignal: AbortSignal;
}

export type TakeoverResult =
  | { dispatched: false; claimed: false }
  | { dispatched: true; claimed: false }
  | {
      dispatched: true;
      claimed: true;
      owner: string;
      status: 'committed' | 'aborted' | 'discarded';
      slotId: unknown | null;
      text: string | null;
      stale: boolean;
    };

export function runTakeover(init: TakeoverInit, host: TakeoverHost): Promise<TakeoverResult>;

export interface TakeoverContext {
  createMessageEditorHandle: typeof import('./message-takeover.js').createMessageEditorHandle;
  TakeoverError: typeof TakeoverError;
  eventTypes: Record<string, string> & { GENERATE_TAKEOVER_DISPATCH: 'generate_takeover_dispatch' };
}

export interface InstallTakeoverContextOptions {
  /**
   * The settleOnAbort default of every handle this context's
   * createMessageEditorHandle makes (a plugin's own boolean still wins).
   * false (the default) follows the seed: the core never settles on abort.
   * true gives Luker's newest behaviour: a handle settles as aborted when
   * its abortSignal fires.
   */
  settleOnAbort?: boolean;
}

export function installTakeoverContext<T extends object>(ctx: T, options?: InstallTakeoverContextOptions): T & TakeoverContext;

export function listUnsettledHandles(): Array<{ owner: string; generationType: GenerationType; ageMs: number; claimed: boolean }>;
