// Types for js/session-host.js: a harness-like host for the message editor.
import type { EditorHost, SessionEvent, RepairPlan } from './session-log.js';

/** Repair a log file whose last write did not finish, keeping a copy (S105). */
export function repairLog(path: string): RepairPlan;

export class LiveSession {
  /** Throws SessionLogError (`torn-tail` with `offset` for a torn file unless repairTornTail). */
  static load(path: string, options?: { clock?: () => number; repairTornTail?: boolean }): LiveSession;
  /** Create a new session file holding only its header (durably: file, then directory) and load it. */
  static create(path: string, header: Record<string, unknown>, options?: { clock?: () => number }): LiveSession;
  /** The repair carried out at load (repairTornTail). */
  readonly repaired?: RepairPlan;
  readonly id: string;
  readonly path: string;
  readonly header: Record<string, unknown>;
  readonly headerVersion: number;
  readonly length: number;
  snapshot(): SessionEvent[];
  /** Throws SessionLogError and writes nothing when the event is refused. */
  append(type: string, data: unknown, opts?: { surfaceOp?: SessionEvent['surfaceOp']; sourceEventSeqs?: number[] }): number;
  /** Durable (fsynced) before it returns; on failure the file is unchanged and the events stay pending. */
  flush(): void;
  close(): void;
}

export class Agent {
  constructor(options?: { status?: 'idle' | 'running'; onFollowup?: (message: unknown) => unknown });
  status: 'idle' | 'running';
  readonly followups: unknown[];
  followup(message: unknown): unknown;
}

export class SessionHost implements EditorHost {
  constructor(options?: { origin?: string; version?: string; authorize?: (request: Request) => boolean | Promise<boolean>; answerTimeoutMs?: number });
  readonly origin: string;
  readonly version: string;
  readonly answerTimeoutMs: number | undefined;
  readonly routes: Map<string, (request: Request) => Promise<Response>>;
  load(path: string, options?: { agent?: Agent | null; clock?: () => number; repairTornTail?: boolean }): LiveSession;
  unload(id: string): void;
  session(id: string): LiveSession | undefined;
  agent(id: string): Agent | undefined;
  authorize(request: Request): boolean | Promise<boolean>;
  mountEditor(): (request: Request) => Promise<Response>;
  fetch(request: Request): Promise<Response>;
  listener(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
}

export function toNodeListener(handle: (request: Request) => Promise<Response>):
  (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
