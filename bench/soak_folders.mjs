// A soak of the model loader (issue 32): N mutated model folders (default 10,000) through
// the WASM module in ONE Node process, each loaded the way the page loads a folder (the
// staged tfp_model_files_* path of tests/js/model_api.mjs), and, when it opens, tokenized
// and run forward once, then freed. It reports the module's memory before and after
// (tfp_memory_stats: the heap's size, i.e. HEAPU8.length; malloc's high-water mark; and the
// bytes in malloc'd blocks, mallinfo().uordblks), the folders refused / accepted / opened,
// and the errors by message class. It exits 1 when the bytes in use grew by more than the
// bound below, or when a folder made the module trap, abort or throw anything but an Error
// with a message (a finding: the folder is saved to build/soak/finding-<i>/ and the soak
// goes on with a fresh module).
//
//   node bench/soak_folders.mjs [--count 10000] [--seed 1] [--from 0] [--only i]
//                               [--bound-kib 64] [--round 1000] [--out build/soak]
//                               [--inject-trap i]   (checks the finding path: folder i "traps")
//
// Folder i is made from (seed, i) alone (bench/json_mutations.mjs's Rng), so `--only i`
// rebuilds and runs exactly folder i of a run. The seeds are the test fixtures
// (tests/fixtures/checkpoints/*/) and the shipped models (models/*/, where their weights
// are in the checkout). Mutations, 1 to 3 per folder: config.json or tokenizer.json as a
// JSON tree (json_mutations.mjs's JsonMutator, the operators of fuzz/json_mutator.h) or as
// bytes; model.safetensors' header as a tree (length rewritten, data_offsets recomputed
// one time in two) or the file damaged (cut short, bytes flipped, a wrong length); or the
// folder itself (a file dropped, emptied, swapped with another seed's or another file).
//
// Definitions: refused = a staging call or tfp_model_load threw; accepted = tfp_model_load
// returned a model; opened = accepted, and tokenize and forward both returned. The bound:
// the bytes in use after the last folder may exceed those before the first by at most
// --bound-kib KiB. "Before" is after a warm-up that opens every seed once and makes a 2 MiB
// error message: the engine keeps the last message in a std::string whose capacity never
// shrinks (a message longer than that one would be added to the bound). Inputs that make
// the loader claim a lot before refusing them are listed (high-water mark +16 MiB or more);
// a TFP_ERR_INTERNAL or an empty message is listed and saved as a (soft) finding too.
import { mkdirSync, writeFileSync, readdirSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadTfp } from '../tests/js/tfp_module.mjs';
import { ModelApi, CHECKPOINTS, MODELS } from '../tests/js/model_api.mjs';
import { Rng, JsonMutator, mutateBytes, safetensorsBytes } from './json_mutations.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const enc = new TextEncoder();
const MiB = 1024 * 1024;

// ---- options ---------------------------------------------------------------------------
const argv = process.argv.slice(2);
function opt(name, fallback) {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(argv[i + 1]);
  if (!Number.isFinite(v)) throw new Error(`--${name}: not a number: ${argv[i + 1]}`);
  return v;
}
const optStr = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i < 0 ? fallback : argv[i + 1]; };
const SEED = opt('seed', 1) >>> 0;
const ONLY = opt('only', -1);
const FROM = ONLY >= 0 ? ONLY : opt('from', 0);
const COUNT = ONLY >= 0 ? 1 : opt('count', 10000);
const ROUND = opt('round', 1000);
const BOUND_KIB = opt('bound-kib', 64);
const INJECT = opt('inject-trap', -1);  // a self-check of the finding path: folder INJECT throws a RuntimeError
const OUT = optStr('out', `${ROOT}build/soak/`).replace(/\/?$/, '/');
const PEAK_MIB = 16;
const TEXT = 'The cat sat on the mat, 12 May 2024: twenty-one.';

// ---- seeds -------------------------------------------------------------------------------
function readDir(dir, name) {
  const read = (f, text) => (existsSync(`${dir}${f}`) ? (text ? readFileSync(`${dir}${f}`, 'utf8') : new Uint8Array(readFileSync(`${dir}${f}`))) : null);
  return { name, config: read('config.json', true), weights: read('model.safetensors', false), tokenizer: read('tokenizer.json', true) };
}
const ALL_SEEDS = [
  ...readdirSync(CHECKPOINTS).sort().map((n) => readDir(`${CHECKPOINTS}${n}/`, `fixtures/${n}`)),
  ...(existsSync(MODELS) ? readdirSync(MODELS).sort() : []).map((n) => readDir(`${MODELS}${n}/`, `models/${n}`)),
];
/** Seeds that make a whole folder (config + weights); tokenizer_only lends its tokenizer. */
const SEEDS = ALL_SEEDS.filter((s) => s.config !== null && s.weights !== null);
const TOKENIZERS = ALL_SEEDS.filter((s) => s.tokenizer !== null);

// ---- mutated folders ---------------------------------------------------------------------
const JSON_ROOM = 1 * MiB;  // fuzz/README.md: the fuzz_json_* targets run with -max_len=1048576
const PREGROW = 2 * MiB;

function mutateJson(rng, text, label, ops) {
  const sub = [];
  let out = null;
  if (!rng.chance(8)) out = new JsonMutator(rng).mutate(text, enc.encode(text).length + JSON_ROOM, sub);
  if (out === null) {
    const bytes = mutateBytes(rng, enc.encode(text), enc.encode(text).length + JSON_ROOM, sub);
    ops.push(`${label}:bytes[${sub.join(',')}]`);
    return bytes;
  }
  ops.push(`${label}:json[${sub.join(',')}]`);
  return out;
}
const textOf = (x) => (typeof x === 'string' ? x : new TextDecoder().decode(x));

/** Folder i of seed `seed`: { base, ops, target, config, weights, tokenizer } (config and
 * tokenizer a string or bytes, tokenizer null when absent, config null: set as ""). */
export function makeFolder(seed, i) {
  const rng = new Rng(seed, i, 0x32);
  const base = rng.pick(SEEDS);
  const f = { base: base.name, ops: [], config: base.config, weights: base.weights, tokenizer: base.tokenizer };
  const n = rng.chance(3) ? 2 + rng.below(2) : 1;
  for (let k = 0; k < n; k++) {
    const r = rng.below(100);
    if (r < 30) {
      f.config = mutateJson(rng, textOf(f.config ?? '{}'), 'config', f.ops);
    } else if (r < 52) {
      if (f.tokenizer === null) f.tokenizer = rng.pick(TOKENIZERS).tokenizer;
      f.tokenizer = mutateJson(rng, textOf(f.tokenizer), 'tokenizer', f.ops);
    } else if (r < 74) {
      const sub = [];
      const out = new JsonMutator(rng).mutateSafetensors(f.weights, f.weights.length + JSON_ROOM, sub);
      if (out) {
        f.weights = out;
        f.ops.push(`st_header:json[${sub.join(',')}]`);
      } else {
        f.weights = safetensorsBytes(rng, f.weights, sub);
        f.ops.push(`st:bytes[${sub.join(',')}]`);
      }
    } else if (r < 84) {
      const sub = [];
      f.weights = safetensorsBytes(rng, f.weights, sub);
      f.ops.push(`st:bytes[${sub.join(',')}]`);
    } else if (r < 92) {
      const sub = [];
      if (f.tokenizer !== null && rng.chance(2)) {
        f.tokenizer = mutateBytes(rng, enc.encode(textOf(f.tokenizer)), JSON_ROOM * 2, sub);
        f.ops.push(`tokenizer:bytes[${sub.join(',')}]`);
      } else {
        f.config = mutateBytes(rng, enc.encode(textOf(f.config ?? '')), JSON_ROOM * 2, sub);
        f.ops.push(`config:bytes[${sub.join(',')}]`);
      }
    } else {
      const other = rng.pick(SEEDS);
      switch (rng.below(8)) {
        case 0: f.tokenizer = null; f.ops.push('folder:no_tokenizer'); break;
        case 1: f.config = ''; f.ops.push('folder:empty_config'); break;
        case 2: f.weights = new Uint8Array(0); f.ops.push('folder:empty_weights'); break;
        case 3: f.config = other.config; f.ops.push(`folder:config_of(${other.name})`); break;
        case 4: { const t = rng.pick(TOKENIZERS); f.tokenizer = t.tokenizer; f.ops.push(`folder:tokenizer_of(${t.name})`); break; }
        case 5: f.weights = other.weights; f.ops.push(`folder:weights_of(${other.name})`); break;
        case 6: f.tokenizer = f.config; f.ops.push('folder:config_as_tokenizer'); break;
        default: f.config = f.tokenizer ?? textOf(f.weights.subarray(0, 4096)); f.ops.push('folder:tokenizer_as_config'); break;
      }
    }
  }
  f.target = n > 1 ? 'several' : f.ops[0].replace(/[:[(].*$/, '') + (f.ops[0].includes(':json') ? ':json' : f.ops[0].includes(':bytes') ? ':bytes' : '');
  return f;
}

// ---- the module ----------------------------------------------------------------------------
const asBytes = (x) => (typeof x === 'string' ? enc.encode(x) : x);

class SoakApi extends ModelApi {
  constructor(m) {
    super(m);
    this.slot = m._tfp_alloc(24);  // tfp_memory_stats' out[0..2], allocated once
  }
  /** tfp_memory_stats: { heap: HEAPU8.length, high: malloc's high-water mark, used: bytes
   * in malloc'd blocks }. */
  memory() {
    this.m._tfp_memory_stats(this.slot);
    const [heap, high, used] = new Float64Array(this.m.HEAPU8.buffer, this.slot, 3);
    if (heap !== this.m.HEAPU8.length) throw new Error(`tfp_memory_stats heap ${heap} != HEAPU8.length ${this.m.HEAPU8.length}`);
    return { heap, high, used };
  }
  /** Api.put, its failure marked as the engine's refusal (tfp_alloc's message). */
  put(bytes) {
    const p = this.m._tfp_alloc(Math.max(bytes.byteLength, 1));
    if (!p) throw Object.assign(new Error(this.lastError()), { status: -1 });
    this.m.HEAPU8.set(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), p);
    return p;
  }
  /** ModelApi.load with config and tokenizer as bytes (invalid UTF-8 included). */
  loadFolder({ config, weights, tokenizer }, name) {
    const files = this.out((s) => this.m._tfp_model_files_create(weights.byteLength, s));
    let model = 0, thrown = null;
    try {
      this.m.HEAPU8.set(weights, this.m._tfp_model_files_weights(files));
      this.withBytes(asBytes(config ?? ''), (p, n) => this.check(this.m._tfp_model_files_set_config(files, p, n)));
      if (tokenizer !== null && tokenizer !== undefined)
        this.withBytes(asBytes(tokenizer), (p, n) => this.check(this.m._tfp_model_files_set_tokenizer(files, p, n)));
      this.withBytes(enc.encode(name + '\0'), (p) => this.check(this.m._tfp_model_files_set_name(files, p)));
      model = this.out((s) => this.m._tfp_model_load(files, s));
    } catch (e) {
      thrown = e;
    }
    try {
      this.m._tfp_model_files_free(files);
    } catch (e) {
      thrown ??= e;  // a module that trapped may throw again here: keep the first
    }
    if (thrown) throw thrown;
    return model;
  }
}

async function freshModule() {
  const api = new SoakApi(await loadTfp());
  // Warm-up: every seed opened, tokenized and run once, and each kind of refusal once, so
  // what the engine builds on first use (tables, the last error's string) is in "before".
  for (const s of SEEDS) use(api, s, s.name, () => {});
  for (const bad of [{ config: '{}', weights: new Uint8Array(8), tokenizer: '{' }, { config: '', weights: new Uint8Array(0), tokenizer: null }])
    use(api, bad, 'warm-up', () => {});
  // The engine keeps the last error's message in a std::string whose capacity never
  // shrinks. The safetensors reader used to quote a dtype whole, so a 2 MiB dtype grew that
  // string past any message a folder here can make (JSON_ROOM) and it was in "before"; it
  // quotes a bounded prefix now (issue 32), so this message is short, and the bound below
  // allows for the longest message a folder makes instead.
  const header = enc.encode(JSON.stringify({ t: { dtype: 'x'.repeat(PREGROW), shape: [1], data_offsets: [0, 4] } }));
  const st = new Uint8Array(8 + header.length + 4);
  new DataView(st.buffer).setBigUint64(0, BigInt(header.length), true);
  st.set(header, 8);
  api.pregrown = 0;
  use(api, { config: SEEDS[0].config, weights: st, tokenizer: null }, 'warm-up', (stage, e) => { api.pregrown = enc.encode(e.message).length; });
  return api;
}

/** What the page does with a model that opened: tokenize TEXT, one forward pass. */
function run(api, model, fail) {
  let info, ids;
  try {
    info = api.info(model);
  } catch (e) {
    throw new Error(`tfp_model_info_json is not JSON: ${e.message}`);
  }
  try {
    ids = api.tokenize(model, TEXT).ids;
  } catch (e) {
    return fail('tokenize', e);
  }
  try {
    if (info.has_embeddings === false) {  // a model that reads vectors: the words' seeded rows
      const C = info.d_model, rows = api.embeddingRows(TEXT.split(/\s+/), C);
      api.forwardEmbeddings(model, C, rows, info.n_decoder_layers > 0 ? rows : null);
    } else {
      const encDec = info.model_type === 'tfp_gru_seq2seq' || (info.n_encoder_layers > 0 && info.n_decoder_layers > 0);
      api.forward(model, ids, encDec ? { tgtIds: [info.decoder_start_token_id >= 0 ? info.decoder_start_token_id : 0] } : {});
    }
  } catch (e) {
    return fail('forward', e);
  }
  return { stage: 'opened' };
}

/** Loads a folder, and if it opens, tokenizes TEXT and runs a forward pass; frees it.
 * Returns { stage: 'opened' } or { stage: 'refused' | 'accepted', error } where stage says
 * how far it got; throws what is not an engine error (a finding). onError(stage, error)
 * sees every engine error. */
function use(api, folder, name, onError) {
  let model = 0;
  const fail = (stage, e) => {
    if (!(e instanceof Error) || typeof e.status !== 'number') throw e;  // not the C API's refusal
    onError(stage, e);
    return { stage: stage === 'load' ? 'refused' : 'accepted', error: e };
  };
  try {
    model = api.loadFolder(folder, name);
  } catch (e) {
    return fail('load', e);
  }
  let result, thrown = null;
  try {
    result = run(api, model, fail);
  } catch (e) {
    thrown = e;
  }
  try {
    api.free(model);
  } catch (e) {
    thrown ??= e;  // a module that trapped may throw again here: keep the first
  }
  if (thrown) throw thrown;
  return result;
}

/** A message's class: quoted text, numbers and long tails folded. */
export function messageClass(msg) {
  let s = String(msg).slice(0, 4000);
  s = s.replace(/"(?:[^"\\]|\\.)*"/g, '"…"').replace(/'[^']*'/g, "'…'").replace(/`[^`]*`/g, '`…`');
  s = s.replace(/[-+]?(?:0x[0-9a-f]+|\d+(?:\.\d+)?(?:e[-+]?\d+)?)/gi, '#');
  s = s.replace(/\s+/g, ' ');
  return s.length > 110 ? `${s.slice(0, 107)}...` : s;
}

function saveFinding(i, folder, e, soft = false) {
  const dir = `${OUT}finding-${i}/`;
  mkdirSync(dir, { recursive: true });
  if (folder.config !== null) writeFileSync(`${dir}config.json`, asBytes(folder.config));
  writeFileSync(`${dir}model.safetensors`, folder.weights);
  if (folder.tokenizer !== null) writeFileSync(`${dir}tokenizer.json`, asBytes(folder.tokenizer));
  const what = typeof e === 'string' ? e : e instanceof Error ? `${e.constructor.name}: ${e.message}` : `${Object.prototype.toString.call(e)} ${String(e)}`;
  writeFileSync(`${dir}finding.json`, JSON.stringify({
    index: i, seed: SEED, base: folder.base, ops: folder.ops, soft, thrown: what,
    stack: e instanceof Error ? e.stack : null, rerun: `node bench/soak_folders.mjs --seed ${SEED} --only ${i}`,
  }, null, 2));
  return { dir, what };
}

// ---- the soak ------------------------------------------------------------------------------
const fmtMiB = (b) => `${(b / MiB).toFixed(2)} MiB`;
const pad = (s, n) => String(s).padEnd(n);
const padL = (s, n) => String(s).padStart(n);

async function main() {
  const command = `node bench/soak_folders.mjs ${argv.join(' ')}`.trim();
  console.log(`soak: ${COUNT} folders from index ${FROM}, seed ${SEED}; ${SEEDS.length} seeds: ${SEEDS.map((s) => s.name).join(', ')}`);
  const t0 = performance.now();
  let api = await freshModule();
  const segments = [{ from: FROM, before: api.memory() }];
  console.log(`module ready (${((performance.now() - t0) / 1000).toFixed(1)} s); before: heap ${fmtMiB(segments[0].before.heap)}, ` +
    `high-water ${fmtMiB(segments[0].before.high)}, in use ${segments[0].before.used} B`);
  const counts = { refused: 0, accepted: 0, opened: 0, findings: 0 };
  const classes = new Map();  // "stage | class" -> { count, first }
  const byTarget = new Map();  // target -> { refused, accepted, opened, finding }
  const findings = [];
  const peaks = [];  // folders that raised the high-water mark by more than PEAK_MIB
  const slowest = [];
  let longestMessage = 0, longestAt = null;
  mkdirSync(OUT, { recursive: true });
  const start = performance.now();
  let roundStart = start;
  for (let i = FROM; i < FROM + COUNT; i++) {
    const folder = makeFolder(SEED, i);
    const t = performance.now(), highBefore = api.memory().high;
    let outcome, lastMessage = '';
    try {
      if (i === INJECT) throw new WebAssembly.RuntimeError('unreachable (injected by --inject-trap)');
      outcome = use(api, folder, `soak-${i}`, (stage, e) => {
        lastMessage = e.message;
        const len = enc.encode(e.message).length;
        if (len > longestMessage) {
          longestMessage = len;
          longestAt = { i, stage, base: folder.base, ops: folder.ops, message: `${e.message.slice(0, 300)}${len > 300 ? '...' : ''}` };
        }
        let key = `${stage} | ${messageClass(e.message)}`;
        if (!e.message) key = `${stage} | (empty message) status ${e.status}`;
        const c = classes.get(key) ?? { count: 0, first: i };
        c.count++;
        classes.set(key, c);
        if (!e.message || e.status === 4) {  // no message, or TFP_ERR_INTERNAL ("a bug worth reporting")
          const what = `status ${e.status} at ${stage}: ${e.message || '(empty)'}`;
          findings.push({ i, base: folder.base, ops: folder.ops, what, soft: true, dir: saveFinding(i, folder, what, true).dir });
        }
      }).stage;
    } catch (e) {
      outcome = 'finding';
      const { dir, what } = saveFinding(i, folder, e);
      findings.push({ i, base: folder.base, ops: folder.ops, what, dir });
      console.log(`FINDING at folder ${i} (${folder.base}; ${folder.ops.join(' ')}): ${what.slice(0, 300)}; saved to ${dir}`);
      segments.at(-1).after = null;  // the module is not trusted after this
      segments.at(-1).to = i;
      api = await freshModule();
      segments.push({ from: i + 1, before: api.memory() });
    }
    const ms = performance.now() - t;
    if (outcome !== 'finding') {
      const high = api.memory().high;
      if (high - highBefore > PEAK_MIB * MiB)
        peaks.push({ i, rise: high - highBefore, high, outcome, base: folder.base, ops: folder.ops, message: lastMessage });
    }
    slowest.push({ i, ms, base: folder.base, ops: folder.ops.join(' ') });
    slowest.sort((a, b) => b.ms - a.ms);
    slowest.length = Math.min(slowest.length, 5);
    counts[outcome === 'finding' ? 'findings' : outcome]++;
    if (outcome === 'opened') counts.accepted++;  // opened ones were accepted too
    const bt = byTarget.get(folder.target) ?? { refused: 0, accepted: 0, opened: 0, finding: 0 };
    bt[outcome === 'opened' ? 'opened' : outcome === 'finding' ? 'finding' : outcome]++;
    if (outcome === 'opened') bt.accepted++;
    byTarget.set(folder.target, bt);
    const done = i + 1 - FROM;
    if (done % ROUND === 0 || done === COUNT) {
      const m = api.memory(), b = segments.at(-1).before, now = performance.now();
      console.log(`[${padL(done, 6)}/${COUNT}] ${padL(((now - start) / 1000).toFixed(0), 5)} s, ` +
        `${padL((ROUND / ((now - roundStart) / 1000)).toFixed(1), 6)} folders/s | refused ${padL(counts.refused, 5)} accepted ${padL(counts.accepted, 5)} ` +
        `opened ${padL(counts.opened, 5)} findings ${counts.findings} | heap ${fmtMiB(m.heap)} high-water ${fmtMiB(m.high)} ` +
        `in use ${m.used} B (${m.used - b.used >= 0 ? '+' : ''}${m.used - b.used})`);
      roundStart = now;
    }
  }
  segments.at(-1).after = api.memory();
  segments.at(-1).to = FROM + COUNT - 1;
  const seconds = (performance.now() - start) / 1000;

  // ---- summary ----
  const last = segments.at(-1), slack = Math.max(0, longestMessage - api.pregrown), bound = BOUND_KIB * 1024 + slack;
  const growth = last.after.used - last.before.used;
  console.log(`\n==== soak summary (seed ${SEED}, folders ${FROM}..${FROM + COUNT - 1}) ====`);
  console.log(`folders ${COUNT}: refused ${counts.refused}, accepted ${counts.accepted} (opened ${counts.opened}, ` +
    `refused at tokenize/forward ${counts.accepted - counts.opened}), findings ${counts.findings} (hard) + ` +
    `${findings.filter((f) => f.soft).length} (internal/empty-message errors)`);
  console.log(`time ${seconds.toFixed(1)} s, ${(COUNT / seconds).toFixed(1)} folders/s`);
  console.log('\nmemory (tfp_memory_stats)          before          after        change');
  for (const [label, k] of [['heap size (HEAPU8.length)', 'heap'], ['malloc high-water mark', 'high'], ['bytes in use (mallinfo)', 'used']])
    console.log(`  ${pad(label, 28)} ${padL(last.before[k], 14)} ${padL(last.after[k], 14)} ${padL((last.after[k] - last.before[k] >= 0 ? '+' : '') + (last.after[k] - last.before[k]), 12)}`);
  if (segments.length > 1) console.log(`  (module ${segments.length} of this run: folders ${last.from}..${last.to}; the earlier ones trapped)`);
  console.log(`  bound on the bytes in use: +${bound} B (${BOUND_KIB} KiB + ${slack} B: the longest error message, ${longestMessage} B, ` +
    `beyond the ${api.pregrown} B one of the warm-up): ${growth <= bound ? 'within' : 'EXCEEDED'}`);
  if (peaks.length) {
    console.log(`\nfolders that raised malloc's high-water mark by more than ${PEAK_MIB} MiB (the heap never shrinks):`);
    for (const p of peaks) console.log(`  ${p.i}: +${fmtMiB(p.rise)} to ${fmtMiB(p.high)} (${p.outcome}; ${p.base}; ${p.ops.join(' ').slice(0, 160)})${p.message ? `: ${p.message.slice(0, 160)}` : ''}`);
  }

  console.log('\nby mutation target            refused  accepted   opened  finding');
  for (const [t, c] of [...byTarget].sort())
    console.log(`  ${pad(t, 26)} ${padL(c.refused, 8)} ${padL(c.accepted, 9)} ${padL(c.opened, 8)} ${padL(c.finding, 8)}`);

  const sorted = [...classes].sort((a, b) => b[1].count - a[1].count);
  console.log(`\nerrors by stage and message class (${sorted.length} classes; the 40 most frequent; full list in ${OUT}summary.json)`);
  console.log(`  ${padL('count', 6)} ${padL('first', 6)}  stage | class`);
  for (const [k, c] of sorted.slice(0, 40)) console.log(`  ${padL(c.count, 6)} ${padL(c.first, 6)}  ${k}`);

  console.log('\nslowest folders:');
  for (const s of slowest) console.log(`  ${s.i}: ${s.ms.toFixed(0)} ms (${s.base}; ${s.ops.slice(0, 160)})`);
  if (findings.length) {
    console.log('\nfindings:');
    for (const f of findings) console.log(`  ${f.i} (${f.base}; ${f.ops.join(' ')}): ${f.what.slice(0, 400)}${f.dir ? ` -> ${f.dir}` : ''}`);
  }
  writeFileSync(`${OUT}summary.json`, JSON.stringify({
    command, seed: SEED, from: FROM, count: COUNT, seconds, counts, segments, bound, growth, longestMessage, longestAt,
    peaks, byTarget: Object.fromEntries(byTarget), classes: Object.fromEntries(sorted), findings, slowest,
  }, null, 2));
  console.log(`\ncommand: ${command}`);
  const hard = findings.filter((f) => !f.soft).length;
  if (growth > bound || hard > 0) {
    console.log(`FAIL: ${growth > bound ? `bytes in use grew by ${growth} B > ${bound} B` : ''}${hard ? ` ${hard} finding(s)` : ''}`);
    process.exitCode = 1;
  } else {
    console.log(`PASS: bytes in use ${growth >= 0 ? '+' : ''}${growth} B (bound +${bound} B), no trap`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
