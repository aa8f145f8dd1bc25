// The Web Worker that owns the WebAssembly module. The page never touches the module:
// it sends typed requests (messages.ts) and gets replies whose tensors are transferred.
// Requests are handled one at a time, in order.
import createTfp from './wasm/tfp.mjs';
import { AttentionLab, Calls } from './calls';
import { ATTENTION_TENSORS, type Reply, type Request } from './messages';

// The worker global, typed by hand so this file needs only the DOM library.
interface WorkerScope {
  onmessage: ((ev: MessageEvent<Request>) => void) | null;
  postMessage(message: Reply, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

const ready = createTfp().then((m) => ({ calls: new Calls(m), lab: new AttentionLab(new Calls(m), m) }));
ready.catch((e: unknown) => scope.postMessage({ id: -1, ok: false, error: `engine failed to start: ${String(e)}` }));

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

scope.onmessage = (ev: MessageEvent<Request>) => {
  const req = ev.data;
  ready.then(({ calls, lab }) => {
    try {
      if (req.kind === 'info') {
        scope.postMessage({ id: req.id, ok: true, kind: 'info', result: calls.info() });
      } else if (req.kind === 'attention') {
        const result = lab.run(req.args);
        const transfer = ATTENTION_TENSORS.map((name) => result[name].data.buffer);
        scope.postMessage({ id: req.id, ok: true, kind: 'attention', result }, transfer);
      } else {
        const unknown: { id: number; kind: string } = req;
        scope.postMessage({ id: unknown.id, ok: false, error: `unknown request '${unknown.kind}'` });
      }
    } catch (e) {
      scope.postMessage({ id: req.id, ok: false, error: errorText(e) });
    }
  }, (e: unknown) => scope.postMessage({ id: req.id, ok: false, error: `engine failed to start: ${errorText(e)}` }));
};
