// The training page's worker: its own instance of the engine's module (not the engine
// worker other pages share) and one trainer. It trains in chunks of steps sized to take
// ~25 ms, reads the page's messages between chunks (pause, learning rate, an input to
// answer, export), evaluates on the held-out set at fixed steps, and posts progress at
// most every 100 ms with the probe's attention maps at that step. Marshalling only: every
// number comes from tfp_trainer_* (src/api/tfp_api.h).
import createTfp, { type TfpModule } from '../../engine/wasm/tfp.mjs';
import {
  STAT_COLUMNS, trainerOptions, type EvalPoint, type FromWorker, type ProbeMap, type ProbeSnapshot, type ToWorker,
  type TrainerInfo,
} from './protocol';
import { isTrap } from '../../engine/restart_policy';

/** The trainer's functions (declared in src/api/tfp_api.h, exported by the module). */
interface TrainerModule extends TfpModule {
  _tfp_trainer_create(task: number, options: number, bytes: number, seed: number, out: number): number;
  _tfp_trainer_free(trainer: number): void;
  _tfp_trainer_step_stats(trainer: number, n: number, stats: number): number;
  _tfp_trainer_set_lr(trainer: number, lr: number): number;
  _tfp_trainer_evaluate(trainer: number, seq: number, tok: number, loss: number): number;
  _tfp_trainer_info_json(trainer: number): number;
  _tfp_trainer_attention(trainer: number, prompt: number, out: number): number;
  _tfp_trainer_attention_tokens(trainer: number, source: number): number;
  _tfp_trainer_generate(trainer: number, prompt: number, answer: number): number;
  _tfp_trainer_export(trainer: number, config: number, configBytes: number, weights: number, weightsBytes: number,
                      tokenizer: number, tokenizerBytes: number): number;
}

interface WorkerScope {
  onmessage: ((ev: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;
const post = (m: FromWorker, transfer: Transferable[] = []) => scope.postMessage(m, transfer);

const POST_EVERY_MS = 100;   // progress at most ~10 times a second
const CHUNK_MS = 25;         // a chunk of steps takes about this long: messages wait at most that

class Trainer {
  handle = 0;
  info!: TrainerInfo;
  evalEvery = 1;
  probe = '';
  /** A loop is training this trainer; stopRequested ends it after its chunk. */
  running = false;
  stopRequested = false;
  /** Counts trainers: a loop of an earlier trainer (replaced by a create while it waited
   *  between chunks) ends without a word and touches nothing. */
  generation = 0;
  stopAt: number | null = null;
  stepsPerSecond: number | null = null;
  trainSeconds = 0;
  elapsedSeconds = 0;
  private chunk = 1;
  private rows: number[] = [];
  private firstStep = 1;
  private evals: EvalPoint[] = [];
  private snapshots: ProbeSnapshot[] = [];

  constructor(private readonly m: TrainerModule) {}

  /** A real trap (tests): the C API reads a tensor list past the end of memory. */
  crash(): never {
    this.m._tfp_tensors_count(-16);
    throw new WebAssembly.RuntimeError('crash: the out-of-bounds read did not trap');
  }

  private check(status: number): void {
    if (status !== 0) throw new Error(this.m.UTF8ToString(this.m._tfp_last_error()));
  }

  /** Runs body with a NUL-terminated copy of s on the heap. */
  private withString<R>(s: string, body: (ptr: number) => R): R {
    const bytes = new TextEncoder().encode(s + '\0');
    const p = this.m._tfp_alloc(bytes.length);
    this.m.HEAPU8.set(bytes, p);
    try {
      return body(p);
    } finally {
      this.m._tfp_free(p);
    }
  }

  private withBuffer<R>(bytes: number, body: (ptr: number) => R): R {
    const p = this.m._tfp_alloc(Math.max(1, bytes));
    try {
      return body(p);
    } finally {
      this.m._tfp_free(p);
    }
  }

  create(task: string, options: object, seed: number): void {
    const text = JSON.stringify(options);
    const handle = this.withString(task, (t) => this.withString(text, (o) => this.withBuffer(4, (slot) => {
      this.check(this.m._tfp_trainer_create(t, o, new TextEncoder().encode(text).length, seed >>> 0, slot));
      return new DataView(this.m.HEAPU8.buffer).getUint32(slot, true);
    })));
    this.free();
    this.handle = handle;
    this.info = this.readInfo();
    // About 20 evaluations over the schedule, at multiples of evalEvery.
    this.evalEvery = Math.max(5, Math.ceil(this.info.steps / 20));
    this.chunk = 1;
    this.rows = [];
    this.firstStep = 1;
    this.evals = [];
    this.snapshots = [];
    this.trainSeconds = 0;
    this.elapsedSeconds = 0;
  }

  free(): void {
    if (this.handle) this.m._tfp_trainer_free(this.handle);
    this.handle = 0;
    this.generation += 1;
    this.running = false;
  }

  readInfo(): TrainerInfo {
    return JSON.parse(this.m.UTF8ToString(this.m._tfp_trainer_info_json(this.handle))) as TrainerInfo;
  }

  get step(): number {
    return this.readInfo().steps_done;
  }

  evaluate(step: number): EvalPoint {
    return this.withBuffer(24, (p) => {
      this.check(this.m._tfp_trainer_evaluate(this.handle, p, p + 8, p + 16));
      const [sequenceAccuracy, tokenAccuracy, loss] = new Float64Array(this.m.HEAPU8.buffer, p, 3);
      return { step, loss: loss!, tokenAccuracy: tokenAccuracy!, sequenceAccuracy: sequenceAccuracy! };
    });
  }

  snapshot(step: number): ProbeSnapshot {
    const maps: ProbeMap[] = [];
    this.withString(this.probe, (pr) => this.withBuffer(4, (slot) => {
      this.check(this.m._tfp_trainer_attention(this.handle, pr, slot));
      const list = new DataView(this.m.HEAPU8.buffer).getUint32(slot, true);
      try {
        const dec = this.m.UTF8ToString(this.m._tfp_trainer_attention_tokens(this.handle, 0));
        const enc = this.m.UTF8ToString(this.m._tfp_trainer_attention_tokens(this.handle, 1));
        const n = this.m._tfp_tensors_count(list);
        for (let i = 0; i < n; i++) {
          const name = this.m.UTF8ToString(this.m._tfp_tensors_name(list, i));
          const dims = Array.from(new Int32Array(this.m.HEAPU8.buffer, this.m._tfp_tensors_dims(list, i), 3));
          const [H, Tq, Tk] = dims as [number, number, number];
          const data = new Float32Array(this.m.HEAPU8.buffer, this.m._tfp_tensors_data(list, i), H * Tq * Tk).slice();
          // Rows: decoder positions except in the encoder's own maps; columns: the source in
          // the encoder's maps and cross-attention.
          const rows = name.startsWith('enc.') ? enc : dec, cols = name.startsWith('dec.') && !name.includes('.cross.') ? dec : enc;
          maps.push({ name, heads: H, rows: [...rows], cols: [...cols], data });
        }
      } finally {
        this.m._tfp_tensors_free(list);
      }
    }));
    return { step, prompt: this.probe, maps };
  }

  generate(prompt: string): string {
    return this.withString(prompt, (p) => this.withBuffer(4, (slot) => {
      this.check(this.m._tfp_trainer_generate(this.handle, p, slot));
      return this.m.UTF8ToString(new DataView(this.m.HEAPU8.buffer).getUint32(slot, true));
    }));
  }

  setLr(lr: number): void {
    this.check(this.m._tfp_trainer_set_lr(this.handle, lr));
    this.info = this.readInfo();
  }

  exportFiles(): { config: string; weights: ArrayBuffer; tokenizer: string } {
    return this.withBuffer(24, (p) => {
      this.check(this.m._tfp_trainer_export(this.handle, p, p + 4, p + 8, p + 12, p + 16, p + 20));
      const v = new Uint32Array(this.m.HEAPU8.buffer, p, 6);
      const [cp, cn, wp, wn, tp, tn] = Array.from(v) as [number, number, number, number, number, number];
      const dec = new TextDecoder();
      return {
        config: dec.decode(this.m.HEAPU8.slice(cp, cp + cn)),
        weights: this.m.HEAPU8.slice(wp, wp + wn).buffer,
        tokenizer: dec.decode(this.m.HEAPU8.slice(tp, tp + tn)),
      };
    });
  }

  /** The first evaluation point and maps, before any step. */
  start(): { evals: EvalPoint[]; snapshot: ProbeSnapshot } {
    const e = this.evaluate(0);
    return { evals: [e], snapshot: this.snapshot(0) };
  }

  /** The training loop: chunks of steps until paused, stopAt, or the schedule's end. */
  async run(): Promise<void> {
    if (!this.handle) return;
    this.stopRequested = false;  // a pause not yet taken is taken back
    if (this.running) return;
    this.running = true;
    const generation = this.generation;
    let step = this.step;
    this.firstStep = step + 1;
    let lastPost = performance.now();
    const schedule = this.info.steps;
    // Fixed when the run starts: the schedule's end, or past it (Train on) no end.
    const runEnd = step < schedule ? schedule : Number.POSITIVE_INFINITY;
    const target = () => this.stopAt ?? runEnd;
    const statsPtr = this.m._tfp_alloc(8 * STAT_COLUMNS * 4096);
    let reason: 'paused' | 'stop-at' | 'schedule-end' = 'paused';
    try {
      while (!this.stopRequested && generation === this.generation) {
        const until = target();
        if (step >= until) {
          reason = this.stopAt !== null ? 'stop-at' : 'schedule-end';
          break;
        }
        const nextEval = (Math.floor(step / this.evalEvery) + 1) * this.evalEvery;
        const cap = this.stepsPerSecond ? Math.max(1, Math.floor(this.stepsPerSecond / 10)) : 4096;
        const n = Math.max(1, Math.min(this.chunk, cap, until - step, nextEval - step));
        const t0 = performance.now();
        this.check(this.m._tfp_trainer_step_stats(this.handle, n, statsPtr));
        const dt = performance.now() - t0;
        this.trainSeconds += dt / 1000;
        this.rows.push(...new Float64Array(this.m.HEAPU8.buffer, statsPtr, n * STAT_COLUMNS));
        step += n;
        // Size the next chunk to take ~CHUNK_MS.
        const perStep = dt / n;
        this.chunk = Math.max(1, Math.min(4096, Math.round(CHUNK_MS / Math.max(perStep, 1e-3))));
        // Held-out evaluation and the probe's maps at fixed steps: the same curve and the
        // same replay points however the run was paused.
        if (step % this.evalEvery === 0 || step === schedule) {
          this.evals.push(this.evaluate(step));
          if (this.probe) this.snapshots.push(this.snapshot(step));
        }
        this.elapsedSeconds += (performance.now() - t0) / 1000;
        const now = performance.now();
        if (now - lastPost >= POST_EVERY_MS) {
          this.postProgress(step, true);
          lastPost = performance.now();
        }
        // Let the page's messages in (pause, learning rate, an input to answer); at a set
        // pace, wait out the rest of this chunk's share of a second.
        if (this.stepsPerSecond) {
          const wait = (n * 1000) / this.stepsPerSecond - (performance.now() - t0);
          await (wait > 1 ? sleep(wait) : nextTask());
        } else {
          await nextTask();
        }
      }
    } catch (e) {
      if (isTrap(e)) die(e);
      else post({ kind: 'error', request: 'run', message: e instanceof Error ? e.message : String(e) });
    } finally {
      if (!dead) {  // after a trap the module must not run again
        this.m._tfp_free(statsPtr);
        if (generation === this.generation) {
          this.running = false;
          this.stopRequested = false;
          this.stopAt = null;
          this.postProgress(step, false);
          post({ kind: 'stopped', step, reason });
        }
      }
    }
  }

  private postProgress(step: number, running: boolean): void {
    const t0 = performance.now();
    const snapshots = this.snapshots;
    if (this.probe && snapshots.at(-1)?.step !== step) snapshots.push(this.snapshot(step));
    this.elapsedSeconds += (performance.now() - t0) / 1000;
    const stats = new Float64Array(this.rows);
    const msg: FromWorker = {
      kind: 'progress', step, stats, firstStep: this.firstStep, evals: this.evals, snapshots,
      trainSeconds: this.trainSeconds, elapsedSeconds: this.elapsedSeconds,
      tokensPerSecond: this.trainSeconds > 0 ? (this.info.tokens_per_step * (step)) / this.trainSeconds : 0,
      running,
    };
    this.firstStep = step + 1;
    this.rows = [];
    this.evals = [];
    this.snapshots = [];
    post(msg, [stats.buffer, ...snapshots.flatMap((s) => s.maps.map((m) => m.data.buffer))]);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Set once the module trapped: the worker answers nothing more. */
let dead = false;

/** Says the module trapped and closes the worker; the page starts a new one. */
function die(e: unknown): void {
  dead = true;
  post({ kind: 'crashed', message: e instanceof Error ? e.message : String(e) });
  (self as unknown as { close(): void }).close();
}

/** Resolves after the messages already queued for this worker have been handled. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(0);
  });
}

const ready = createTfp().then((m) => {
  const tr = new Trainer(m as TrainerModule);
  post({ kind: 'ready', simd: m.UTF8ToString(m._tfp_simd_arch()) });
  return tr;
});
ready.catch((e: unknown) => post({ kind: 'error', request: 'create', message: `engine failed to start: ${String(e)}` }));

function handle(tr: Trainer, req: ToWorker): void {
  try {
    switch (req.kind) {
      case 'create': {
        tr.create(req.settings.task, trainerOptions(req.settings), req.settings.seed);
        tr.probe = req.probe;
        const { evals, snapshot } = tr.start();
        post({ kind: 'created', info: tr.info, evals, snapshot, evalEvery: tr.evalEvery },
          snapshot.maps.map((m) => m.data.buffer));
        return;
      }
      case 'run':
        tr.stopAt = req.stopAt ?? null;
        void tr.run();
        return;
      case 'pause':
        if (tr.running) tr.stopRequested = true;
        return;
      case 'pace':
        tr.stepsPerSecond = req.stepsPerSecond;
        return;
      case 'set-lr':
        tr.setLr(req.lr);
        post({ kind: 'lr-set', lr: tr.info.lr });
        return;
      case 'probe': {
        const old = tr.probe;
        tr.probe = req.prompt;
        try {
          const snapshot = tr.snapshot(tr.step);
          post({ kind: 'probe', snapshot }, snapshot.maps.map((m) => m.data.buffer));
        } catch (e) {
          tr.probe = old;
          throw e;
        }
        return;
      }
      case 'generate':
        post({ kind: 'answer', id: req.id, prompt: req.prompt, step: tr.step, answer: tr.generate(req.prompt) });
        return;
      case 'export': {
        const f = tr.exportFiles();
        post({ kind: 'files', id: req.id, step: tr.step, ...f }, [f.weights]);
        return;
      }
      case 'crash':
        tr.crash();
    }
  } catch (e) {
    if (isTrap(e)) return die(e);
    const message = e instanceof Error ? e.message : String(e);
    if (req.kind === 'create') post({ kind: 'create-failed', message });
    else post({ kind: 'error', request: req.kind, message, ...('id' in req ? { id: req.id } : {}) });
  }
}

scope.onmessage = (ev) => {
  void ready.then((tr) => { if (!dead) handle(tr, ev.data); });
};
