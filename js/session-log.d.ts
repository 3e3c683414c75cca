// Types for js/session-log.js (Node only; loads tavern-host.wasm beside it).

/** A log as JSONL text or the file's bytes (UTF-8). */
/** A log's text or its bytes; anything else is a TypeError. */
export type LogInput = string | Uint8Array | ArrayBuffer;

export interface LogOptions {
  /** Read stored test snapshots whose events lack seq/time (S103). */
  importSnapshot?: boolean;
  /** Fold as a live snapshot: unknown non-ignorable types are log-only and the stored-file load checks are skipped (S14, S108). */
  live?: boolean;
  /** Read the committed prefix of bytes whose last line is torn and report it in `tail` instead of refusing (S105). */
  allowTornTail?: boolean;
}

/** How the bytes a log was read from end (S105). */
export interface Tail {
  /** Length of the committed prefix: where the next append goes. */
  offset: number;
  /** The last line is complete but lacks its newline; a writer adds it before appending. */
  unterminated?: boolean;
  /** With allowTornTail: the torn last line that was left out. */
  torn?: boolean;
  tornBytes?: number;
  tornLine?: number;
}

/** The plan of `tavern-log repair` (S105); the caller does the file work. */
export interface RepairPlan {
  action: 'none' | 'terminate' | 'truncate';
  truncateTo?: number;
  /** Where the whole file is copied before it is truncated. */
  copy?: string;
  tail: Tail;
  events: number;
}

export interface Env {
  agentRunning?: boolean;
  wakePending?: boolean;
  /** Epoch ms stamped on planned events. */
  time?: number;
}

export type ValidateResult =
  | { ok: true; version: number; events: number }
  /** code: `invalid-log`, `torn-tail` (offset: where the torn line starts) or `unsupported-format` (a compressed `session.jsonl.zstd`: decompress it, or read it with `tavern-log`). */
  | { ok: false; error: string; code: string; rule?: string; seq: number | null; line?: number; offset?: number };

export interface SessionEvent {
  type: string;
  seq: number;
  time: number;
  data: unknown;
  surfaceOp?: 'append' | { op: 'replace'; startSeq: number; endSeq: number } | { op: 'replace'; start: number; end: number };
  sourceEventSeqs?: number[];
  [field: string]: unknown;
}

export interface FoldResult { version: number; surface: number[]; messages: unknown[]; length: number }

export interface Row { seq: number; kind: 'user' | 'steering' | 'context' | 'assistant' | 'tool' | 'compaction-marker'; id?: string }
export interface Attachment { attachmentId: string; kind: 'image' | 'file'; name?: string; mediaType?: string }
export interface UserRow {
  seq: number; id: string; liveSeq: number; text: string; attachments: Attachment[];
  edited: boolean; undoable: boolean; regenerable: boolean; shadowed: boolean;
}
export interface Overlay {
  compactionOpen: boolean;
  userRows: UserRow[];
  assistantRows: { seq: number; id: string; regenerable: boolean }[];
  hiddenSeqs: number[];
}
export interface TranscriptResult { version: number; rows: Row[]; overlay: Overlay }

export type Target = { messageId: string } | { seq: number };
export interface PlanRequest extends Env {
  op: 'edit' | 'undo' | 'regenerate' | 'regenerate-turn';
  target: Target;
  text?: string;
  removeAttachments?: string[];
}
export interface PlanResult {
  unchanged: boolean;
  /** The exact event to append at seq = log length (empty when unchanged). */
  events: SessionEvent[];
  originalSeq?: number;
  inFlight?: boolean;
  /** Regenerate: the host must call followup(trigger) after the append. */
  wake?: boolean;
  replacedSeq?: number;
  shadowedSeqs?: number[];
  trigger?: { id: string; role: 'user'; content: { type: 'text'; text: string }[]; source: { kind: string } };
}

/** code: an S76 code, `invalid-log`, `torn-tail`, `unsupported-format` (also a compressed file), `read-failed`, or `already-active`. */
export class SessionLogError extends Error {
  readonly name: 'SessionLogError';
  readonly code: string;
  readonly rule?: string;
  readonly seq?: number;
  readonly line?: number;
  /** A torn tail's byte offset (code `torn-tail`). */
  readonly offset?: number;
}

/** JSON text of a value, refusing what JSON.stringify would silently change (-0, NaN, undefined, Date, …; S111). */
export function losslessJSON(value: unknown, subject?: string): string;
/** Plan the repair of a log file's bytes, as `tavern-log repair` does (S105). */
export function planRepair(log: LogInput, path: string, options?: LogOptions & { now?: number }): RepairPlan;

export function validate(log: LogInput, options?: LogOptions): ValidateResult;
export function fold(log: LogInput, options?: LogOptions): FoldResult;
export function transcript(log: LogInput, options?: LogOptions & { env?: Env }): TranscriptResult;
export function plan(log: LogInput, request: PlanRequest, options?: LogOptions): PlanResult;
export function openLog(log: LogInput, options?: LogOptions): SessionLog;

export class SessionLog {
  readonly version: number;
  readonly length: number;
  readonly tail: Tail;
  /** Validate and fold at seq = length, all or nothing; returns the seq. */
  append(event: SessionEvent | string): number;
  /** Validate a candidate without appending it. */
  check(event: SessionEvent | string): void;
  fold(): FoldResult;
  transcript(env?: Env): TranscriptResult;
  plan(request: PlanRequest): PlanResult;
  /** JSONL, header first. */
  encode(): string;
  close(): void;
}

/** What a host gives the editor (S2). */
export interface EditorHost {
  readonly origin: string;
  readonly version: string;
  authorize(request: Request): boolean | Promise<boolean>;
  /** A loaded session, or nothing (unknown and unloaded look alike, S78). */
  session(id: string): LiveSessionPort | null | undefined;
  /**
   * The session's live agent: the same object for as long as that agent lives, another one once
   * the session has a new agent (a wake this editor requested ends with its agent, S65).
   */
  agent(id: string): AgentPort | null | undefined;
  /**
   * How long the route waits for each answer of the host (append, flush, followup, authorize),
   * default 30,000 ms: past it an append or a flush is answered as unconfirmed, a followup as not
   * woken and an authorize as a refusal, and the session's next edit goes ahead.
   */
  readonly answerTimeoutMs?: number | undefined;
}
export interface LiveSessionPort {
  readonly headerVersion: number;
  /** Synchronous: nothing may yield between snapshot and append (S81). */
  snapshot(): SessionEvent[];
  append(type: string, data: unknown, opts: { surfaceOp?: SessionEvent['surfaceOp']; sourceEventSeqs?: number[] }): number | Promise<number>;
  flush?(): void | Promise<void>;
}
export interface AgentPort {
  readonly status: 'idle' | 'running';
  followup(message: unknown): unknown;
}
export interface RouteRegistry {
  has(path: string): boolean;
  set(path: string, handler: (request: Request) => Promise<Response>): unknown;
}

export function mountEditorRoute(host: EditorHost, routes: RouteRegistry): (request: Request) => Promise<Response>;

export const EDITOR_PATHS: Readonly<{ edit: string; undo: string; regenerate: string; state: string }>;
export const VERSION_HEADER: 'X-Tavern-Core-Version';
/** answerTimeoutMs when the host gives none. */
export const DEFAULT_ANSWER_TIMEOUT_MS: 30000;
