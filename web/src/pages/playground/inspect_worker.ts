// A second, small worker for the inspector's maths on attention maps the page already
// has: attention rollout and head statistics, computed by the engine's C++
// (src/inspect/rollout.cpp through src/api/tfp_inspect_api.h). It holds its own
// instance of the module because these calls are stateless and the main engine worker
// (web/src/engine/) has no message for them yet. Marshalling only, no maths.
import createTfp, { type TfpModule } from '../../engine/wasm/tfp.mjs';

interface InspectModule extends TfpModule {
  _tfp_attention_rollout(probs: number, L: number, H: number, T: number, residual: number, fusion: number, out: number): number;
  _tfp_attention_head_stats(probs: number, H: number, Tq: number, Tk: number, out: number): number;
}

export type InspectRequest =
  | { id: number; kind: 'rollout'; probs: Float32Array; L: number; H: number; T: number; residual: number; fusion: number }
  | { id: number; kind: 'head-stats'; probs: Float32Array; H: number; Tq: number; Tk: number };

export type InspectReply = { id: number; ok: true; data: Float32Array } | { id: number; ok: false; error: string };

interface WorkerScope {
  onmessage: ((ev: MessageEvent<InspectRequest>) => void) | null;
  postMessage(message: InspectReply, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;
const ready = createTfp() as Promise<InspectModule>;

function call(m: InspectModule, input: Float32Array, outFloats: number, run: (inPtr: number, outPtr: number) => number): Float32Array {
  const inPtr = m._tfp_alloc(Math.max(4, input.byteLength));
  const outPtr = m._tfp_alloc(Math.max(4, outFloats * 4));
  try {
    if (!inPtr || !outPtr) throw new Error('inspect: out of memory');
    m.HEAPU8.set(new Uint8Array(input.buffer, input.byteOffset, input.byteLength), inPtr);
    if (run(inPtr, outPtr) !== 0) throw new Error(m.UTF8ToString(m._tfp_last_error()));
    return new Float32Array(m.HEAPU8.buffer, outPtr, outFloats).slice();  // copy out: views go stale
  } finally {
    if (inPtr) m._tfp_free(inPtr);
    if (outPtr) m._tfp_free(outPtr);
  }
}

scope.onmessage = (ev) => {
  const r = ev.data;
  ready.then((m) => {
    const data = r.kind === 'rollout'
      ? call(m, r.probs, r.L * r.T * r.T, (p, o) => m._tfp_attention_rollout(p, r.L, r.H, r.T, r.residual, r.fusion, o))
      : call(m, r.probs, r.H * 4, (p, o) => m._tfp_attention_head_stats(p, r.H, r.Tq, r.Tk, o));
    scope.postMessage({ id: r.id, ok: true, data }, [data.buffer]);
  }).catch((e: unknown) => scope.postMessage({ id: r.id, ok: false, error: e instanceof Error ? e.message : String(e) }));
};
