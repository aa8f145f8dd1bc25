// The messages between the training page and its worker (worker.ts), which owns its own
// instance of the engine's module and one trainer (tfp_trainer_* in src/api/tfp_api.h).
// Training is a loop of small chunks of steps inside the worker; between chunks it reads
// the page's messages (pause, a new learning rate, an input to answer), so the page's
// thread never waits on training. Progress goes out at most ~10 times a second.
//
// Step numbers count from 1 (step s = the s-th optimisation step); evaluation points are
// at fixed steps (0, evalEvery, 2·evalEvery, ..., the schedule's end), so a paused and
// resumed run has the same curve as an uninterrupted one.

/** The settings the reader picks; `options` of tfp_trainer_create (the `tfp train` flags). */
export interface TrainSettings {
  task: 'copy' | 'reverse' | 'sort' | 'add' | 'numbers' | 'dates-iso' | 'induction';
  arch: 'decoder' | 'encdec' | 'gru';
  size: number;          // digits per number (numbers, dates: fixed, not sent)
  layers: number;
  dModel: number;
  heads: number;
  dFf: number;
  act: 'relu' | 'gelu' | 'gelu_new';
  positions: 'learned' | 'sinusoidal' | 'rope' | 'alibi' | 'none';
  postLn: boolean;
  lr: number;
  warmup: number | null; // null = the trainer's default, min(50, steps/10 + 1)
  batch: number;
  steps: number;         // the schedule's length (the run pauses there)
  labelSmoothing: number;
  clip: number;          // 0 = off
  dropout: number;       // 0 = off; the Transformer only
  seed: number;
}

/** What tfp_trainer_info_json says. */
export interface TrainerInfo {
  task: string;
  size: number;
  architecture: 'decoder_only' | 'encoder_decoder' | 'gru_attention';
  d_model: number;
  n_heads: number;
  n_layers: number;
  d_ff: number;
  parameters: number;
  batch: number;
  steps: number;
  steps_done: number;
  seed: number;
  tokens_per_step: number;
  lr: number;
  warmup: number;
  clip: number;
  label_smoothing: number;
  dropout: number;
  positions: string;
  /** The task's vocabulary, one character per token in id order (Array.from splits it). */
  vocab: string;
  end_mark: string;
  separator: string;
  max_prompt: number;
}

/** A held-out evaluation (tfp_trainer_evaluate) after `step` steps. */
export interface EvalPoint {
  step: number;
  loss: number;
  tokenAccuracy: number;
  sequenceAccuracy: number;
}

/** One attention map of the probe: name as the engine gives it ("dec.0.attn.probs"),
 *  (H, Tq, Tk) weights, and the tokens of its rows and columns. */
export interface ProbeMap {
  name: string;
  heads: number;
  rows: string[];
  cols: string[];
  data: Float32Array;
}

/** Every attention map of the probe after `step` steps. */
export interface ProbeSnapshot {
  step: number;
  prompt: string;
  maps: ProbeMap[];
}

export type ToWorker =
  | { kind: 'create'; settings: TrainSettings; probe: string }
  /** Train until `stopAt` steps are done (default: the schedule's end; past it, forever). */
  | { kind: 'run'; stopAt?: number }
  | { kind: 'pause' }
  /** At most this many steps a second (to watch the maps form); null = as fast as it can. */
  | { kind: 'pace'; stepsPerSecond: number | null }
  | { kind: 'set-lr'; lr: number }
  | { kind: 'probe'; prompt: string }
  | { kind: 'generate'; id: number; prompt: string }
  | { kind: 'export'; id: number }
  /** Tests: makes the module trap for real (an out-of-bounds read in the C API). */
  | { kind: 'crash' };

/** Per step (4 numbers each): loss, batch token accuracy, learning rate, gradient norm. */
export const STAT_COLUMNS = 4;

export interface Progress {
  kind: 'progress';
  /** Steps done. */
  step: number;
  /** The rows of the steps since the last progress message, (n, STAT_COLUMNS). */
  stats: Float64Array;
  firstStep: number;
  evals: EvalPoint[];
  /** The probe's maps at each evaluation step since the last message, and now. */
  snapshots: ProbeSnapshot[];
  /** Training time only (evaluation and probes excluded), over every run so far. */
  trainSeconds: number;
  /** Time spent running (training, evaluating, probing), pauses excluded. */
  elapsedSeconds: number;
  tokensPerSecond: number;
  running: boolean;
}

export type FromWorker =
  | { kind: 'ready'; simd: string }
  | { kind: 'created'; info: TrainerInfo; evals: EvalPoint[]; snapshot: ProbeSnapshot; evalEvery: number }
  | { kind: 'create-failed'; message: string }
  | Progress
  /** The loop stopped: paused on request, at stopAt, or at the schedule's end. */
  | { kind: 'stopped'; step: number; reason: 'paused' | 'stop-at' | 'schedule-end' }
  | { kind: 'lr-set'; lr: number }
  | { kind: 'probe'; snapshot: ProbeSnapshot }
  | { kind: 'answer'; id: number; prompt: string; step: number; answer: string }
  | { kind: 'files'; id: number; step: number; config: string; weights: ArrayBuffer; tokenizer: string }
  /** A request failed (id when it had one); the trainer is unchanged. */
  | { kind: 'error'; id?: number; request: ToWorker['kind']; message: string }
  /** The module trapped (an out-of-bounds access, an abort: its memory is in an unknown
   *  state): the worker answers nothing more and closes; the page starts a new one. */
  | { kind: 'crashed'; message: string };

/** The word tasks (number words → digits, written dates → ISO) have one fixed size. */
export function isWordTask(task: TrainSettings['task']): boolean {
  return task === 'numbers' || task === 'dates-iso';
}
const sizeOption = (s: TrainSettings): { size?: number } => (isWordTask(s.task) ? {} : { size: s.size });
const sizeFlag = (s: TrainSettings): string[] => (isWordTask(s.task) ? [] : ['--size', String(s.size)]);

/** The options JSON of tfp_trainer_create: the keys of `tfp train`'s flags. */
export function trainerOptions(s: TrainSettings): Record<string, number | string | boolean> {
  // The GRU's sizes all follow d_model; the Transformer's other settings do not apply.
  if (s.arch === 'gru')
    return { steps: s.steps, batch: s.batch, d_model: s.dModel, ...sizeOption(s), lr: s.lr, label_smoothing: s.labelSmoothing,
      clip: s.clip, arch: 'gru', ...(s.warmup !== null ? { warmup: s.warmup } : {}) };
  return {
    steps: s.steps, batch: s.batch, d_model: s.dModel, heads: s.heads, layers: s.layers, d_ff: s.dFf,
    ...sizeOption(s), lr: s.lr, label_smoothing: s.labelSmoothing, clip: s.clip, arch: s.arch, act: s.act,
    post_ln: s.postLn, positions: s.positions, ...(s.warmup !== null ? { warmup: s.warmup } : {}),
    ...(s.dropout > 0 ? { dropout: s.dropout } : {}),
  };
}

/** The same run on the command line (`tfp train`): same seed and settings, same losses. */
export function nativeCommand(s: TrainSettings): string {
  if (s.arch === 'gru') {
    const parts = ['tfp train', s.task, '--seed', String(s.seed), '--steps', String(s.steps), '--batch', String(s.batch),
      '--arch gru', '--d-model', String(s.dModel), ...sizeFlag(s), '--lr', String(s.lr),
      '--label-smoothing', String(s.labelSmoothing), '--clip', String(s.clip)];
    if (s.warmup !== null) parts.push('--warmup', String(s.warmup));
    return parts.join(' ');
  }
  const parts = ['tfp train', s.task, '--seed', String(s.seed), '--steps', String(s.steps), '--batch', String(s.batch),
    '--arch', s.arch, '--layers', String(s.layers), '--d-model', String(s.dModel), '--heads', String(s.heads),
    '--d-ff', String(s.dFf), ...sizeFlag(s), '--act', s.act, '--lr', String(s.lr),
    '--label-smoothing', String(s.labelSmoothing), '--clip', String(s.clip),
    ...(s.dropout > 0 ? ['--dropout', String(s.dropout)] : []), '--positions', s.positions];
  if (s.warmup !== null) parts.push('--warmup', String(s.warmup));
  if (s.postLn) parts.push('--post-ln');
  return parts.join(' ');
}
