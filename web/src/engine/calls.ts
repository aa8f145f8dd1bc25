// The worker's side of the C API (src/api/tfp_api.h): marshalling only. Inputs are
// copied into buffers from tfp_alloc, results are copied out of the heap into fresh
// Float32Arrays, and every heap view is made at the moment of use — memory growth
// replaces the heap's ArrayBuffer and detaches older views. No maths here.
import type { TfpModule } from './wasm/tfp.mjs';
import type { AttentionRequest, AttentionResult, AttentionWeights, EngineInfo, FloatTensor, NamedTensor } from './messages';
import { withParams } from './params.mjs';

export class TfpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'TfpError';
  }
}

/** A module plus the small helpers every call needs. */
export class Calls {
  /** threads: what the engine runs on once its pool has loaded (load_module.ts). */
  constructor(private readonly m: TfpModule, private readonly threads = m._tfp_threads()) {}

  /** Throws TfpError with tfp_last_error() unless status is TFP_OK. */
  check(status: number): void {
    if (status !== 0) throw new TfpError(status, this.m.UTF8ToString(this.m._tfp_last_error()));
  }

  info(): EngineInfo {
    return { version: this.m.UTF8ToString(this.m._tfp_version()), simdArch: this.m.UTF8ToString(this.m._tfp_simd_arch()),
             threads: this.threads, threadsNow: this.m._tfp_threads() };
  }

  /** Runs body with a heap buffer of `bytes` bytes, freed afterwards. */
  withBuffer<R>(bytes: number, body: (ptr: number) => R): R {
    const ptr = this.m._tfp_alloc(Math.max(bytes, 1));
    if (ptr === 0) this.check(3);
    try {
      return body(ptr);
    } finally {
      this.m._tfp_free(ptr);
    }
  }

  /** Copies bytes onto the heap; the caller frees the pointer with free(). */
  put(bytes: Uint8Array): number {
    const ptr = this.m._tfp_alloc(Math.max(bytes.byteLength, 1));
    if (ptr === 0) this.check(3);
    this.m.HEAPU8.set(bytes, ptr);
    return ptr;
  }

  putFloats(values: Float32Array, expected: number, what: string): number {
    if (values.length !== expected)
      throw new TfpError(1, `${what}: expected ${expected} floats, got ${values.length}`);
    return this.put(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  free(ptr: number): void {
    this.m._tfp_free(ptr);
  }

  readU32(ptr: number): number {
    return new DataView(this.m.HEAPU8.buffer).getUint32(ptr, true);
  }

  /** Copies tensor `name` out of a tfp_tensors list. */
  tensor(list: number, name: string): FloatTensor {
    const nameBytes = new TextEncoder().encode(name + '\0');
    const i = this.withBuffer(nameBytes.length, (p) => {
      this.m.HEAPU8.set(nameBytes, p);
      return this.m._tfp_tensors_find(list, p);
    });
    if (i < 0) throw new TfpError(4, `engine result has no tensor '${name}'`);
    return this.tensorAt(list, i);
  }

  /** Copies every tensor of a tfp_tensors list out, in its order, with its name. */
  tensors(list: number): NamedTensor[] {
    return Array.from({ length: this.m._tfp_tensors_count(list) }, (_, i) =>
      ({ name: this.m.UTF8ToString(this.m._tfp_tensors_name(list, i)), ...this.tensorAt(list, i) }));
  }

  private tensorAt(list: number, i: number): FloatTensor {
    const rank = this.m._tfp_tensors_rank(list, i);
    const dims = Array.from(new Int32Array(this.m.HEAPU8.buffer, this.m._tfp_tensors_dims(list, i), rank));
    const n = dims.reduce((a, b) => a * b, 1);
    const data = n === 0 ? new Float32Array(0)
      : new Float32Array(this.m.HEAPU8.buffer, this.m._tfp_tensors_data(list, i), n).slice();
    return { data, dims };
  }

  /** Seeded token embeddings (T, C) from the engine: one row per token, by its text. */
  tokenEmbeddings(tokens: string[], C: number, seed: number): FloatTensor {
    const enc = new TextEncoder();
    const parts = tokens.map((t) => enc.encode(t));
    const total = parts.reduce((a, p) => a + p.length, 0);
    const bytes = new Uint8Array(total);
    const lengths = new Int32Array(tokens.length);
    let at = 0;
    parts.forEach((p, i) => {
      bytes.set(p, at);
      at += p.length;
      lengths[i] = p.length;
    });
    const bytesPtr = this.put(bytes);
    const lenPtr = this.put(new Uint8Array(lengths.buffer));
    try {
      return this.withBuffer(tokens.length * C * 4, (out) => {
        this.check(this.m._tfp_seeded_token_embeddings(bytesPtr, lenPtr, tokens.length, C, seed >>> 0, out));
        const data = new Float32Array(this.m.HEAPU8.buffer, out, tokens.length * C).slice();
        return { data, dims: [tokens.length, C] };
      });
    } finally {
      this.free(bytesPtr);
      this.free(lenPtr);
    }
  }
}

/** An attention lab handle kept across requests with the same width, heads and weights. */
export class AttentionLab {
  private lab = 0;
  private key = '';

  constructor(private readonly calls: Calls, private readonly m: TfpModule) {}

  run(req: AttentionRequest): AttentionResult {
    const started = performance.now();
    const C = req.dModel, H = req.heads, T = req.tokens.length;
    this.prepare(req);
    const x = req.x ? { data: req.x, dims: [T, C] } : this.calls.tokenEmbeddings(req.tokens, C, req.seed);
    const c = this.calls;
    c.check(this.m._tfp_attn_lab_set_mask(this.lab, req.causal ? 1 : 0, req.window ?? 0));
    if (req.padding) {
      const p = c.put(req.padding);
      try {
        c.check(this.m._tfp_attn_lab_set_key_padding(this.lab, p, req.padding.length));
      } finally {
        c.free(p);
      }
    } else {
      c.check(this.m._tfp_attn_lab_set_key_padding(this.lab, 0, 0));
    }
    const xPtr = c.putFloats(x.data, T * C, 'attention: x (T, C)');
    try {
      return c.withBuffer(4, (outSlot) => {
        c.check(this.m._tfp_attn_lab_run(this.lab, xPtr, T, outSlot));
        const list = c.readU32(outSlot);
        try {
          return {
            tokens: req.tokens.slice(),
            x: { data: x.data.slice(), dims: [T, C] },
            q: c.tensor(list, 'q'),
            k: c.tensor(list, 'k'),
            v: c.tensor(list, 'v'),
            scores: c.tensor(list, 'scores'),
            scaledScores: c.tensor(list, 'scaled_scores'),
            masked: c.tensor(list, 'masked'),
            probs: c.tensor(list, 'probs'),
            headOut: c.tensor(list, 'head_out'),
            out: c.tensor(list, 'out'),
            workerMs: performance.now() - started,
          };
        } finally {
          this.m._tfp_tensors_free(list);
        }
      });
    } finally {
      c.free(xPtr);
    }
  }

  /** (Re)creates the lab when C or H change and sets the requested weights. */
  private prepare(req: AttentionRequest): void {
    const C = req.dModel, H = req.heads;
    const w: AttentionWeights = req.weights ?? { kind: 'seeded', seed: req.seed };
    // Given weights are always re-sent; seeded ones are reused while nothing changes.
    const key = w.kind === 'seeded' ? `${C}/${H}/seed ${w.seed >>> 0}` : '';
    if (key && key === this.key && this.lab) return;
    if (!this.lab || !this.key.startsWith(`${C}/${H}/`)) {
      this.dispose();
      this.lab = this.calls.withBuffer(4, (slot) => {
        this.calls.check(this.m._tfp_attn_lab_create(C, H, (w.kind === 'seeded' ? w.seed : 0) >>> 0, slot));
        return this.calls.readU32(slot);
      });
      this.key = `${C}/${H}/`;
    }
    if (w.kind === 'seeded') this.calls.check(this.m._tfp_attn_lab_seed_weights(this.lab, w.seed >>> 0));
    else this.setWeights(w, C);
    this.key = key || `${C}/${H}/given`;
  }

  private setWeights(w: Exclude<AttentionWeights, { kind: 'seeded' }>, C: number): void {
    const c = this.calls;
    const ptrs: number[] = [];
    const put = (a: Float32Array | undefined, n: number, what: string): number => {
      if (!a) return 0;
      const p = c.putFloats(a, n, what);
      ptrs.push(p);
      return p;
    };
    try {
      if (w.kind === 'fused') {
        c.check(this.m._tfp_attn_lab_set_weights_fused(this.lab,
          put(w.wQkv, 3 * C * C, 'w_qkv (3C, C)'), put(w.bQkv, 3 * C, 'b_qkv (3C)'),
          put(w.wOut, C * C, 'w_out (C, C)'), put(w.bOut, C, 'b_out (C)')));
      } else {
        c.check(withParams(this.m, 'tfp_attn_lab_weights_params', {
          w_q: put(w.wQ, C * C, 'w_q (C, C)'), b_q: put(w.bQ, C, 'b_q (C)'),
          w_k: put(w.wK, C * C, 'w_k (C, C)'), b_k: put(w.bK, C, 'b_k (C)'),
          w_v: put(w.wV, C * C, 'w_v (C, C)'), b_v: put(w.bV, C, 'b_v (C)'),
          w_out: put(w.wOut, C * C, 'w_out (C, C)'), b_out: put(w.bOut, C, 'b_out (C)'),
        }, (p) => this.m._tfp_attn_lab_set_weights_separate(this.lab, p)));
      }
    } finally {
      ptrs.forEach((p) => c.free(p));
    }
  }

  dispose(): void {
    if (this.lab) this.m._tfp_attn_lab_free(this.lab);
    this.lab = 0;
    this.key = '';
  }
}
