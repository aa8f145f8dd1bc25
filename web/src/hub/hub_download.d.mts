// Types of hub_download.mjs.
import type { HubClient } from './hub_client.mjs';
import type { HubKey, HubStore } from './hub_store.mjs';

export const PIECE_BYTES: number;
export function blobChunks(blob: Blob): AsyncGenerator<Uint8Array>;
interface Where { client: HubClient; store: HubStore; key: HubKey; signal?: AbortSignal }
export function smallFile(args: Where): Promise<string>;
export function fileRange(args: Where & { start: number; end: number }): Promise<Uint8Array>;
export function fileBytes(args: Where & { size: number; sha256: string | null; report?: (bytes: number, net: number) => void }): AsyncGenerator<Uint8Array>;
export function iteratorStream(it: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array>;
