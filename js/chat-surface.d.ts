// Types for js/chat-surface.js (rules C1–C148; behaviour: docs/api.md#chat-surface).

export interface ChatSurfaceContext { readonly mesid: number; readonly content: HTMLElement }
export interface ChatSurfaceClaims { claim(source: Element, activate: (ctx: RuntimeContext) => Cleanup): void }
export interface MountContext {
  readonly mesid: number; readonly element: HTMLElement; readonly content: HTMLElement; readonly signal: AbortSignal;
}
export interface RuntimeContext extends MountContext { readonly source: Element }
export type Cleanup = (() => void) | { dispose(): void } | void;

export interface ChatSurfaceParticipant {
  id: string | number;
  protocolVersion: 1;
  prepareContent?(ctx: ChatSurfaceContext, claims: ChatSurfaceClaims): void;
  didMount?(ctx: MountContext): Cleanup;
  didCommitContent?(ctx: MountContext): Cleanup;
}
export interface ParticipantRegistration { fault(error: unknown): void }
/** One frozen context per request, shared by every processor of the chain (C116). */
export interface ContentProcessorContext<M extends object = object> {
  readonly message: M; readonly mesid: number; readonly signal: AbortSignal;
}
export interface ContentProcessor<M extends object = object> {
  id: string;
  /** Resolve to an HTML string (C118); `renderBase()` runs the inner processors once and returns the identical Promise on every call (C115). */
  prepare(ctx: ContentProcessorContext<M>, renderBase: () => Promise<string>): string | PromiseLike<string>;
}
/** The frozen registration (C113); `refresh()` re-runs processors for mounted messages (C129). */
export interface ContentProcessorRegistration { refresh(): Promise<void> }

export interface ChatSurfaceApi {
  readonly protocolVersion: 1;
  isManagedOwnershipRequired(): boolean;
  registerParticipant(definition: ChatSurfaceParticipant): ParticipantRegistration;
  /** Registers a content processor before the first projection (C113, C114). */
  registerContentProcessor(definition: ContentProcessor): ContentProcessorRegistration;
}

export function installChatSurfaceApi(target: object, options: {
  managed: boolean;
  /** Told of each accepted registration (the first install's option only); a throw is reported, never rethrown. */
  onRegister?(kind: 'participant' | 'processor'): void;
}): ChatSurfaceApi;

export interface ChatSurfaceHostOptions<M extends object = object> {
  /** The surface root (`#chat`), the scroll container. */
  root: HTMLElement;
  /** chat[] as it is now. */
  getMessages(): M[];
  /** A new parentless `.mes` root whose `.mes_text` holds exactly `formatMessage(message, mesid)` (C30). */
  materialize(message: M, mesid: number): HTMLElement;
  /** The content HTML of one message. */
  formatMessage(message: M, mesid: number): string;
  /** The page's event bus; only `finishContent` uses it, and may await what it returns. */
  emit(event: string, mesid: number, ...args: unknown[]): unknown;
  managed?: boolean;
  runtimeLimit?: number;
  onFault?(error: Error): void;
  requestAnimationFrame?(cb: () => void): unknown;
  cancelAnimationFrame?(id: unknown): void;
  setTimeout?(cb: () => void, ms: number): unknown;
  clearTimeout?(id: unknown): void;
}

export interface ChatSurfaceSnapshot {
  readonly mode: 'managed' | 'static';
  readonly state: 'inactive' | 'bootstrapping' | 'settled' | 'gesture-scrolling' | 'jumping' | 'faulted' | 'disposed' | 'static';
  readonly messageCount: number;
  readonly mounted: readonly number[];
  readonly ranges: readonly { readonly start: number; readonly end: number }[];
  readonly viewport: readonly number[];
  readonly followingTail: boolean;
  readonly projectionHeld: boolean;
  readonly runtime: {
    readonly mode: 'managed' | 'eager'; readonly maxActive: number; readonly active: number; readonly pending: number;
    readonly scheduled: boolean; readonly suspended: boolean;
    readonly candidates: readonly { readonly participantId: string; readonly mesid: number; readonly state: 'active' | 'pending' }[];
  };
  readonly pendingPreparations: readonly number[];
  readonly fault: Error | null;
}

export interface ChatSurfaceHost {
  /** Projects synchronously; the Promise settles once the mounted messages' requests settled (C130). */
  open(): Promise<void>;
  render(options?: { replace?: number[]; first?: number }): Promise<void>;
  updateContent(mesid: number, options?: { transient?: boolean }): boolean;
  /** Ends a transient state synchronously, waits for the message's request, then emits `event` (C131). */
  finishContent(mesid: number, event?: string, ...args: unknown[]): Promise<void>;
  jumpToMessage(mesid: number): HTMLElement;
  scrollToEnd(): void;
  setProjectionHeld(held: boolean): void;
  refreshLayout(): void;
  resetEpoch(): void;
  getMessageElement(mesid: number): HTMLElement | null;
  getFault(): Error | null;
  snapshot(): ChatSurfaceSnapshot;
  dispose(): void;
}

export function createChatSurfaceHost<M extends object>(options: ChatSurfaceHostOptions<M>): ChatSurfaceHost;

/** One capability requirement (C137, C138). */
export interface ChatSurfaceRequirement { readonly extensionName: string; readonly participantId: string }
/** The default requirements table (C138). */
export const CHAT_SURFACE_RENDERER_CAPABILITIES: readonly ChatSurfaceRequirement[];
export interface ChatSurfaceExtension { name: string; manifest: { hooks?: { chatSurface?: string } } & Record<string, unknown> }
/**
 * Activate enabled extensions in manifest order, awaiting each chatSurface hook or required
 * activation, then check the capability gate (C133–C137). Rejects on every failure.
 */
export function startChatSurfaceExtensions(options: {
  extensions: readonly ChatSurfaceExtension[];
  importExtension(ext: ChatSurfaceExtension): Promise<Record<string, unknown>>;
  activateExtension(ext: ChatSurfaceExtension): unknown;
  requirements?: readonly ChatSurfaceRequirement[];
}): Promise<void>;
