// What the playground lets tests (and curious users) read back: window.tfpPlay.
import type { Model } from 'transformer-playground';
import type { MemoryEstimate } from '../../engine/checkpoint_memory';
import type { EngineInfo } from '../../engine/messages';
import type { Shown } from './inspector';
import type { Outputs } from './outputs';
import type { Ablation } from './ablation';
import type { PlayState } from './state';
import type { HubPicker } from './hub_picker';

/** What tests (and curious users) can read back. */
export interface PlayDebug {
  state: PlayState;
  modelInfo: Model['info'] | null;
  modelLabel: string;
  encoding: { ids: number[]; tokens: string[]; offsets: number[]; truncated: boolean } | null;
  attention: { name: string; dims: number[]; data: Float32Array }[];
  shown: Shown | null;
  outputs: Outputs;
  renders: number;
  loads: number;
  ablation?: Ablation;
  errors: string[];
  /** The Hub panel (hub_picker.ts): its last plan and memory estimate. */
  hub?: HubPicker;
  /** The memory estimate of the last folder opened (open_files.ts). */
  memoryEstimate?: MemoryEstimate;
  /** Tests only: a smaller heap limit for the page's check of a folder before it opens it
   *  (the worker still checks against the module's own). */
  heapLimitBytes?: number;
  /** The engine worker's heap size now (bench/real_size_page.mjs reads it). */
  heapBytes?: () => Promise<number>;
  /** Tests only: makes the engine's module trap (the worker restarts, the model reloads). */
  crashEngine?: () => Promise<void>;
  /** The engine's thread count (1 = the single-threaded build; engine/load_module.ts). */
  threads?: number;
  /** The engine's info as of now (threadsNow: the threads its kernels use at this moment). */
  engineInfo?: () => Promise<EngineInfo>;
}

declare global {
  interface Window {
    tfpPlay: PlayDebug;
  }
}
