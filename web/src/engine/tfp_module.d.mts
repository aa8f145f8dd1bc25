// Types for the Emscripten factory built by cmake/wasm_module.cmake (tfp.mjs). Copied
// next to it as wasm/tfp.d.mts by the build. Only what the worker and tests use.
// Pointers are byte offsets into the module's heap (wasm32: numbers).

export interface TfpModule {
  /** The heap as bytes. Re-read at every use: memory growth replaces the buffer. */
  readonly HEAPU8: Uint8Array;
  UTF8ToString(ptr: number, maxBytes?: number): string;

  _tfp_last_error(): number;
  _tfp_version(): number;
  _tfp_simd_arch(): number;
  _tfp_alloc(bytes: number): number;
  _tfp_free(ptr: number): void;

  _tfp_tensors_free(list: number): void;
  _tfp_tensors_count(list: number): number;
  _tfp_tensors_find(list: number, name: number): number;
  _tfp_tensors_name(list: number, i: number): number;
  _tfp_tensors_rank(list: number, i: number): number;
  _tfp_tensors_dims(list: number, i: number): number;
  _tfp_tensors_data(list: number, i: number): number;

  _tfp_seeded_token_embeddings(bytes: number, lengths: number, nTokens: number, C: number,
                               seed: number, out: number): number;

  _tfp_attn_lab_create(C: number, H: number, seed: number, out: number): number;
  _tfp_attn_lab_free(lab: number): void;
  _tfp_attn_lab_seed_weights(lab: number, seed: number): number;
  _tfp_attn_lab_set_weights_fused(lab: number, wQkv: number, bQkv: number, wOut: number,
                                  bOut: number): number;
  _tfp_attn_lab_set_weights_separate(lab: number, wQ: number, bQ: number, wK: number, bK: number,
                                     wV: number, bV: number, wOut: number, bOut: number): number;
  _tfp_attn_lab_set_mask(lab: number, causal: number, window: number): number;
  _tfp_attn_lab_set_key_padding(lab: number, padding: number, T: number): number;
  _tfp_attn_lab_run(lab: number, x: number, T: number, out: number): number;
}

export interface TfpModuleOptions {
  /** The .wasm bytes, for hosts where the default fetch cannot load it (Node tests). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
}

declare function createTfp(options?: TfpModuleOptions): Promise<TfpModule>;
export default createTfp;
