// A Node worker thread dressed as the Web Worker that engine.ts drives (postMessage,
// onmessage, onerror, terminate). It holds the process open only while a request is
// unanswered, so a script ends when its last await does, without engine.terminate().
import { Worker } from 'node:worker_threads';

/** A load's sources with every Blob made into what crosses to a thread: Node cannot clone a
 *  file-backed Blob (fs.openAsBlob, the Hub store's files), so weights go as a stream of
 *  the file and text files as their text. Returns the args and the streams to transfer. */
async function portableLoad(args) {
  const streams = [];
  const weights = (file) => {
    const stream = file.stream();
    streams.push(stream);
    return { stream, size: file.size };
  };
  const text = async (src) => (src?.kind === 'file' ? { kind: 'text', text: await src.file.text() } : src);
  const w = args.weights;
  const out = { ...args, config: await text(args.config), ...(args.tokenizer ? { tokenizer: await text(args.tokenizer) } : {}) };
  if (w.kind === 'file') out.weights = { kind: 'stream', ...weights(w.file) };
  if (w.kind === 'shards') {
    out.weights = { ...w, index: await text(w.index),
                    shards: w.shards.map((s) => ('file' in s ? { name: s.name, ...weights(s.file) } : s)) };
  }
  return { args: out, streams };
}

export class ThreadWorker {
  onmessage = null;
  onerror = null;
  #thread;
  #unanswered = new Set();
  /** Requests after a load that is being made portable wait for it: they go in order. */
  #queue = null;

  constructor(url, name) {
    this.#thread = new Worker(url, { workerData: { name } });
    this.#thread.unref();
    this.#thread.on('message', (data) => {
      // Progress comes before the answer; every other reply is one (id -1: the start failed).
      if (data?.kind !== 'progress' && this.#unanswered.delete(data?.id) && this.#unanswered.size === 0) this.#thread.unref();
      this.onmessage?.({ data });
    });
    this.#thread.on('error', (e) => this.onerror?.({ message: e?.message ?? String(e), error: e, preventDefault() {} }));
    this.#thread.on('exit', (code) => {
      if (this.#unanswered.size > 0) this.onerror?.({ message: `the engine's thread exited (code ${code})`, preventDefault() {} });
    });
  }

  postMessage(message, transfer = []) {
    if (typeof message?.id === 'number') {
      this.#unanswered.add(message.id);
      this.#thread.ref();
    }
    const needsWork = message?.kind === 'load';
    if (!needsWork && !this.#queue) {
      this.#thread.postMessage(message, transfer);
      return;
    }
    const send = async () => {
      try {
        if (!needsWork) return this.#thread.postMessage(message, transfer);
        const { args, streams } = await portableLoad(message.args);
        this.#thread.postMessage({ ...message, args }, [...transfer, ...streams]);
      } catch (e) {
        // As the worker would answer a request it could not read.
        this.#thread.emit('message', { id: message.id, ok: false, error: `load: ${e instanceof Error ? e.message : String(e)}` });
      }
    };
    const queued = (this.#queue ?? Promise.resolve()).then(send);
    this.#queue = queued;
    void queued.then(() => { if (this.#queue === queued) this.#queue = null; });
  }

  terminate() {
    this.#unanswered.clear();
    void this.#thread.terminate();
  }
}
