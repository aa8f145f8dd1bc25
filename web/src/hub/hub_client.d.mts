// Types of hub_client.mjs.
export const DEFAULT_HUB: string;

export type HubErrorCode = 'offline' | 'not-found' | 'revision-not-found' | 'file-not-found' | 'needs-token' | 'bad-token'
  | 'http' | 'unsupported' | 'no-safetensors' | 'checksum' | 'quota' | 'cancelled' | 'bad-name' | 'storage'
  /** The caller's onPlan said no (engine/hub_load.ts): it has said why itself. */
  | 'refused';

export class HubError extends Error {
  constructor(code: HubErrorCode, message: string, details?: Record<string, unknown>);
  code: HubErrorCode;
  details: { file?: string; status?: number; pickled?: string[] } & Record<string, unknown>;
}

export interface HubModelName { repo: string; revision: string }
export function parseHubModel(text: string): HubModelName;
export function hubModelName(name: HubModelName): string;
export function normaliseHub(hub: string): string;
export function isCommit(revision: string): boolean;

export interface HubFiles { [name: string]: { size: number | null; sha256: string | null } }

export class HubClient {
  constructor(options?: { hub?: string; token?: string | null; fetch?: typeof fetch });
  readonly hub: string;
  readonly origin: string;
  token: string | null;
  fileUrl(repo: string, revision: string, file: string): string;
  modelInfo(repo: string, revision: string, signal?: AbortSignal): Promise<{ commit: string; files: HubFiles; gated: unknown }>;
  text(repo: string, commit: string, file: string, signal?: AbortSignal): Promise<string>;
  range(repo: string, commit: string, file: string, start: number, end: number, signal?: AbortSignal): Promise<Uint8Array>;
  from(repo: string, commit: string, file: string, from: number, signal?: AbortSignal): Promise<{ response: Response; start: number }>;
}

export function pickWeights(files: HubFiles): { index?: string; single?: string };
