// The Web Worker that owns the WebAssembly module. The page never touches the module:
// it sends typed requests (messages.ts) and gets replies whose tensors are transferred.
// Requests are handled one at a time, in order (a load that streams its weights holds the
// queue until it is done). Generation is one request per token, so a generation is
// cancelled simply by not asking for the next token (and freeing it).
import { loadEngineModule, wasmFromPage } from './load_module';
import type { WasmFromPage } from './start_worker';
import { isTrap } from './restart_policy';
import { AttentionLab, Calls } from './calls';
import { Models } from './models';
import { attentionRollout, headScores, headStats } from './attention_maths';
import { runLearn, transferablesOf } from './learn_calls/index';
import { ATTENTION_STEPS_TENSORS, ATTENTION_TENSORS, type FloatTensor, type Reply, type Request } from './messages';

// The worker global, typed by hand so this file needs only the DOM library.
interface WorkerScope {
  onmessage: ((ev: MessageEvent<Request | WasmFromPage>) => void) | null;
  postMessage(message: Reply, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

// tfp_mt.mjs (threads) on a cross-origin isolated page, else tfp.mjs (load_module.ts).
const workerName = (self as unknown as { name?: string }).name ?? '';
// The module the page compiled for this worker (start_worker.ts), when its name says one comes.
let takeWasm: ((m: WasmFromPage) => void) | null = null;
const fromPage = wasmFromPage(workerName) ? new Promise<WasmFromPage>((resolve) => { takeWasm = resolve; }) : null;
const ready = loadEngineModule(workerName, fromPage).then(({ m, threads }) => {
  const calls = new Calls(m, threads);
  return { calls, m, lab: new AttentionLab(calls, m), models: new Models(calls, m) };
});
ready.catch((e: unknown) => scope.postMessage({ id: -1, ok: false, error: `engine failed to start: ${String(e)}` }));

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Set once the module trapped: the worker answers nothing more and closes. */
let dead = false;

const buffers = (ts: FloatTensor[]): Transferable[] => ts.map((t) => t.data.buffer);

async function handle(req: Request, engine: Awaited<typeof ready>): Promise<void> {
  const { calls, lab, models } = engine;
  const reply = (r: Reply, transfer: Transferable[] = []) => scope.postMessage(r, transfer);
  switch (req.kind) {
    case 'info':
      return reply({ id: req.id, ok: true, kind: 'info', result: calls.info() });
    case 'attention': {
      const result = lab.run(req.args);
      return reply({ id: req.id, ok: true, kind: 'attention', result }, ATTENTION_TENSORS.map((n) => result[n].data.buffer));
    }
    case 'load': {
      const result = await models.load(req.args, (progress) => reply({ id: req.id, ok: true, kind: 'progress', progress }));
      reply({ id: req.id, ok: true, kind: 'progress', progress: { stage: 'binding', bytes: 0, total: 0 } });
      return reply({ id: req.id, ok: true, kind: 'load', result });
    }
    case 'random-model':
      return reply({ id: req.id, ok: true, kind: 'load', result: models.random(req.config, req.tokenizer, req.seed) });
    case 'check-config':
      models.checkConfig(req.config, req.name);
      return reply({ id: req.id, ok: true, kind: 'check-config' });
    case 'dispose':
      models.dispose(req.model);
      return reply({ id: req.id, ok: true, kind: 'dispose' });
    case 'tokenize': {
      const result = models.tokenize(req.model, req.text, req.addSpecialTokens);
      return reply({ id: req.id, ok: true, kind: 'tokenize', result },
        [result.ids.buffer, result.offsets.buffer, result.specialMask.buffer]);
    }
    case 'decode':
      return reply({ id: req.id, ok: true, kind: 'decode', result: models.decode(req.model, req.ids, req.skipSpecialTokens) });
    case 'forward': {
      const result = models.forward(req.model, req.args);
      const ts = [result.hidden, result.hiddenNorm, ...result.attention, ...(result.logits ? [result.logits] : []),
                  ...(result.argmax ? [result.argmax] : [])];
      return reply({ id: req.id, ok: true, kind: 'forward', result }, buffers(ts));
    }
    case 'generate-start':
      return reply({ id: req.id, ok: true, kind: 'generate-start', result: { generator: models.generateStart(req.model, req.args) } });
    case 'generate-next':
      return reply({ id: req.id, ok: true, kind: 'generate-next', result: models.generateNext(req.generator) });
    case 'generate-stop':
      models.stop(req.generator);
      return reply({ id: req.id, ok: true, kind: 'generate-stop' });
    case 'translate': {
      const result = models.translate(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'translate', result },
        [result.ids.buffer, ...buffers([result.alignment, ...result.crossAttention])]);
    }
    case 'fill-mask':
      return reply({ id: req.id, ok: true, kind: 'fill-mask', result: models.fillMask(req.model, req.args) });
    case 'attention-steps': {
      const result = models.attentionSteps(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'attention-steps', result },
        ATTENTION_STEPS_TENSORS.map((n) => result[n].data.buffer));
    }
    case 'forward-embeddings': {
      const result = models.forwardEmbeddings(req.model, req.args);
      const ts = [result.src, result.hidden, result.hiddenNorm, ...result.attention,
        ...(result.tgt ? [result.tgt] : []), ...(result.memory ? [result.memory] : [])];
      // src and tgt may share one buffer (the same vectors given twice): transfer it once.
      return reply({ id: req.id, ok: true, kind: 'forward-embeddings', result }, [...new Set(buffers(ts))]);
    }
    case 'attention-steps-embeddings': {
      const result = models.attentionStepsEmbeddings(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'attention-steps-embeddings', result },
        ATTENTION_STEPS_TENSORS.map((n) => result[n].data.buffer));
    }
    case 'rollout': {
      const result = attentionRollout(engine.calls, engine.m, req.args);
      return reply({ id: req.id, ok: true, kind: 'rollout', result }, [result.data.buffer]);
    }
    case 'head-stats': {
      const result = headStats(engine.calls, engine.m, req.maps, req.options);
      return reply({ id: req.id, ok: true, kind: 'head-stats', result }, buffers(result));
    }
    case 'head-scores': {
      const result = headScores(engine.calls, engine.m, req.maps, req.options);
      return reply({ id: req.id, ok: true, kind: 'head-scores', result }, buffers(result));
    }
    case 'head-mask':
      models.setHeadMask(req.model, req.entries);
      return reply({ id: req.id, ok: true, kind: 'head-mask' });
    case 'head-mask-effect':
      return reply({ id: req.id, ok: true, kind: 'head-mask-effect', result: models.headMaskEffect(req.model, req.ids, req.topK, req.beamSize) });
    case 'logit-lens': {
      const result = models.logitLens(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'logit-lens', result }, buffers([result.ids, result.probs]));
    }
    case 'activation-patching': {
      const result = models.activationPatching(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'activation-patching', result }, buffers(result.tensors));
    }
    case 'logit-attribution': {
      const r = models.logitAttribution(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'logit-attribution', result: r },
        [r.heads.data.buffer, r.attnBias.buffer, r.mlp.buffer, r.accumulated.buffer]);
    }
    case 'gradient-attribution': {
      const r = models.gradientAttribution(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'gradient-attribution', result: r },
        [r.gradXInput.buffer, r.gradNorm.buffer, ...(r.integrated ? [r.integrated.buffer] : [])]);
    }
    case 'integrated-gradients': {
      const r = models.integratedGradients(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'integrated-gradients', result: r }, [r.integrated.buffer]);
    }
    case 'head-ablation': {
      const r = models.headAblation(req.model, req.args);
      return reply({ id: req.id, ok: true, kind: 'head-ablation', result: r }, [r.ablatedLogitDiff.data.buffer, r.ablatedLogprob.data.buffer]);
    }
    case 'learn': {
      const result = runLearn(calls, engine.m, req.name, req.args, { modelPtr: (h) => models.pointer(h) });
      return reply({ id: req.id, ok: true, kind: 'learn', result }, transferablesOf(result));
    }
    case 'memory':
      return reply({ id: req.id, ok: true, kind: 'memory', result: { heapBytes: models.heapBytes(), ...models.counts() } });
    case 'crash':
      // A real trap: the C API reads a tensor list at an address past the end of memory.
      engine.m._tfp_tensors_count(-16);
      throw new WebAssembly.RuntimeError('crash: the out-of-bounds read did not trap');
    default: {
      const unknown: { id: number; kind: string } = req;
      return reply({ id: unknown.id, ok: false, error: `unknown request '${unknown.kind}'` });
    }
  }
}

// One request at a time, in arrival order, even when a handler awaits (streamed loads).
let queue: Promise<void> = Promise.resolve();
// A trap ends the worker: the request's reply says so (fatal), the requests queued behind
// it get none, and the page's Engine (engine.ts) starts a new worker.
scope.onmessage = (ev: MessageEvent<Request | WasmFromPage>) => {
  if (ev.data.kind === 'wasm-from-page') {
    takeWasm?.(ev.data);
    takeWasm = null;
    return;
  }
  const req = ev.data;
  queue = queue.then(() => (dead ? undefined : ready.then(
    (engine) => handle(req, engine).catch((e: unknown) => {
      if (!isTrap(e)) return scope.postMessage({ id: req.id, ok: false, error: errorText(e) });
      dead = true;
      scope.postMessage({ id: req.id, ok: false, error: errorText(e), fatal: true });
      (self as unknown as { close(): void }).close();
    }),
    (e: unknown) => scope.postMessage({ id: req.id, ok: false, error: `engine failed to start: ${errorText(e)}` }))));
};
