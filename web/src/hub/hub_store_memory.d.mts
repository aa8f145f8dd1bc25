// Types of hub_store_memory.mjs.
import type { HubStore } from './hub_store.mjs';
export class MemoryHubStore implements HubStore {
  complete: HubStore['complete']; partial: HubStore['partial']; appendPiece: HubStore['appendPiece'];
  finish: HubStore['finish']; put: HubStore['put']; discard: HubStore['discard'];
  getRef: HubStore['getRef']; setRef: HubStore['setRef']; getMeta: HubStore['getMeta']; setMeta: HubStore['setMeta'];
  list: HubStore['list']; remove: HubStore['remove'];
}
