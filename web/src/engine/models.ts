// The worker's side of the model C API (tfp_model_*, tfp_encoding_*, tfp_generator_*):
// loading (weights streamed straight into the module's heap), tokenising, forward
// passes, step-wise generation and translation. Marshalling only: every number comes
// from the engine. Heap views are made at the moment of use (memory growth detaches
// older ones) and results are copied out into fresh typed arrays for transfer.
import type { TfpModule } from './wasm/tfp.mjs';
import { attentionSteps } from './attention_steps';
import { activationPatching, gradientAttribution, headAblation, integratedGradients, headMaskEffect, logitAttribution, logitLens, setHeadMask } from './interventions';
import type {
  GradientAttributionArgs, GradientAttributionResult, HeadAblationArgs, IntegratedGradientsArgs, IntegratedGradientsPart, HeadAblationResult, HeadMaskEffect, HeadMaskEntry, LogitAttributionArgs, LogitAttributionResult, LogitLensArgs, LogitLensResult, PatchingArgs, PatchingPart,
  ShardSource,
} from './messages';
import { attentionStepsEmbeddings, forwardEmbeddings } from './embeddings';
import { Calls, TfpError } from './calls';
import { withParams } from './params.mjs';
import type {
  FillMaskArgs, FillMaskResult, FloatTensor, ForwardArgs, ForwardResult, GenerateArgs, GeneratedToken, LoadArgs, LoadProgress, ModelInfo,
  TextSource, TokenChoice, TokenizeResult, TranslateArgs, TranslateResult, WeightsSource,
} from './messages';
import type { AttentionStepsArgs, AttentionStepsResult } from './messages';
import type { AttentionStepsEmbeddingsArgs, ForwardEmbeddingsArgs, ForwardEmbeddingsResult } from './messages';
import { INDEX_NAME, WASM_HEAP_LIMIT, estimateMemory, pickShards, refusal, shardNames, type LoadPrecision, type NamedBlob } from './checkpoint_memory';

const utf8 = new TextEncoder();

/** Where `bytes` stop being UTF-8: the offset of the first byte that is not part of a
 * well-formed sequence (overlong forms, surrogates and code points past U+10FFFF count),
 * or -1 when all of it is. */
function firstBadUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) { i += 1; continue; }
    const n = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    // The second byte's range is narrower after E0, ED, F0 and F4 (no overlong forms,
    // no surrogates, nothing past U+10FFFF); the others are 80..BF.
    const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80, hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= n; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A file's text; a file that is not UTF-8 is refused with the offset of its first bad
 * byte (decoding it would quietly turn those bytes into U+FFFD). */
function utf8Text(bytes: ArrayBuffer, what: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const u8 = new Uint8Array(bytes), at = firstBadUtf8(u8);
    throw new TfpError(1, `${what}: not UTF-8 text (byte ${at} is 0x${(u8[at] ?? 0).toString(16).padStart(2, '0')}, `
      + 'which does not start or continue a UTF-8 character)');
  }
}

async function readText(src: TextSource, what: string): Promise<string | null> {
  if (src.kind === 'text') return src.text;
  if (src.kind === 'file') return utf8Text(await src.file.arrayBuffer(), what);
  const r = await fetch(src.url);
  if (r.status === 404 && src.optional) return null;
  if (!r.ok) throw new TfpError(1, `${src.url}: HTTP ${r.status}`);
  return utf8Text(await r.arrayBuffer(), what);
}

const endsWith = (ids: Int32Array, id: number): boolean => id >= 0 && ids.length > 0 && ids[ids.length - 1] === id;

export class Models {
  private readonly models = new Map<number, { ptr: number; info: ModelInfo }>();
  private readonly generators = new Map<number, { ptr: number; model: number }>();
  private nextHandle = 1;

  constructor(private readonly c: Calls, private readonly m: TfpModule) {}

  counts(): { models: number; generators: number } {
    return { models: this.models.size, generators: this.generators.size };
  }

  heapBytes(): number {
    return this.m.HEAPU8.buffer.byteLength;
  }

  /** Stages the files, streams the weights into the heap, loads; returns a handle. */
  async load(args: LoadArgs, progress: (p: LoadProgress) => void): Promise<{ model: number; info: ModelInfo }> {
    const [config, tokenizer] = await Promise.all([readText(args.config, `${args.name}/config.json`),
      args.tokenizer ? readText(args.tokenizer, `${args.name}/tokenizer.json`) : null]);
    if (config === null) throw new TfpError(1, `${args.name}: config.json is missing`);
    const precision = args.precision ?? '';
    if (args.weights.kind === 'file') await this.checkFits([{ name: 'model.safetensors', file: args.weights.file }], 'this checkpoint', precision);
    const files = this.out((slot) => this.m._tfp_model_files_create(0, slot));
    try {
      // The config and precision first: the weights are narrowed as they stream in.
      this.setText(files, config, (p, n) => this.m._tfp_model_files_set_config(files, p, n));
      if (tokenizer !== null) this.setText(files, tokenizer, (p, n) => this.m._tfp_model_files_set_tokenizer(files, p, n));
      this.setText(files, args.name + '\0', (p) => this.m._tfp_model_files_set_name(files, p));
      if (args.precision) this.setText(files, args.precision + '\0', (p) => this.m._tfp_model_files_set_precision(files, p));
      await this.stageWeights(files, args.weights, progress, precision);
      progress({ stage: 'parsing', bytes: 0, total: 0 });
      const ptr = this.out((slot) => this.m._tfp_model_load(files, slot));
      return this.register(ptr);
    } finally {
      this.m._tfp_model_files_free(files);
    }
  }

  /** Throws the loader's own refusal of a config.json (tfp_config_check), weights unread. */
  checkConfig(config: string, name: string): void {
    const bytes = utf8.encode(config);
    const p = this.c.put(bytes);
    const n = this.c.put(utf8.encode(name + '\0'));
    try {
      this.c.check(this.m._tfp_config_check(p, bytes.length, n));
    } finally {
      this.c.free(p);
      this.c.free(n);
    }
  }

  /** A model with seeded random weights (tfp_model_create_random). */
  random(config: string, tokenizer: string | undefined, seed: number): { model: number; info: ModelInfo } {
    const cfg = this.c.put(utf8.encode(config));
    const tok = tokenizer === undefined ? 0 : this.c.put(utf8.encode(tokenizer));
    try {
      const ptr = this.out((slot) => this.m._tfp_model_create_random(cfg, utf8.encode(config).length, tok,
        tokenizer === undefined ? 0 : utf8.encode(tokenizer).length, seed >>> 0, slot));
      return this.register(ptr);
    } finally {
      this.c.free(cfg);
      if (tok) this.c.free(tok);
    }
  }

  dispose(model: number): void {
    const h = this.models.get(model);
    if (!h) return;
    for (const [g, gen] of this.generators) if (gen.model === model) this.stop(g);
    this.m._tfp_model_free(h.ptr);
    this.models.delete(model);
  }

  tokenize(model: number, text: string, addSpecialTokens: boolean): TokenizeResult {
    const ptr = this.model(model);
    const bytes = utf8.encode(text);
    const p = this.c.put(bytes);
    let enc = 0;
    try {
      enc = this.out((slot) => this.m._tfp_model_tokenize(ptr, p, bytes.length, addSpecialTokens ? 1 : 0, slot));
      const n = this.m._tfp_encoding_count(enc);
      const heap = this.m.HEAPU8.buffer;
      return {
        ids: new Int32Array(heap, this.m._tfp_encoding_ids(enc), n).slice(),
        offsets: new Int32Array(heap, this.m._tfp_encoding_offsets_utf16(enc), 2 * n).slice(),
        specialMask: new Uint8Array(heap, this.m._tfp_encoding_special_mask(enc), n).slice(),
        tokens: JSON.parse(this.m.UTF8ToString(this.m._tfp_encoding_tokens_json(enc))) as string[],
      };
    } finally {
      this.c.free(p);
      this.m._tfp_encoding_free(enc);
    }
  }

  decode(model: number, ids: Int32Array, skipSpecialTokens = true): string {
    const ptr = this.model(model);
    return this.withInts(ids, (p) => {
      const s = this.m._tfp_model_decode(ptr, p, ids.length, skipSpecialTokens ? 1 : 0);
      if (s === 0) this.c.check(2);
      // Not UTF8ToString: it would drop a leading U+FEFF (a BOM to it, text to a tokenizer).
      // A copy (slice), not a view: TextDecoder refuses the threaded module's shared heap.
      const heap = this.m.HEAPU8;
      return new TextDecoder('utf-8', { ignoreBOM: true }).decode(heap.slice(s, heap.indexOf(0, s)));
    });
  }

  /** The vocabulary's spelling of each id. */
  tokens(model: number, ids: Int32Array): string[] {
    return Array.from(ids, (id) => this.token(model, id));
  }

  forward(model: number, args: ForwardArgs): ForwardResult {
    const started = performance.now();
    const ptr = this.model(model);
    const fromText = args.fromText
      ? this.tokenize(model, args.fromText.text, true).ids.slice(0, Math.max(0, Math.floor(args.fromText.maxTokens))) : null;
    const a = fromText ? { ...args, ids: fromText } : args;
    const ptrs: number[] = [];
    const ints = (x: Int32Array | undefined, what: string): number => {
      if (!x) return 0;
      if (what !== 'tgtIds' && x.length !== a.ids.length)
        throw new TfpError(1, `forward: ${what} has ${x.length} values for ${a.ids.length} tokens`);
      const p = this.c.put(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
      ptrs.push(p);
      return p;
    };
    try {
      const ids = ints(a.ids, 'ids'), types = ints(a.tokenTypeIds, 'tokenTypeIds');
      const mask = ints(a.attentionMask, 'attentionMask'), tgt = ints(a.tgtIds, 'tgtIds');
      // args.next needs the last row even when no logits are wanted back.
      const hideLogits = a.next !== undefined && a.logitsLast === -1;
      const list = this.out((slot) => withParams(this.m, 'tfp_forward_params', {
        ids, n: a.ids.length, token_type_ids: types, attention_mask: mask, tgt_ids: tgt,
        n_tgt: a.tgtIds?.length ?? 0, want_attention: a.attention ? 1 : 0, logits_last: hideLogits ? 1 : a.logitsLast ?? 0,
      }, (p) => this.m._tfp_model_forward(ptr, p, slot)));
      try {
        const all = this.c.tensors(list);
        const get = (n: string) => all.find((t) => t.name === n);
        const hidden = get('hidden')!;
        const logits = get('logits');
        const norm = get('hidden_norm')!, argmax = get('argmax');
        const result: ForwardResult = {
          hidden: { data: hidden.data, dims: hidden.dims },
          hiddenNorm: { data: norm.data, dims: norm.dims },
          ...(argmax && !hideLogits ? { argmax: { data: argmax.data, dims: argmax.dims } } : {}),
          attention: all.filter((t) => t.name.endsWith('.probs')),
          workerMs: performance.now() - started,
        };
        if (logits && !hideLogits) result.logits = { data: logits.data, dims: logits.dims };
        if (fromText) result.ids = fromText;
        if (a.next && logits && logits.dims.length === 2 && this.models.get(model)!.info.head === 'lm') {
          const V = logits.dims[1]!, rows = logits.dims[0]!;
          const last = this.m._tfp_tensors_data(list, all.indexOf(logits)) + 4 * (rows - 1) * V;
          result.next = this.topTokens(model, last, V, a.next.topN);
        }
        if (a.fillMask && logits && logits.dims.length === 2 && logits.dims[0] === a.ids.length) {
          // The same top-k as fillMask, from the logits still in the heap (no second pass).
          const li = all.indexOf(logits), V = logits.dims[1]!, n = a.ids.length, fm = a.fillMask;
          const at = this.m._tfp_tensors_data(list, li);
          const k = Math.max(1, Math.floor(fm.topK));
          result.fillMask = this.readFills(model, n, k, performance.now(), (pos, outIds, outProbs, count) =>
            withParams(this.m, 'tfp_fill_mask_params', { ids, n, mask_id: fm.maskId, top_k: k },
              (p) => this.m._tfp_fill_mask_logits(at, V, p, pos, outIds, outProbs, count)));
        }
        return result;
      } finally {
        this.m._tfp_tensors_free(list);
      }
    } finally {
      ptrs.forEach((p) => this.c.free(p));
    }
  }

  generateStart(model: number, a: GenerateArgs): number {
    const ptr = this.model(model);
    const stop = a.stop ? Int32Array.from(a.stop) : new Int32Array(0);
    const gen = this.withInts(a.prompt, (prompt) => this.withInts(stop, (stopPtr) =>
      this.out((slot) => withParams(this.m, 'tfp_generator_params', {
        prompt, n: a.prompt.length, max_tokens: a.maxTokens, temperature: a.temperature, top_k: a.topK,
        top_p: a.topP, seed: a.seed >>> 0, stop_ids: stopPtr, n_stop: a.stop ? stop.length : -1, top_n: a.topN,
      }, (p) => this.m._tfp_generator_create(ptr, p, slot)))));
    const handle = this.nextHandle++;
    this.generators.set(handle, { ptr: gen, model });
    return handle;
  }

  /** One token, or null once the generator has stopped (it is then freed). */
  generateNext(generator: number): GeneratedToken | null {
    const g = this.generators.get(generator);
    if (!g) throw new TfpError(1, 'generate: this generation was stopped or has finished');
    const cap = 64;
    return this.c.withBuffer(12 + cap * 8, (buf) => {
      this.c.check(this.m._tfp_generator_next(g.ptr, buf, buf + 4, buf + 8));
      const view = new DataView(this.m.HEAPU8.buffer);
      if (view.getInt32(buf + 8, true) !== 0) {
        this.stop(generator);
        return null;
      }
      const id = view.getInt32(buf, true), prob = view.getFloat32(buf + 4, true);
      const text = this.m.UTF8ToString(this.m._tfp_generator_text(g.ptr));
      const n = this.m._tfp_generator_top(g.ptr, buf + 12, buf + 12 + cap * 4, cap);
      const ids = new Int32Array(this.m.HEAPU8.buffer, buf + 12, n).slice();
      const probs = new Float32Array(this.m.HEAPU8.buffer, buf + 12 + cap * 4, n).slice();
      const tok: GeneratedToken = {
        id, prob, text, token: this.token(g.model, id),
        top: Array.from(ids, (tid, i) => ({ id: tid, prob: probs[i]!, token: this.token(g.model, tid) })),
      };
      if (this.m._tfp_generator_finished(g.ptr)) {
        tok.stopReason = this.m.UTF8ToString(this.m._tfp_generator_stop_reason(g.ptr)) as GeneratedToken['stopReason'];
        this.stop(generator);
      }
      return tok;
    });
  }

  stop(generator: number): void {
    const g = this.generators.get(generator);
    if (!g) return;
    this.m._tfp_generator_free(g.ptr);
    this.generators.delete(generator);
  }

  translate(model: number, a: TranslateArgs): TranslateResult {
    const ptr = this.model(model);
    // startId -1: the engine's default (config.json's decoder_start_token_id, else bos, else eos).
    // Room for every id the engine may write: the output limit (a recurrent model's own
    // max_target_tokens; a Transformer's context), +1 for a closing eos.
    const info = this.models.get(model)!.info;
    const cap = Math.max(1, a.maxTokens > 0 ? a.maxTokens : (info.max_target_tokens ?? info.max_positions) || 1024) + 1;
    const eos = a.eosId >= 0 ? a.eosId : this.models.get(model)!.info.eos_token_id;
    return this.withInts(a.ids, (src) => this.c.withBuffer(4 * cap + 8, (buf) => {
      this.c.check(withParams(this.m, 'tfp_translate_params', {
        src_ids: src, n: a.ids.length, beam_size: a.beamSize, max_tokens: a.maxTokens, start_id: a.startId,
        eos_id: a.eosId,
      }, (p) => this.m._tfp_model_translate(ptr, p, buf + 8, cap, buf, buf + 4)));
      const n = this.c.readU32(buf), list = this.c.readU32(buf + 4);
      try {
        const ids = new Int32Array(this.m.HEAPU8.buffer, buf + 8, n).slice();
        const all = this.c.tensors(list);
        const alignment = all.find((t) => t.name === 'alignment')!;
        const hasTok = this.models.get(model)!.info.tokenizer !== null;
        const shown = endsWith(ids, eos) ? ids.subarray(0, ids.length - 1) : ids;
        return {
          ids,
          tokens: hasTok ? this.tokens(model, ids) : [],
          text: hasTok && shown.length > 0 ? this.decode(model, shown) : '',
          alignment: { data: alignment.data, dims: alignment.dims },
          crossAttention: all.filter((t) => t.name !== 'alignment'),
        };
      } finally {
        this.m._tfp_tensors_free(list);
      }
    }));
  }

  /** tfp_model_fill_mask: the top fillers of every mask, with the vocabulary's spelling. */
  fillMask(model: number, a: FillMaskArgs): FillMaskResult {
    const started = performance.now();
    const ptr = this.model(model);
    const n = a.ids.length;
    for (const [what, x] of [['tokenTypeIds', a.tokenTypeIds], ['attentionMask', a.attentionMask]] as const)
      if (x && x.length !== n) throw new TfpError(1, `fillMask: ${what} has ${x.length} values for ${n} tokens`);
    const opt = (x: Int32Array | undefined, body: (p: number) => FillMaskResult): FillMaskResult =>
      x ? this.withInts(x, body) : body(0);
    return this.withInts(a.ids, (ids) => opt(a.tokenTypeIds, (types) => opt(a.attentionMask, (mask) =>
      this.readFills(model, n, a.topK, started, (pos, outIds, outProbs, count) =>
        withParams(this.m, 'tfp_fill_mask_params', {
          ids, n, token_type_ids: types, attention_mask: mask, mask_id: a.maskId ?? -1, top_k: a.topK,
        }, (p) => this.m._tfp_model_fill_mask(ptr, p, pos, outIds, outProbs, count))))));
  }

  /** Runs `call` (tfp_model_fill_mask or tfp_fill_mask_logits) on a scratch buffer and
   *  reads its masks, with the vocabulary's spelling of each candidate. */
  private readFills(model: number, n: number, topK: number, started: number,
                    call: (pos: number, outIds: number, outProbs: number, count: number) => number): FillMaskResult {
    const k = Math.max(1, Math.floor(topK));
    // Layout of one scratch buffer: n_masked (4) | positions (n) | ids (n·k) | probs (n·k).
    return this.c.withBuffer(4 + 4 * n + 8 * n * k, (buf) => {
      const pos = buf + 4, outIds = pos + 4 * n, outProbs = outIds + 4 * n * k;
      this.c.check(call(pos, outIds, outProbs, buf));
      const count = this.c.readU32(buf), heap = this.m.HEAPU8.buffer;
      const positions = new Int32Array(heap, pos, count).slice();
      const allIds = new Int32Array(heap, outIds, count * k).slice();
      const allProbs = new Float32Array(heap, outProbs, count * k).slice();
      const masks = Array.from(positions, (position, r) => {
        const candidates = [];
        for (let j = 0; j < k; j++) {
          const id = allIds[r * k + j]!;
          if (id < 0) break;  // the vocabulary is smaller than k
          candidates.push({ id, prob: allProbs[r * k + j]!, token: this.token(model, id) });
        }
        return { position, candidates };
      });
      return { masks, workerMs: performance.now() - started };
    });
  }

  /** tfp_model_attention_steps: the query–key drill-down of one row (attention_steps.ts). */
  attentionSteps(model: number, a: AttentionStepsArgs): AttentionStepsResult {
    return attentionSteps(this.c, this.m, this.model(model), a);
  }

  /** Models that read vectors (PyTorch nn.Transformer): forward and drill-down (embeddings.ts). */
  forwardEmbeddings(model: number, a: ForwardEmbeddingsArgs): ForwardEmbeddingsResult {
    return forwardEmbeddings(this.c, this.m, this.model(model), this.models.get(model)!.info.d_model, a);
  }

  attentionStepsEmbeddings(model: number, a: AttentionStepsEmbeddingsArgs): AttentionStepsResult {
    return attentionStepsEmbeddings(this.c, this.m, this.model(model), this.models.get(model)!.info.d_model, a);
  }

  /** Head ablation and the logit lens (interventions.ts). */
  setHeadMask(model: number, entries: HeadMaskEntry[]): void {
    setHeadMask(this.c, this.m, this.model(model), entries);
  }

  headMaskEffect(model: number, ids: Int32Array, topK: number, beamSize: number): HeadMaskEffect {
    return headMaskEffect(this.c, this.m, this.model(model), ids, topK, beamSize, (id) => this.token(model, id));
  }

  logitLens(model: number, a: LogitLensArgs): LogitLensResult {
    return logitLens(this.c, this.m, this.model(model), a, (id) => this.token(model, id));
  }

  activationPatching(model: number, a: PatchingArgs): PatchingPart {
    return activationPatching(this.c, this.m, this.model(model), a);
  }

  logitAttribution(model: number, a: LogitAttributionArgs): LogitAttributionResult {
    return logitAttribution(this.c, this.m, this.model(model), a);
  }

  gradientAttribution(model: number, a: GradientAttributionArgs): GradientAttributionResult {
    return gradientAttribution(this.c, this.m, this.model(model), a);
  }

  integratedGradients(model: number, a: IntegratedGradientsArgs): IntegratedGradientsPart {
    return integratedGradients(this.c, this.m, this.model(model), a);
  }

  headAblation(model: number, a: HeadAblationArgs): HeadAblationResult {
    return headAblation(this.c, this.m, this.model(model), a);
  }

  /** The module pointer behind a page handle (for the Learn calls that take a model). */
  pointer(model: number): number {
    return this.model(model);
  }

  // ---- helpers --------------------------------------------------------------------

  private model(model: number): number {
    const h = this.models.get(model);
    if (!h) throw new TfpError(1, 'this model was disposed (or never loaded)');
    return h.ptr;
  }

  private register(ptr: number): { model: number; info: ModelInfo } {
    const info = JSON.parse(this.m.UTF8ToString(this.m._tfp_model_info_json(ptr))) as ModelInfo;
    const model = this.nextHandle++;
    this.models.set(model, { ptr, info });
    return { model, info };
  }

  /** tfp_top_tokens_logits on a row of V logits in the heap, with the vocabulary's spelling. */
  private topTokens(model: number, row: number, V: number, topN: number): TokenChoice[] {
    const k = Math.min(64, Math.max(1, Math.floor(topN)));
    // Layout of one scratch buffer: count (4) | ids (k) | probs (k).
    return this.c.withBuffer(4 + 8 * k, (buf) => {
      const ids = buf + 4, probs = ids + 4 * k;
      this.c.check(this.m._tfp_top_tokens_logits(row, V, k, ids, probs, buf));
      const count = this.c.readU32(buf), heap = this.m.HEAPU8.buffer;
      const outIds = new Int32Array(heap, ids, count).slice(), outProbs = new Float32Array(heap, probs, count).slice();
      return Array.from(outIds, (id, i) => ({ id, prob: outProbs[i]!, token: this.token(model, id) }));
    });
  }

  private token(model: number, id: number): string {
    const s = this.m._tfp_model_id_to_token(this.model(model), id);
    return s === 0 ? '' : this.m.UTF8ToString(s);
  }

  /** Calls fn(slot) with a 4-byte out-slot; checks the status; returns the pointer written. */
  private out(fn: (slot: number) => number): number {
    return this.c.withBuffer(4, (slot) => {
      this.c.check(fn(slot));
      return this.c.readU32(slot);
    });
  }

  private withInts<R>(x: Int32Array, body: (ptr: number) => R): R {
    const p = this.c.put(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
    try {
      return body(p);
    } finally {
      this.c.free(p);
    }
  }

  private setText(files: number, text: string, set: (ptr: number, bytes: number) => number): void {
    const bytes = utf8.encode(text);
    const p = this.c.put(bytes);
    try {
      this.c.check(set(p, bytes.length));
    } finally {
      this.c.free(p);
    }
  }

  /** Every tensor of a list, copied out. */
  /** Refuses, before anything is allocated, weights that cannot fit the module's heap. */
  private async checkFits(weights: NamedBlob[], what: string, precision: LoadPrecision): Promise<void> {
    let estimate;
    try {
      estimate = await estimateMemory(weights, WASM_HEAP_LIMIT, precision);
    } catch {
      return;  // a malformed header: the engine names what is wrong with it
    }
    const why = refusal(estimate, what);
    if (why) throw new TfpError(3, why);
  }

  /**
   * A sharded checkpoint: the index's shards, each streamed in piece by piece
   * (tfp_model_files_stream_shard_begin; at f16 or int8 narrowed as they arrive, as a single
   * file is), one progress over all their bytes, then the index.
   */
  private async stageShards(files: number, src: Extract<WeightsSource, { kind: 'shards' }>, progress: (p: LoadProgress) => void,
                            precision: LoadPrecision): Promise<void> {
    const indexText = await readText(src.index, INDEX_NAME);
    if (indexText === null) throw new TfpError(1, `${INDEX_NAME} is missing`);
    let shards: ShardSource[];
    try {
      shards = pickShards(shardNames(indexText), src.shards);
    } catch (e) {
      throw new TfpError(1, e instanceof Error ? e.message : String(e));
    }
    // Files are checked here; streamed shards were checked from their headers by the page.
    const asFiles = shards.filter((s): s is NamedBlob => 'file' in s);
    if (asFiles.length === shards.length) await this.checkFits(asFiles, 'this sharded checkpoint', precision);
    const sizeOf = (s: ShardSource) => ('file' in s ? s.file.size : s.size);
    const total = shards.reduce((a, s) => a + sizeOf(s), 0);
    let done = 0;
    for (const shard of shards) {
      const size = sizeOf(shard);
      this.setText(files, shard.name + '\0', (p) => this.m._tfp_model_files_stream_shard_begin(files, p, size));
      await this.streamPieces(files, chunks('file' in shard ? shard.file.stream() : shard.stream), size, shard.name,
        (at) => progress({ stage: 'reading', bytes: done + at, total }));
      done += size;
    }
    this.setText(files, indexText, (p, n) => this.m._tfp_model_files_set_index(files, p, n));
  }

  /**
   * Streams model.safetensors into the staged files, piece by piece
   * (tfp_model_files_stream_*): at f16 or int8 the engine narrows F32 matrices as they
   * arrive, so the heap never holds the F32 file; otherwise each piece lands where the
   * file's bytes are kept.
   */
  private async stageWeights(files: number, src: WeightsSource, progress: (p: LoadProgress) => void,
                             precision: LoadPrecision): Promise<void> {
    if (src.kind === 'shards') return this.stageShards(files, src, progress, precision);
    let pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
    let total: number;
    if (src.kind === 'buffer') {
      total = src.data.byteLength;
      pieces = slices(new Uint8Array(src.data), 4 << 20);  // a bounded piece: the engine may copy each
    } else if (src.kind === 'file') {
      pieces = chunks(src.file.stream());
      total = src.file.size;
    } else if (src.kind === 'stream') {
      pieces = chunks(src.stream);
      total = src.size;
    } else {
      const r = await fetch(src.url);
      if (!r.ok || !r.body) throw new TfpError(1, `${src.url}: HTTP ${r.status}`);
      const length = Number(r.headers.get('content-length') ?? NaN);
      // A compressed transfer reports the compressed length: only trust it uncompressed.
      total = Number.isFinite(length) && !r.headers.get('content-encoding') ? length : -1;
      if (total < 0) {
        // Unknown size: read it whole (one transient copy), then stream it from memory.
        const data = await r.arrayBuffer();
        return this.stageWeights(files, { kind: 'buffer', data }, progress, precision);
      }
      pieces = chunks(r.body);
    }
    this.c.check(this.m._tfp_model_files_stream_begin(files, total));
    await this.streamPieces(files, pieces, total, 'weights', (at) => progress({ stage: 'reading', bytes: at, total }));
  }

  /** The pieces of one file (`total` bytes, named `what` in errors) into the stream begun. */
  private async streamPieces(files: number, pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, total: number,
                             what: string, read: (at: number) => void): Promise<void> {
    let at = 0;
    for await (const value of pieces) {
      if (at + value.length > total) throw new TfpError(1, `${what}: more than the ${total} bytes announced`);
      const where = this.out((slot) => this.m._tfp_model_files_stream_next(files, value.length, slot));
      this.m.HEAPU8.set(value, where);  // a fresh view: the heap may have grown
      this.c.check(this.m._tfp_model_files_stream_commit(files, value.length));
      at += value.length;
      read(at);
    }
    if (at !== total) throw new TfpError(1, `${what}: read ${at} bytes, expected ${total}`);
  }
}

/** A stream's chunks. */
async function* chunks(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** Views of `bytes`, `size` at a time. */
function* slices(bytes: Uint8Array, size: number): Iterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
