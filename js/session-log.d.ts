// Types for js/session-log.js (Node only; loads tavern-host.wasm beside it).

/** A log as JSONL text or the file's bytes (UTF-8). */
export type LogInput = string | Uint8Array;

export interface LogOptions {
  /** Read stored test snapshots whose events lack seq/time (S103). */
  importSnapshot?: boolean;
  /** Fold as a live snapshot: unknown non-ignorable types are log-only (S14). */
  live?: boolean;
}

export interface Env {
  agentRunning?: boolean;
  wakePending?: boolean;
  /** Epoch ms stamped on planned events. */
  time?: number;
}

export type ValidateResult =
  | { ok: true; version: number; events: number }
  | { ok: false; error: string; code: string; rule?: string; seq: number | null; line?: number };

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

/** code: an S76 code, `invalid-log`, `read-failed`, or `already-active`. */
export class SessionLogError extends Error {
  readonly name: 'SessionLogError';
  readonly code: string;
  readonly rule?: string;
  readonly seq?: number;
  readonly line?: number;
}

export function validate(log: LogInput, options?: LogOptions): ValidateResult;
export function fold(log: LogInput, options?: LogOptions): FoldResult;
export function transcript(log: LogInput, options?: LogOptions & { env?: Env }): TranscriptResult;
export function plan(log: LogInput, request: PlanRequest, options?: LogOptions): PlanResult;
export function openLog(log: LogInput, options?: LogOptions): SessionLog;

export class SessionLog {
  readonly version: number;
  readonly length: number;
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
  agent(id: string): AgentPort | null | undefined;
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
