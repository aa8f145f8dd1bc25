// A Node worker thread dressed as the Web Worker that engine.ts drives (postMessage,
// onmessage, onerror, terminate). It holds the process open only while a request is
// unanswered, so a script ends when its last await does, without engine.terminate().
import { Worker } from 'node:worker_threads';

export class ThreadWorker {
  onmessage = null;
  onerror = null;
  #thread;
  #unanswered = new Set();

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
    this.#thread.postMessage(message, transfer);
  }

  terminate() {
    this.#unanswered.clear();
    void this.#thread.terminate();
  }
}
