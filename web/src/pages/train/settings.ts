// The training page's settings: defaults, the URL's query string, and the checks that
// explain a bad value beside the control that caused it (heads that do not divide
// d_model, a model whose training would not fit the module's memory, ...). The trainer
// checks the same things again (tfp_trainer_create); its message, if it still refuses,
// is shown beside the control its text names.
import type { MessageKey, Params } from '../../i18n/i18n';
import { isWordTask, type TrainSettings } from './protocol';

/** The defaults: the copy task at the size of tests/fixtures/trainer/copy_losses.json
 *  (the native run the page is checked against); ~99 % held-out accuracy in 300 steps,
 *  a second or two in a browser. */
export const DEFAULTS: TrainSettings = {
  task: 'copy', arch: 'decoder', size: 5, layers: 2, dModel: 32, heads: 2, dFf: 64, act: 'gelu_new', positions: 'learned', postLn: false,
  lr: 0.003, warmup: null, batch: 16, steps: 300, labelSmoothing: 0, clip: 1, dropout: 0, seed: 7,
};

export const TASKS = ['copy', 'reverse', 'sort', 'add', 'numbers', 'dates-iso', 'induction'] as const;

/** What picking a task sets besides it: the induction task's preset (issue 33) — two
 *  attention-only layers (d_ff 0) with rotary positions, enough to watch an induction head
 *  form in layer 2 (tests/test_train_induction.cpp: the head finder scores it 0.90 after
 *  2000 steps); the others keep the reader's model. */
export function presetFor(task: TrainSettings['task']): Partial<TrainSettings> {
  return task === 'induction'
    ? { arch: 'decoder', size: 12, layers: 2, heads: 4, dModel: 64, dFf: 0, positions: 'rope', batch: 32, steps: 2000, dropout: 0 }
    : {};
}

/** Each task's vocabulary size and longest prompt and answer (train/tasks.h): the digit
 *  tasks' follow the size; number words (seq_numbers.h) and written dates (seq_dates.h)
 *  have their own characters and a fixed size. */
export function taskShape(s: Pick<TrainSettings, 'task' | 'size'>): { vocab: number; prompt: number; answer: number } {
  if (s.task === 'numbers') return { vocab: 67, prompt: 72, answer: 6 };
  if (s.task === 'dates-iso') return { vocab: 73, prompt: 32, answer: 10 };
  if (s.task === 'induction') return { vocab: 29, prompt: s.size, answer: s.size };
  return { vocab: 15, prompt: s.task === 'add' ? 2 * s.size + 1 : s.size, answer: s.task === 'add' ? s.size + 1 : s.size };
}

/** The characters a task's prompts are written in (its vocabulary less padding, the end
 *  mark and the separator), for the reader's own input. */
export function promptAlphabet(task: TrainSettings['task']): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  if (task === 'numbers') return ` -${letters}${letters.toUpperCase()}`;
  if (task === 'dates-iso') return ` -,/.0123456789${letters}${letters.toUpperCase()}年月日`;
  if (task === 'induction') return letters;
  return task === 'add' ? '0123456789+' : '0123456789';
}

/** The architecture a task trains best with when the reader picks it: the word tasks read
 *  long prompts into short answers, an encoder–decoder's job (the shipped models' kind). */
export function suggestedArch(task: TrainSettings['task'], arch: TrainSettings['arch']): TrainSettings['arch'] {
  return isWordTask(task) && arch === 'decoder' ? 'encdec' : arch;
}
/** The Transformer's own settings: the GRU's sizes all follow d_model. */
export const TRANSFORMER_ONLY: readonly Field[] = ['positions', 'layers', 'heads', 'dFf', 'act', 'postLn', 'dropout'];
export type Field = keyof TrainSettings;

/** A problem with one control: which, and the message key with its values. */
export interface Problem {
  field: Field;
  key: MessageKey;
  params?: Params;
}

/** Ranges of the numeric settings (inclusive). */
export const RANGES: Record<Exclude<Field, 'task' | 'arch' | 'act' | 'positions' | 'postLn'>, [number, number]> = {
  size: [1, 12], layers: [1, 6], dModel: [4, 512], heads: [1, 16], dFf: [0, 2048], lr: [1e-6, 1],
  warmup: [0, 100000], batch: [1, 512], steps: [1, 100000], labelSmoothing: [0, 0.99], clip: [0, 1000], dropout: [0, 0.9],
  seed: [0, 4294967295],
};
const INTEGER: ReadonlySet<Field> = new Set(['size', 'layers', 'dModel', 'heads', 'dFf', 'warmup', 'batch', 'steps', 'seed']);

/** Training memory the page allows itself (the module's heap grows to 2 GiB; leave room). */
export const MEMORY_LIMIT = 1024 * 1024 * 1024;

/** The longest decoder input and source of a task (train/tasks.cpp: Task::encode). */
export function lengths(s: TrainSettings): { T: number; S: number } {
  const { prompt, answer } = taskShape(s);
  return s.arch !== 'decoder' ? { T: answer + 1, S: prompt } : { T: prompt + answer + 1, S: 0 };
}

/** Parameters and training bytes, roughly: weights, gradients and AdamW's two moments
 *  (4 floats per parameter), and the activations kept for the backward pass. */
export function footprint(s: TrainSettings): { parameters: number; bytes: number } {
  const C = s.dModel, F = s.dFf, L = s.layers, V = taskShape(s).vocab, H = s.heads;
  const { T, S } = lengths(s);
  if (s.arch === 'gru') {
    // train/trainer.cpp toy_gru_config: E = A = H = d, Ce = 2d, D = 2d (the doctest's count).
    const E = C, Hh = C, A = C, Ce = 2 * C, D = 2 * C;
    const parameters = V * E + 2 * (3 * Hh * E + 3 * Hh * Hh + 6 * Hh) + D * Hh + D + A * D + A + A * Ce + A +
      3 * D * (E + Ce) + 3 * D * D + 6 * D + V * (D + Ce) + V;
    const acts = s.batch * (S * (2 * 8 * Hh + E + Ce + A) + T * (8 * D + 3 * A * S + E + Ce + 2 * (D + Ce) + 3 * V));
    return { parameters, bytes: 4 * (4 * parameters + acts) };
  }
  const attn = 4 * C * C + 4 * C, ffn = 2 * C * F + C + F, norms = 4 * C;
  const dec = L * (attn + ffn + norms + (s.arch === 'encdec' ? attn + 2 * C : 0));
  const enc = s.arch === 'encdec' ? L * (attn + ffn + norms) : 0;
  const parameters = dec + enc + V * C + (s.positions === 'learned' ? Math.max(T, S) * C : 0);
  const perLayer = (n: number, keys: number) => n * (12 * C + 3 * F) + 3 * H * n * keys;
  const acts = s.batch * (L * perLayer(T, T) + (s.arch === 'encdec' ? L * (perLayer(S, S) + 3 * H * T * S) : 0) + T * V * 3);
  return { parameters, bytes: 4 * (4 * parameters + acts) };
}

/** Every problem of these settings, at most one per control. */
export function validate(s: TrainSettings): Problem[] {
  const out: Problem[] = [];
  const has = (f: Field) => out.some((p) => p.field === f);
  for (const [f, [lo, hi]] of Object.entries(RANGES) as [keyof typeof RANGES, [number, number]][]) {
    const v = s[f];
    if (v === null) continue;  // warmup: automatic
    if (!Number.isFinite(v)) out.push({ field: f, key: 'train.err.number' });
    else if (INTEGER.has(f) && !Number.isInteger(v)) out.push({ field: f, key: 'train.err.integer' });
    else if (v < lo || v > hi) out.push({ field: f, key: 'train.err.range', params: { lo: String(lo), hi: String(hi) } });
  }
  if (s.arch !== 'gru' && !has('heads') && !has('dModel') && s.dModel % s.heads !== 0)
    out.push({ field: 'heads', key: 'train.err.headsDivide', params: { heads: s.heads, dModel: s.dModel,
      near: nearDivisors(s.dModel).join(', ') } });
  if (!has('warmup') && s.warmup !== null && s.warmup > s.steps)
    out.push({ field: 'warmup', key: 'train.err.warmupSteps', params: { steps: s.steps } });
  if (out.length === 0) {
    const { bytes } = footprint(s);
    if (bytes > MEMORY_LIMIT) {
      // Beside the control that weighs most: the batch (activations) or the width.
      const lighter = footprint({ ...s, batch: 1 }).bytes;
      out.push({ field: lighter * s.batch > 2 * (bytes - lighter) ? 'batch' : 'dModel', key: 'train.err.memory',
        params: { mib: Math.round(bytes / 2 ** 20), limit: Math.round(MEMORY_LIMIT / 2 ** 20) } });
    }
  }
  return out;
}

function nearDivisors(n: number): number[] {
  const d: number[] = [];
  for (let h = 1; h <= Math.min(16, n); h++) if (n % h === 0) d.push(h);
  return d;
}

/** Which control an engine message is about (it names the `tfp train` flag or the
 *  config field), so it can be shown beside it. */
export function fieldOfEngineMessage(message: string): Field {
  // The engine names a setting by its JSON key (option "heads") or its tfp train flag (--heads).
  const key = (json: string, flag = json) => new RegExp(`option "${json}"|--${flag}\\b`);
  const table: [RegExp, Field][] = [
    [/n_heads/, 'heads'], [key('heads'), 'heads'], [/d_model|--d-model/, 'dModel'], [key('layers'), 'layers'], [key('d_ff', 'd-ff'), 'dFf'],
    [key('batch'), 'batch'], [key('steps'), 'steps'], [/dropout/, 'dropout'], [key('lr'), 'lr'], [key('warmup'), 'warmup'], [key('clip'), 'clip'],
    [/label.smoothing/, 'labelSmoothing'], [key('positions'), 'positions'], [/out of memory/, 'batch'], [/size|--size/, 'size'], [/task/, 'task'],
    [key('arch'), 'arch'], [key('act'), 'act'], [key('post_ln', 'post-ln'), 'postLn'], [key('seed'), 'seed'],
  ];
  return table.find(([re]) => re.test(message))?.[1] ?? 'task';
}

// ---- the URL ------------------------------------------------------------------------------
const URL_NAMES: Record<Field, string> = {
  task: 'task', arch: 'arch', size: 'size', layers: 'layers', dModel: 'd', heads: 'heads', dFf: 'ff', act: 'act', positions: 'pos',
  postLn: 'postln', lr: 'lr', warmup: 'warmup', batch: 'batch', steps: 'steps', labelSmoothing: 'ls', clip: 'clip', dropout: 'dropout',
  seed: 'seed',
};

/** Settings from a query string: unknown or bad values fall back to the defaults. */
export function settingsFromQuery(query: string): TrainSettings {
  const p = new URLSearchParams(query);
  const s: TrainSettings = { ...DEFAULTS };
  const task = p.get('task');
  if (task && (TASKS as readonly string[]).includes(task)) s.task = task as TrainSettings['task'];
  const arch = p.get('arch');
  if (arch === 'decoder' || arch === 'encdec' || arch === 'gru') s.arch = arch;
  const act = p.get('act');
  if (act === 'relu' || act === 'gelu' || act === 'gelu_new') s.act = act;
  if (p.get('postln') === '1') s.postLn = true;
  const pos = p.get('pos');
  if (pos === 'learned' || pos === 'sinusoidal' || pos === 'rope' || pos === 'alibi' || pos === 'none') s.positions = pos;
  for (const f of Object.keys(RANGES) as (keyof typeof RANGES)[]) {
    const raw = p.get(URL_NAMES[f]);
    if (raw === null || raw === '') continue;
    const v = Number(raw);
    const [lo, hi] = RANGES[f];
    if (Number.isFinite(v) && v >= lo && v <= hi && (!INTEGER.has(f) || Number.isInteger(v))) (s[f] as number) = v;
  }
  return s;
}

/** The settings that differ from the defaults, as a query string. */
export function queryOf(s: TrainSettings): string {
  const p = new URLSearchParams();
  for (const f of Object.keys(URL_NAMES) as Field[]) {
    if (s[f] === DEFAULTS[f]) continue;
    p.set(URL_NAMES[f], f === 'postLn' ? (s.postLn ? '1' : '0') : String(s[f]));
  }
  return p.toString();
}

/** A probe the task accepts (digits, '+' between two numbers for add), of the task's size. */
export function defaultProbe(s: TrainSettings): string {
  if (s.task === 'numbers') return 'three hundred and forty-two';
  if (s.task === 'dates-iso') return '3 March 2021';
  if (s.task === 'induction') return 'qkcxvmbtrwzp'.slice(0, Math.max(3, s.size));
  const digits = '31415926535897932384';
  if (s.task === 'add') return `${digits.slice(0, s.size)}+${digits.slice(s.size, 2 * s.size)}`;
  return digits.slice(0, s.size);
}

/** Why a typed input is not one the task takes (null: it is). */
export function inputProblem(s: TrainSettings, text: string): Problem | null {
  const longest = taskShape(s).prompt;
  const chars = [...text];  // characters, as the task counts them ('年' is one)
  if (chars.length === 0) return { field: 'task', key: 'train.err.inputEmpty' };
  if (chars.length > longest) return { field: 'task', key: 'train.err.inputLong', params: { max: longest } };
  if (isWordTask(s.task)) {
    // The task's characters only; whether the words or the date make sense, the trainer
    // says (its reader of number words / written dates), beside the same input.
    const alphabet = promptAlphabet(s.task);
    const bad = chars.find((c) => !alphabet.includes(c));
    if (bad !== undefined)
      return { field: 'task', key: s.task === 'numbers' ? 'train.err.inputNumbers' : 'train.err.inputDates', params: { char: bad } };
    return null;
  }
  if (s.task === 'induction') {
    if (!/^[a-z]+$/.test(text)) return { field: 'task', key: 'train.err.inputLetters' };
    if (new Set(chars).size !== chars.length || chars.length < 3) return { field: 'task', key: 'train.err.inputDistinct' };
    return null;
  }
  if (s.task === 'add' ? !/^\d+\+\d+$/.test(text) : !/^\d+$/.test(text))
    return { field: 'task', key: s.task === 'add' ? 'train.err.inputAdd' : 'train.err.inputDigits' };
  if (s.task === 'add') {
    const [a, b] = text.split('+') as [string, string];
    if (a.length > s.size || b.length > s.size) return { field: 'task', key: 'train.err.inputAddSize', params: { size: s.size } };
  }
  return null;
}

/** The task's answer to a prompt: only to say "right" or "wrong" under the model's answer.
 *  null: the prompt is not one of this task's (the task changed while it was answered). */
export function solve(task: TrainSettings['task'], prompt: string): string | null {
  if (task === 'copy' || task === 'induction') return prompt;
  if (task === 'reverse') return [...prompt].reverse().join('');
  if (task === 'sort') return [...prompt].sort().join('');
  if (task !== 'add') return null;  // number words, dates: the trainer's reader knows; the page does not check
  const m = /^(\d+)\+(\d+)$/.exec(prompt);
  return m ? String(BigInt(m[1]!) + BigInt(m[2]!)).padStart(m[1]!.length + 1, '0') : null;
}
