// The Learn chapter "Training a transformer": marshalling only. The learning-rate schedule
// and the per-row cross-entropy come from src/api/tfp_learn_training_api.h (the trainer's
// own train/lr_schedule.h and train/cross_entropy.h); the toy-task trainers are
// tfp_trainer_* (src/api/tfp_api.h), kept alive in this worker between calls so the page
// trains in small chunks of steps and stays responsive. Teacher forcing reads the
// trained model's argmax at every position of the true sequence (tfp_model_forward on the
// exported files); free-running decoding is tfp_trainer_generate.
import type { TfpModule } from '../wasm/tfp.mjs';
import { TfpError, type Calls } from '../calls';
import { withParams } from '../params.mjs';

/** The trainers this worker holds, by handle (their module pointer). */
const trainers = new Set<number>();

function withString<R>(c: Calls, s: string, body: (p: number) => R): R {
  const bytes = new TextEncoder().encode(s + '\0');
  const p = c.put(bytes);
  try {
    return body(p);
  } finally {
    c.free(p);
  }
}

function trainer(handle: number): number {
  if (!trainers.has(handle)) throw new TfpError(1, `training: no trainer ${handle} (freed?)`);
  return handle;
}

export interface ScheduleArgs { peak: number; floor: number; warmup: number; total: number; decay: 0 | 1 | 2; n: number }

/** tfp_learn_lr_schedule: the trainer's learning rate at steps 0..n-1. */
export function trainingSchedule(c: Calls, m: TfpModule, a: ScheduleArgs): Float64Array {
  return c.withBuffer(a.n * 8, (out) => {
    c.check(m._tfp_learn_lr_schedule(a.peak, a.floor, a.warmup, a.total, a.decay, a.n, out));
    return new Float64Array(m.HEAPU8.buffer, out, a.n).slice();
  });
}

export interface LossArgs {
  /** (n, V) row-major logits. */
  logits: Float32Array;
  /** (n) target ids. */
  targets: number[];
  V: number;
  smoothing: number;
}

/** tfp_learn_cross_entropy: each row's loss (n doubles). */
export function trainingLoss(c: Calls, m: TfpModule, a: LossArgs): Float64Array {
  const n = a.targets.length;
  const logits = c.putFloats(a.logits, n * a.V, 'training loss: logits (n, V)');
  const targets = c.put(new Uint8Array(Int32Array.from(a.targets).buffer));
  try {
    return c.withBuffer(n * 8, (out) => {
      c.check(m._tfp_learn_cross_entropy(logits, targets, n, a.V, a.smoothing, out));
      return new Float64Array(m.HEAPU8.buffer, out, n).slice();
    });
  } finally {
    c.free(logits);
    c.free(targets);
  }
}

export interface TrainerCreateArgs {
  task: 'copy' | 'reverse' | 'sort' | 'add';
  /** The tfp_trainer_create options (keys of `tfp train`, e.g. warmup, clip, label_smoothing). */
  options: Record<string, number | string | boolean>;
  seed: number;
}

export interface TrainerCreated {
  handle: number;
  /** tfp_trainer_info_json, parsed. */
  info: Record<string, unknown> & { vocab: string; steps: number; parameters: number };
}

/** tfp_trainer_create: a new trainer held by this worker until trainingFree. */
export function trainingCreate(c: Calls, m: TfpModule, a: TrainerCreateArgs): TrainerCreated {
  const text = JSON.stringify(a.options);
  const handle = withString(c, a.task, (t) => withString(c, text, (o) => c.withBuffer(4, (slot) => {
    c.check(m._tfp_trainer_create(t, o, new TextEncoder().encode(text).length, a.seed >>> 0, slot));
    return c.readU32(slot);
  })));
  trainers.add(handle);
  return { handle, info: JSON.parse(m.UTF8ToString(m._tfp_trainer_info_json(handle))) as TrainerCreated['info'] };
}

/** tfp_trainer_step_stats: n steps; per step [loss, token accuracy, lr, grad norm before clipping]. */
export function trainingStep(c: Calls, m: TfpModule, a: { handle: number; steps: number }): Float64Array {
  const h = trainer(a.handle);
  return c.withBuffer(a.steps * 4 * 8, (out) => {
    c.check(m._tfp_trainer_step_stats(h, a.steps, out));
    return new Float64Array(m.HEAPU8.buffer, out, a.steps * 4).slice();
  });
}

export interface TrainerEval { sequenceAccuracy: number; tokenAccuracy: number; loss: number }

/** tfp_trainer_evaluate on the held-out set. */
export function trainingEvaluate(c: Calls, m: TfpModule, a: { handle: number }): TrainerEval {
  const h = trainer(a.handle);
  return c.withBuffer(24, (p) => {
    c.check(m._tfp_trainer_evaluate(h, p, p + 8, p + 16));
    const v = new Float64Array(m.HEAPU8.buffer, p, 3);
    return { sequenceAccuracy: v[0]!, tokenAccuracy: v[1]!, loss: v[2]! };
  });
}

export interface TeacherForcingResult {
  /** The true decoder sequence (prompt, separator, answer), one character per token. */
  truth: string;
  /** Where the answer starts in truth (the separator's index + 1). */
  answerStart: number;
  /** Teacher forcing: the argmax prediction at each position of truth (as characters):
   *  position i predicts token i + 1 from the true tokens 0..i. */
  teacher: string;
  /** Free running: the model's greedy answer, each token fed back as the next input. */
  own: string;
}

/** Teacher forcing vs free running on one prompt, for a decoder-only trainer. */
export function trainingTeacherForcing(c: Calls, m: TfpModule, a: { handle: number; prompt: string }): TeacherForcingResult {
  const h = trainer(a.handle);
  const info = JSON.parse(m.UTF8ToString(m._tfp_trainer_info_json(h))) as { vocab: string; architecture: string };
  if (info.architecture !== 'decoder_only') throw new TfpError(1, 'training: teacher forcing here needs a decoder-only trainer');
  // The true sequence: the trainer runs the example with the task's answer.
  const truth = withString(c, a.prompt, (p) => c.withBuffer(4, (slot) => {
    c.check(m._tfp_trainer_attention(h, p, slot));
    m._tfp_tensors_free(c.readU32(slot));
    return m.UTF8ToString(m._tfp_trainer_attention_tokens(h, 0));
  }));
  const own = withString(c, a.prompt, (p) => c.withBuffer(4, (slot) => {
    c.check(m._tfp_trainer_generate(h, p, slot));
    return m.UTF8ToString(c.readU32(slot));
  }));
  // The model as files, loaded, run once over the true sequence.
  const model = c.withBuffer(24, (s) => {
    c.check(m._tfp_trainer_export(h, s, s + 4, s + 8, s + 12, s + 16, s + 20));
    const u = (i: number) => c.readU32(s + 4 * i);
    const name = c.put(new TextEncoder().encode('learn-training\0'));
    try {
      return c.withBuffer(4, (slot) => {
        c.check(m._tfp_model_load_buffers(u(0), u(1), u(2), u(3), u(4), u(5), name, slot));
        return c.readU32(slot);
      });
    } finally {
      c.free(name);
    }
  });
  try {
    const ids = Int32Array.from([...truth].map((ch) => info.vocab.indexOf(ch)));
    const idsPtr = c.put(new Uint8Array(ids.buffer));
    try {
      const teacher = c.withBuffer(4, (slot) => {
        c.check(withParams(m, 'tfp_forward_params', { ids: idsPtr, n: ids.length }, (p) => m._tfp_model_forward(model, p, slot)));
        const list = c.readU32(slot);
        try {
          return Array.from(c.tensor(list, 'argmax').data, (id) => info.vocab[id] ?? '?').join('');
        } finally {
          m._tfp_tensors_free(list);
        }
      });
      return { truth, answerStart: truth.indexOf('>') >= 0 ? truth.indexOf('>') + 1 : truth.indexOf('=') + 1, teacher, own };
    } finally {
      c.free(idsPtr);
    }
  } finally {
    m._tfp_model_free(model);
  }
}

/** tfp_trainer_free. */
export function trainingFree(_c: Calls, m: TfpModule, a: { handle: number }): boolean {
  if (!trainers.delete(a.handle)) return false;
  m._tfp_trainer_free(a.handle);
  return true;
}
