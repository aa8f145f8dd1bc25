// Structure-aware mutations of a model folder's files, for bench/soak_folders.mjs (issue 32).
// The JSON operators mirror fuzz/json_mutator.h (the libFuzzer custom mutator of the
// fuzz_json_* targets) in JavaScript: the text is parsed, the tree changed one to four
// times and written back, with raw text (numbers JavaScript cannot hold, deep nesting,
// duplicate keys, long strings) spliced in through marker strings after the dump, as the
// C++ does:
//   - a value's type changed (null, bool, numbers, strings, arrays, objects, wrapped);
//   - a value nested deeply (2 ... 100,000 levels of arrays / objects / both, a loop);
//   - a duplicate key (the same name twice in one object);
//   - huge, negative, fractional, overflowing numbers (1e309, 2^64, -1, 1.5, x*1000 ...);
//   - out-of-range ids: eos/bos/pad/... set around the vocabulary's size, id2label keys;
//   - a field dropped, a field added (names the readers look for), an array element
//     replicated up to 8,192 times, a subtree copied over another;
//   - long strings and keys (up to 262,144 units).
// Text that does not parse, nests deeper than 256 levels, or one time in eight, gets byte
// mutations instead (libFuzzer's LLVMFuzzerMutate, roughly: flips, inserts, erases,
// copies, dictionary words, digits). The safetensors variant rewrites the 8-byte header
// length around the mutated header and, one time in two, recomputes data_offsets from the
// mutated dtypes and shapes (the tensor bytes zero-filled or cut), as mutate_safetensors
// and fix_offsets do; safetensorsBytes adds what a damaged download looks like (the file
// cut short, bytes flipped, a wrong length).
// Everything draws from one seeded PRNG (Rng), so a (seed, index) pair gives the same
// folder on every run.

/** sfc32, seeded through splitmix32 from any number of 32-bit words. */
export class Rng {
  constructor(...words) {
    let h = 0x9e3779b9;
    const mix = (x) => {
      x = (x + 0x9e3779b9) | 0;
      x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
      x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
      return (x ^ (x >>> 16)) >>> 0;
    };
    const s = [];
    for (let i = 0; i < 4; i++) {
      for (const w of words) h = mix(h ^ (w >>> 0));
      h = mix(h + i);
      s.push(h);
    }
    [this.a, this.b, this.c, this.d] = s;
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32() {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
  /** An integer in [0, n), 0 for n <= 0. */
  below(n) {
    if (n <= 0) return 0;
    return Math.min(n - 1, Math.floor((this.u32() / 4294967296) * n));
  }
  chance(oneIn) {
    return this.below(oneIn) === 0;
  }
  pick(a) {
    return a[this.below(a.length)];
  }
}

// The names and values the readers look for (fuzz/json_mutator.h json_words, from
// fuzz/config.dict and fuzz/tokenizer_json.dict).
export const JSON_WORDS = [
  'BPE', 'BPEDecoder', 'BertNormalizer', 'BertPreTokenizer', 'BertProcessing', 'ByteFallback',
  'ByteLevel', 'Char', 'CharDelimiterSplit', 'Contiguous', 'Digits', 'Fuse', 'Isolated', 'Lowercase',
  'MergedWithNext', 'MergedWithPrevious', 'Metaspace', 'NFC', 'NFD', 'NFKC', 'NFKD', 'Precompiled',
  'Prepend', 'Punctuation', 'Regex', 'Removed', 'Replace', 'RobertaProcessing', 'Sequence',
  'SpecialToken', 'Split', 'String', 'Strip', 'StripAccents', 'TemplateProcessing', 'Unigram',
  'Whitespace', 'WhitespaceSplit', 'WordLevel', 'WordPiece', 'absolute', 'activation',
  'activation_function', 'add_prefix_space', 'added_tokens', 'alibi', 'always',
  'apply_residual_connection_post_layernorm', 'architecture', 'attention_bias', 'attention_layers',
  'attention_types', 'attn_logit_softcapping', 'attn_scale', 'attn_softcap', 'base', 'behavior',
  'bert', 'bloom', 'byte_fallback', 'clean_text', 'cleanup', 'cls', 'content',
  'continuing_subword_prefix', 'd_ff', 'd_kv', 'd_model', 'decoder', 'decoder_final_norm',
  'decoder_only', 'decoder_start_token_id', 'decoders', 'default', 'delimiter', 'dim_feedforward',
  'dropout', 'embedding_norm', 'embedding_scale', 'encoder', 'encoder_decoder', 'encoder_final_norm',
  'encoder_head', 'encoder_only', 'end_of_word_suffix', 'eos_token_id', 'factor', 'false', 'family',
  'feed_forward_proj', 'ffn_bias', 'final_logit_softcapping', 'final_norm', 'final_softcap', 'first',
  'fraction', 'full_attention', 'fuse_unk', 'fused_qkv', 'gated_ffn', 'gelu', 'gelu_new',
  'gelu_pytorch_tanh', 'gemma', 'gemma2', 'gemma3_text', 'global', 'gpt2', 'gpt_neo', 'gpt_neox',
  'handle_chinese_chars', 'has_embeddings', 'head_dim', 'hidden_act', 'hidden_activation',
  'hidden_size', 'high_freq_factor', 'id2label', 'ids', 'ignore_merges', 'individual_digits',
  'interleaved', 'intermediate_size', 'invert', 'is_decoder', 'kind', 'layer_norm', 'layer_norm_eps',
  'layer_norm_epsilon', 'layer_types', 'layer_windows', 'learned', 'learned_offset', 'linear',
  'llama', 'llama3', 'lm_head', 'lm_head_scale', 'local', 'local_base', 'low_freq_factor',
  'lowercase', 'lstrip', 'masked_lm', 'max_distance', 'max_input_chars_per_word',
  'max_position_embeddings', 'max_positions', 'max_window_layers', 'merges', 'mistral', 'mlp_bias',
  'model', 'model_type', 'n_ctx', 'n_decoder_layers', 'n_embd', 'n_embed', 'n_encoder_layers',
  'n_head', 'n_heads', 'n_inner', 'n_kv_heads', 'n_labels', 'n_layer', 'n_positions', 'never',
  'nhead', 'none', 'norm', 'norm_first', 'norm_plus_one', 'normalized', 'normalizer', 'normalizers',
  'null', 'num_attention_heads', 'num_buckets', 'num_decoder_layers', 'num_encoder_layers',
  'num_heads', 'num_hidden_layers', 'num_key_value_heads', 'num_layers',
  'original_max_position_embeddings', 'original_max_positions', 'out_bias', 'pad_token_id',
  'padding', 'parallel_residual', 'partial_rotary_factor', 'pattern', 'position_embedding_type',
  'positional', 'post_processor', 'pre_tokenizer', 'precompiled_charsmap', 'prefix', 'prepend',
  'prepend_scheme', 'pretokenizers', 'pretraining_tp', 'processors', 'qk_norm', 'qkv_bias',
  'query_pre_attn_scalar', 'qwen2', 'qwen3', 'relative', 'relative_attention_max_distance',
  'relative_attention_num_buckets', 'relu', 'replacement', 'rms_norm', 'rms_norm_eps', 'rope',
  'rope_local_base_freq', 'rope_scaling', 'rope_theta', 'rope_type', 'rotary_emb_base', 'rotary_pct',
  'rstrip', 'sandwich_norms', 'scale_attn_by_inverse_layer_idx', 'scale_attn_weights', 'scaling',
  'sep', 'seq_length', 'shared_src_tgt_embeddings', 'silu', 'single', 'single_word', 'sinusoidal',
  'sinusoidal_halves', 'sliding_attention', 'sliding_window', 'sliding_window_pattern',
  'slow_but_exact', 'special', 'special_tokens', 'split', 'start', 'stop', 'strip_accents',
  'strip_left', 'strip_right', 'suffix', 'tfp', 'the', 'tie_word_embeddings', 'tied_lm_head',
  'token_classifier', 'tokens', 'torch_transformer', 'transformer', 'trim_offsets', 'true',
  'truncation', 'type', 'type_id', 'type_vocab_size', 'unk_id', 'unk_token', 'use_parallel_residual',
  'use_regex', 'use_sliding_window', 'version', 'vocab', 'vocab_size', 'window_size',
  'bos_token_id', 'sep_token_id', 'cls_token_id', 'mask_token_id', 'unk_token_id', 'label2id',
  'architectures', 'torch_dtype', 'num_labels', '__metadata__', 'dtype', 'shape', 'data_offsets',
  'F32', 'F16', 'BF16', 'F64', 'I64', 'I32', 'I16', 'I8', 'U8', 'BOOL', 'F8_E4M3', 'F8_E5M2'];
export const ID_FIELDS = [
  'eos_token_id', 'bos_token_id', 'pad_token_id', 'decoder_start_token_id', 'sep_token_id',
  'cls_token_id', 'mask_token_id', 'unk_token_id', 'unk_id', 'id', 'ids', 'type_id', 'vocab_size',
  'n_labels', 'num_labels'];

const FIXED_NUMBERS = [
  '0', '-1', '1', '2', '3', '-0', '0.5', '1.5', '-1.5', '255', '256', '65535', '65536',
  '2147483647', '2147483648', '-2147483648', '-2147483649', '4294967295', '4294967296',
  '9007199254740993', '9223372036854775807', '9223372036854775808', '-9223372036854775809',
  '18446744073709551615', '18446744073709551616', '1000000', '100000000', '1e9', '1e18',
  '1e30', '1e38', '3.5e38', '1e308', '1e309', '-1e309', '1e-45', '1e-320', '1e-400', '1E2',
  '123456789012345678901234567890', '0.1', '-0.0', '1e1000000'];
const DEPTHS = [2, 3, 10, 64, 127, 128, 129, 200, 256, 257, 500, 512, 513, 1000, 1025, 4096, 10000, 65536, 100000];
const LONG_UNITS = ['a', '\\u00e9', '\\\\', '\\"', '中', 'ab ', '\\ud83d\\ude42', '🙂', '(', '[', '\\u0000', ' '];
const utf8 = new TextEncoder();
const bytesOf = (s) => utf8.encode(s).length;

/** Inputs nested deeper than this are mutated as bytes (as json_mutator.h's kTreeDepth). */
export const TREE_DEPTH = 256;

/** The deepest nesting of arrays and objects outside strings (a loop, no parse). */
export function scanJsonDepth(s) {
  let depth = 0, deepest = 0, inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) deepest = Math.max(deepest, ++depth);
    else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return deepest;
}

/** A double as nlohmann::json dumps it (json_mutator.h's dump(MJson(x))): 3 -> "3.0". */
function doubleText(x) {
  if (!Number.isFinite(x)) return 'null';
  if (Object.is(x, -0)) return '-0.0';
  const s = String(x);
  return /^-?\d+$/.test(s) ? `${s}.0` : s;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isContainer = (v) => v !== null && typeof v === 'object';
const clone = (v) => (isContainer(v) ? structuredClone(v) : v);

/** json_mutator.h's JsonMutator, on JavaScript values. */
export class JsonMutator {
  constructor(rng) {
    this.rng = rng;
  }
  below(n) { return this.rng.below(n); }
  chance(n) { return this.rng.chance(n); }
  pick(a) { return this.rng.pick(a); }

  /** `text` mutated as a JSON tree (at most maxSize UTF-8 bytes); null when it does not
   * parse, nests deeper than TREE_DEPTH, or every try came out too big. `ops` collects
   * the names of the operators applied. */
  mutate(text, maxSize, ops = []) {
    if (scanJsonDepth(text) > TREE_DEPTH) return null;
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    const size = bytesOf(text);
    for (let attempt = 0; attempt < 4; attempt++) {
      this.root = clone(parsed);
      this.subst = [];
      this.budget = maxSize > size ? maxSize - size : 0;
      const tried = [];
      const n = 1 + this.below(4);
      for (let i = 0; i < n; i++) tried.push(this.mutateOnce());
      let out = this.chance(5) ? JSON.stringify(this.root, null, 2) : JSON.stringify(this.root);
      if (out === undefined) out = 'null';
      for (let k = this.subst.length - 1; k >= 0; k--) {
        const [from, to] = this.subst[k];
        if (out.includes(from)) out = out.split(from).join(to);
      }
      if (bytesOf(out) <= maxSize) {
        ops.push(...tried);
        return out;
      }
    }
    return null;
  }

  /** A safetensors file (8-byte little-endian header length, JSON header, tensor bytes)
   * with its header mutated; null when the header does not parse. */
  mutateSafetensors(file, maxSize, ops = []) {
    if (file.length < 8) return null;
    const n = Number(new DataView(file.buffer, file.byteOffset, 8).getBigUint64(0, true));
    if (n > file.length - 8) return null;
    const header = new TextDecoder().decode(file.subarray(8, 8 + n));
    let data = file.subarray(8 + n);
    const room = maxSize > data.length + 8 ? maxSize - data.length - 8 : 0;
    let h = this.mutate(header, room, ops);
    if (h === null) return null;
    if (this.chance(2)) {
      const fixed = this.fixOffsets(h, maxSize);
      if (fixed) {
        ops.push('fix_offsets');
        h = fixed.header;
        const d = new Uint8Array(fixed.bytes);
        d.set(data.subarray(0, Math.min(data.length, fixed.bytes)));
        data = d;
      }
    }
    let hb = utf8.encode(h);
    if (!this.chance(4) && hb.length % 8) {  // the writers' alignment
      const padded = new Uint8Array(hb.length + (8 - (hb.length % 8))).fill(0x20);
      padded.set(hb);
      hb = padded;
    }
    const out = new Uint8Array(8 + hb.length + data.length);
    new DataView(out.buffer).setBigUint64(0, BigInt(hb.length), true);
    out.set(hb, 8);
    out.set(data, 8 + hb.length);
    return out.length > maxSize ? null : out;
  }

  // Every node, breadth first, at most 200,000: { value, parent, key, depth } (key: a
  // property name or an array index; parent null for the root).
  nodes() {
    const out = [{ value: this.root, parent: null, key: null, depth: 0 }];
    for (let i = 0; i < out.length && out.length < 200000; i++) {
      const v = out[i].value, d = out[i].depth + 1;
      if (Array.isArray(v)) for (let k = 0; k < v.length; k++) out.push({ value: v[k], parent: v, key: k, depth: d });
      else if (isObject(v)) for (const k of Object.keys(v)) out.push({ value: v[k], parent: v, key: k, depth: d });
    }
    return out;
  }
  set(node, value) {
    if (node.parent === null) this.root = value;
    else node.parent[node.key] = value;
    node.value = value;
  }
  // Half the time a node near the top (depth <= 3: the fields that size a model), else any.
  pickNode(all, want = null) {
    const shallow = this.chance(2);
    let fit = [];
    for (let i = 0; i < all.length; i++) if ((!want || want(all[i].value)) && (!shallow || all[i].depth <= 3)) fit.push(i);
    if (!fit.length) for (let i = 0; i < all.length; i++) if (!want || want(all[i].value)) fit.push(i);
    return fit.length ? all[this.pick(fit)] : all[0];
  }
  // A marker string standing for raw text (written into the dump afterwards).
  raw(text) {
    const m = `@@tfp${this.subst.length}@@`;
    this.subst.push([`"${m}"`, text]);
    return m;
  }
  dump(v) {
    const s = JSON.stringify(v);
    return s === undefined ? 'null' : s;
  }
  spend(bytes) {
    this.budget = bytes > this.budget ? 0 : this.budget - bytes;
  }

  // The vocabulary's size as the file says it (config vocab_size, tokenizer model.vocab).
  vocabSize() {
    const r = this.root;
    if (isObject(r)) {
      const v = r.vocab_size;
      if (Number.isInteger(v)) return v >= 0 && v < 2 ** 40 ? v : 1000;
      const m = r.model;
      if (isObject(m) && isContainer(m.vocab)) return Array.isArray(m.vocab) ? m.vocab.length : Object.keys(m.vocab).length;
    }
    return 1000;
  }

  interestingNumber(old) {
    if (typeof old === 'number' && this.chance(2)) {
      const x = old;
      switch (this.below(8)) {
        case 0: return doubleText(x + 1);
        case 1: return doubleText(x - 1);
        case 2: return doubleText(-x);
        case 3: return doubleText(x * 2);
        case 4: return doubleText(x * 1000);
        case 5: return doubleText(x * 1e6);
        case 6: return doubleText(x + 0.5);
        default: return doubleText(Math.trunc(x) * 1000003);
      }
    }
    return this.pick(FIXED_NUMBERS);
  }

  longText(want) {
    want = Math.min(want, Math.floor(this.budget / 2));
    const u = this.pick(LONG_UNITS);
    const count = Math.max(0, Math.ceil(want / u.length));
    return `"${u.repeat(count)}"`;
  }

  // A value of some other type (or an interesting one of the same).
  otherValue(old) {
    switch (this.below(15)) {
      case 0: return null;
      case 1: return true;
      case 2: return false;
      case 3: case 4: case 5: return this.raw(this.interestingNumber(old));
      case 6: return '';
      case 7: return this.pick(JSON_WORDS);
      case 8: return this.raw(this.longText(2 ** (6 + this.below(13))));
      case 9: return [];
      case 10: return {};
      case 11: return old !== undefined ? [clone(old)] : [1];
      case 12: return old !== undefined ? { [this.pick(JSON_WORDS)]: clone(old) } : { a: 1 };
      case 13: return [this.raw(this.interestingNumber(old)), this.raw(this.interestingNumber(undefined))];
      default: return this.raw(String(this.vocabSize() + this.below(3)));
    }
  }

  // `inner` inside `depth` arrays / objects / both, as text, built by a loop.
  nested(inner, depth) {
    const shape = this.below(4);
    const key = `"${this.chance(2) ? 'a' : this.pick(JSON_WORDS)}":`;
    const per = key.length + 3;
    if (per * depth > this.budget) depth = Math.floor(this.budget / per);
    const obj = (i) => shape === 1 || (shape === 2 && i % 2 === 1) || (shape === 3 && i % 7 === 3);
    const open = [], close = [];
    for (let i = 0; i < depth; i++) open.push(obj(i) ? `{${key}` : '[');
    for (let i = depth; i-- > 0;) close.push(obj(i) ? '}' : ']');
    return open.join('') + inner + close.join('');
  }

  mutateOnce() {
    const all = this.nodes();
    switch (this.below(13)) {
      case 0: case 1: {
        const n = this.pickNode(all);
        this.set(n, this.otherValue(n.value));
        return 'type';
      }
      case 2: {
        const n = this.pickNode(all);
        let inner = this.chance(3) ? this.dump(n.value) : (this.chance(2) ? '1' : '"x"');
        if (inner.length > 4096) inner = '0';
        const depth = this.pick(DEPTHS);
        const text = this.nested(inner, depth);
        this.spend(text.length);
        this.set(n, this.raw(text));
        return `nest(${depth})`;
      }
      case 3: {
        const n = this.pickNode(all, (v) => isObject(v) && Object.keys(v).length > 0);
        if (!isObject(n.value) || !Object.keys(n.value).length) return 'dup_key(none)';
        const keys = Object.keys(n.value), key = keys[this.below(keys.length)];
        const old = n.value[key];
        const value = this.chance(2) ? clone(old) : this.otherValue(old);
        n.value[this.raw(JSON.stringify(key))] = value;
        return 'dup_key';
      }
      case 4: case 5: {
        const n = this.pickNode(all, (v) => typeof v === 'number');
        this.set(n, this.raw(this.interestingNumber(n.value)));
        return 'number';
      }
      case 6: {
        const v = this.vocabSize();
        const values = [
          String(v), String(v + 1), String(v - 1), String(v * 2), String(v + 1000000), '-1', '-2', '2147483647',
          '2147483648', '4294967296', '1.5', `${v}.5`, `"${v - 1}"`, `[${v}]`, `[0, ${v + 5}]`, '[[1]]', '{"a": 1}',
          'true', 'null', '1e20'];
        const hits = [];
        for (let i = 0; i < all.length; i++) if (typeof all[i].key === 'string' && ID_FIELDS.includes(all[i].key)) hits.push(i);
        if (hits.length && !this.chance(3)) {
          this.set(all[this.pick(hits)], this.raw(this.pick(values)));
        } else if (isObject(this.root)) {
          if (this.chance(4)) {
            const key = this.chance(2) ? String(v + this.below(3)) : this.pick(['-1', '1.5', 'x', '', '99999999999']);
            this.root[this.chance(2) ? 'id2label' : 'label2id'] = { [key]: 'L' };
          } else {
            this.root[this.pick(ID_FIELDS)] = this.raw(this.pick(values));
          }
        }
        return 'ids';
      }
      case 7: {
        const n = this.pickNode(all, isContainer);
        if (Array.isArray(n.value) && n.value.length) n.value.splice(this.below(n.value.length), 1);
        else if (isObject(n.value)) {
          const keys = Object.keys(n.value);
          if (keys.length) delete n.value[keys[this.below(keys.length)]];
        }
        return 'drop';
      }
      case 8: case 9: {
        let target = this.root;
        if (!this.chance(2) || !isObject(this.root)) target = this.pickNode(all, isObject).value;
        if (!isObject(target)) return 'add(none)';
        target[this.pick(JSON_WORDS)] = this.otherValue(undefined);
        return 'add';
      }
      case 10: {
        const n = this.pickNode(all, (v) => typeof v === 'string');
        const text = this.longText(2 ** (8 + this.below(11)));
        this.spend(text.length);
        if (this.chance(4) && n.parent && isObject(n.parent)) n.parent[this.raw(text)] = clone(n.value);
        else this.set(n, this.raw(text));
        return 'long_string';
      }
      case 11: {
        const n = this.pickNode(all, (v) => Array.isArray(v) && v.length > 0);
        if (!Array.isArray(n.value) || !n.value.length) return 'replicate(none)';
        const el = n.value[this.below(n.value.length)];
        const each = this.dump(el).length + 1;
        const k = Math.min(2 ** this.below(14), Math.floor(this.budget / each));
        for (let i = 0; i < k; i++) n.value.push(clone(el));
        this.spend(k * each);
        return `replicate(${k})`;
      }
      default: {
        const from = this.pickNode(all), to = this.pickNode(all);
        const size = this.dump(from.value).length;
        if (size > this.budget) return 'copy(none)';
        this.spend(size);
        this.set(to, clone(from.value));
        return 'copy';
      }
    }
  }

  // data_offsets recomputed from each entry's dtype and shape: { header, bytes } (the data's
  // new length), or null (deeply nested or not an object: left as written).
  fixOffsets(header, maxSize) {
    if (scanJsonDepth(header) > TREE_DEPTH) return null;
    let h;
    try {
      h = JSON.parse(header);
    } catch {
      return null;
    }
    if (!isObject(h)) return null;
    const SIZES = { F64: 8, I64: 8, U64: 8, F32: 4, I32: 4, U32: 4, F16: 2, BF16: 2, I16: 2, U16: 2, I8: 1, U8: 1, BOOL: 1 };
    let off = 0;
    for (const [name, t] of Object.entries(h)) {
      if (name === '__metadata__' || !isObject(t) || typeof t.dtype !== 'string' || !Array.isArray(t.shape)) continue;
      const size = SIZES[t.dtype] ?? (t.dtype.startsWith('F8') ? 1 : 0);
      if (!size) continue;
      let numel = 1, ok = true;
      for (const dim of t.shape) {
        if (!Number.isInteger(dim) || dim < 0) { ok = false; break; }
        if (dim !== 0 && numel > 2 ** 32 / dim) { ok = false; break; }
        numel *= dim;
      }
      if (!ok || numel * size > maxSize) continue;
      t.data_offsets = [off, off + numel * size];
      off += numel * size;
    }
    const out = JSON.stringify(h);
    if (off + bytesOf(out) + 16 > maxSize) return null;
    return { header: out, bytes: off };
  }
}

/** Byte mutations (what LLVMFuzzerMutate does, roughly) of `bytes`, 1 to 4 of them. */
export function mutateBytes(rng, bytes, maxSize, ops = []) {
  let b = Array.from(bytes.length > 4 * 1024 * 1024 ? [] : bytes);
  if (!b.length && bytes.length) {  // large file: edit in place, no insertions
    const out = new Uint8Array(bytes);
    for (let i = 0, n = 1 + rng.below(4); i < n; i++) {
      out[rng.below(out.length)] ^= 1 << rng.below(8);
      ops.push('bytes:flip');
    }
    return out;
  }
  const words = JSON_WORDS.concat(['{', '}', '[', ']', '"', ':', ',', '\\', '\\u', 'null', '1e999', '-', '0x', '\u0000']);
  for (let i = 0, n = 1 + rng.below(4); i < n; i++) {
    const at = rng.below(b.length + 1);
    switch (rng.below(8)) {
      case 0: if (b.length) { b[Math.min(at, b.length - 1)] ^= 1 << rng.below(8); ops.push('bytes:flip'); } break;
      case 1: if (b.length) { b[Math.min(at, b.length - 1)] = rng.below(256); ops.push('bytes:set'); } break;
      case 2: { b.splice(at, 0, ...Array.from({ length: 1 + rng.below(8) }, () => rng.below(256))); ops.push('bytes:insert'); break; }
      case 3: { b.splice(at, 1 + rng.below(Math.min(64, Math.max(1, b.length - at)))); ops.push('bytes:erase'); break; }
      case 4: {
        const from = rng.below(b.length + 1), len = rng.below(Math.min(256, b.length - from + 1));
        b.splice(at, 0, ...b.slice(from, from + len));
        ops.push('bytes:copy');
        break;
      }
      case 5: { b.splice(at, 0, ...utf8.encode(rng.pick(words))); ops.push('bytes:word'); break; }
      case 6: {
        const digits = [];
        for (let k = 0; k < b.length; k++) if (b[k] >= 48 && b[k] <= 57) digits.push(k);
        if (digits.length) { b[rng.pick(digits)] = 48 + rng.below(10); ops.push('bytes:digit'); }
        break;
      }
      default: { b.length = rng.below(b.length + 1); ops.push('bytes:truncate'); break; }
    }
  }
  if (b.length > maxSize) b.length = maxSize;
  return Uint8Array.from(b);
}

/** A safetensors file damaged as a download or a writer might leave it: cut short (in the
 * length, the header or the data), bytes flipped in the header or the data, the header
 * length rewritten (0, too long, huge, off by one), the tensor bytes dropped. */
export function safetensorsBytes(rng, file, ops = []) {
  const n = file.length >= 8 ? Number(new DataView(file.buffer, file.byteOffset, 8).getBigUint64(0, true)) : 0;
  const headerEnd = Math.min(file.length, 8 + n);
  const out = () => new Uint8Array(file);
  switch (rng.below(7)) {
    case 0: ops.push('st:truncate'); return file.slice(0, rng.below(file.length + 1));
    case 1: ops.push('st:truncate_header'); return file.slice(0, rng.below(Math.max(1, headerEnd)));
    case 2: ops.push('st:truncate_data'); return file.slice(0, headerEnd + rng.below(Math.max(1, file.length - headerEnd)));
    case 3: {
      const o = out();
      for (let i = 0, k = 1 + rng.below(8); i < k && headerEnd > 8; i++) o[8 + rng.below(headerEnd - 8)] ^= 1 << rng.below(8);
      ops.push('st:flip_header');
      return o;
    }
    case 4: {
      const o = out();
      for (let i = 0, k = 1 + rng.below(64); i < k && file.length > headerEnd; i++) o[headerEnd + rng.below(file.length - headerEnd)] = rng.below(256);
      ops.push('st:flip_data');
      return o;
    }
    case 5: {
      const o = out();
      if (o.length < 8) return o;
      const values = [0n, 1n, BigInt(n) - 1n, BigInt(n) + 1n, BigInt(n) + 8n, BigInt(file.length), 2n ** 32n, 2n ** 63n, 2n ** 64n - 1n, 100000000n];
      const v = rng.pick(values);
      new DataView(o.buffer).setBigUint64(0, v < 0n ? 0n : v, true);
      ops.push('st:length');
      return o;
    }
    default: ops.push('st:no_data'); return file.slice(0, headerEnd);
  }
}
