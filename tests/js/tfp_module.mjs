// Loads the web build of the engine (web/src/engine/wasm/tfp.mjs, made by
// cmake/wasm_module.cmake) in Node, and wraps the few C API calls the tests need.
// The module is built for web/worker only, so the .wasm bytes are passed in
// (Node 20's fetch cannot load a file path; see TOOLCHAIN.md).
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';

export const WASM_DIR = new URL('../../web/src/engine/wasm/', import.meta.url);

export async function loadTfp() {
  const mjs = new URL('tfp.mjs', WASM_DIR);
  if (!existsSync(mjs)) throw new Error(`${mjs.pathname} is missing: run tools/build.sh wasm`);
  const { default: createTfp } = await import(mjs.href);
  return createTfp({ wasmBinary: await readFile(new URL('tfp.wasm', WASM_DIR)) });
}

/** Thin helpers over the C API; heap views are made at each use (memory can grow). */
export class Api {
  constructor(m) {
    this.m = m;
  }
  lastError() {
    return this.m.UTF8ToString(this.m._tfp_last_error());
  }
  check(status) {
    if (status !== 0) throw Object.assign(new Error(this.lastError()), { status });
  }
  put(bytes) {
    const p = this.m._tfp_alloc(Math.max(bytes.byteLength, 1));
    if (!p) throw new Error(this.lastError());
    this.m.HEAPU8.set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), p);
    return p;
  }
  u32(ptr) {
    return new DataView(this.m.HEAPU8.buffer).getUint32(ptr, true);
  }
  /** `s` as UTF-8 with its terminating NUL. */
  cstrBytes(s) {
    return new TextEncoder().encode(s + '\0');
  }
  cstr(s) {
    return this.put(this.cstrBytes(s));
  }

  /** Reads and frees a tfp_tensors list: { name: { dims, data: Float32Array (a copy) } }. */
  tensors(list) {
    const out = {};
    for (let i = 0; i < this.m._tfp_tensors_count(list); i++) {
      const name = this.m.UTF8ToString(this.m._tfp_tensors_name(list, i));
      const rank = this.m._tfp_tensors_rank(list, i);
      const dims = Array.from(new Int32Array(this.m.HEAPU8.buffer, this.m._tfp_tensors_dims(list, i), rank));
      const n = dims.reduce((a, b) => a * b, 1);
      out[name] = { dims, data: new Float32Array(this.m.HEAPU8.buffer, this.m._tfp_tensors_data(list, i), n).slice() };
    }
    this.m._tfp_tensors_free(list);
    return out;
  }

  embeddings(tokens, C, seed) {
    const enc = tokens.map((t) => new TextEncoder().encode(t));
    const bytes = new Uint8Array(enc.reduce((a, b) => a + b.length, 0));
    let at = 0;
    for (const e of enc) { bytes.set(e, at); at += e.length; }
    const lens = Int32Array.from(enc, (e) => e.length);
    const pb = this.put(bytes), pl = this.put(lens), out = this.m._tfp_alloc(tokens.length * C * 4);
    try {
      this.check(this.m._tfp_seeded_token_embeddings(pb, pl, tokens.length, C, seed >>> 0, out));
      return new Float32Array(this.m.HEAPU8.buffer, out, tokens.length * C).slice();
    } finally {
      [pb, pl, out].forEach((p) => this.m._tfp_free(p));
    }
  }

  /** Returns a lab handle; throws with the engine's message on failure. */
  createLab(C, H, seed) {
    const slot = this.m._tfp_alloc(4);
    try {
      this.check(this.m._tfp_attn_lab_create(C, H, seed >>> 0, slot));
      return this.u32(slot);
    } finally {
      this.m._tfp_free(slot);
    }
  }

  setPadding(lab, padding) {
    if (!padding) return this.check(this.m._tfp_attn_lab_set_key_padding(lab, 0, 0));
    const p = this.put(Uint8Array.from(padding));
    try {
      this.check(this.m._tfp_attn_lab_set_key_padding(lab, p, padding.length));
    } finally {
      this.m._tfp_free(p);
    }
  }

  /** Runs the lab on x (T, C); returns { name: { data: Float32Array, dims } } for every result. */
  run(lab, x, T) {
    const px = this.put(x), slot = this.m._tfp_alloc(4);
    try {
      this.check(this.m._tfp_attn_lab_run(lab, px, T, slot));
      return this.tensors(this.u32(slot));
    } finally {
      this.m._tfp_free(px);
      this.m._tfp_free(slot);
    }
  }

  /** The whole attention lab request the page makes, in one call. */
  attention({ tokens, dModel, heads, seed, causal = false, window = 0, padding = null }) {
    const lab = this.createLab(dModel, heads, seed);
    try {
      this.check(this.m._tfp_attn_lab_set_mask(lab, causal ? 1 : 0, window));
      this.setPadding(lab, padding);
      return this.run(lab, this.embeddings(tokens, dModel, seed), tokens.length);
    } finally {
      this.m._tfp_attn_lab_free(lab);
    }
  }
}
