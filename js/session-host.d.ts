// Types for js/session-host.js: a harness-like host for the message editor.
import type { EditorHost, SessionEvent } from './session-log.js';

export class LiveSession {
  static load(path: string, options?: { clock?: () => number }): LiveSession;
  readonly id: string;
  readonly path: string;
  readonly header: Record<string, unknown>;
  readonly headerVersion: number;
  readonly length: number;
  snapshot(): SessionEvent[];
  /** Throws SessionLogError and writes nothing when the event is refused. */
  append(type: string, data: unknown, opts?: { surfaceOp?: SessionEvent['surfaceOp']; sourceEventSeqs?: number[] }): number;
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
  constructor(options?: { origin?: string; version?: string; authorize?: (request: Request) => boolean | Promise<boolean> });
  readonly origin: string;
  readonly version: string;
  readonly routes: Map<string, (request: Request) => Promise<Response>>;
  load(path: string, options?: { agent?: Agent | null; clock?: () => number }): LiveSession;
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
