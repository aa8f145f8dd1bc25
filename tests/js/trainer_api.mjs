// The trainer side of the C API (tfp_trainer_*), called from Node the way the training
// page's worker will call it. Shared by tests/js/trainer_wasm.test.mjs and
// bench/trainer_wasm.mjs.
import { Api } from './tfp_module.mjs';

/** The trainer calls the page's worker makes; heap views are made at each use. */
export class TrainerApi extends Api {
  create(task, options, seed) {
    const t = this.cstr(task), o = this.cstr(JSON.stringify(options)), slot = this.m._tfp_alloc(4);
    try {
      const bytes = new TextEncoder().encode(JSON.stringify(options)).length;
      this.check(this.m._tfp_trainer_create(t, o, bytes, seed >>> 0, slot));
      return this.u32(slot);
    } finally {
      [t, o, slot].forEach((p) => this.m._tfp_free(p));
    }
  }
  step(trainer, n) {
    const p = this.m._tfp_alloc(8 * n);
    try {
      this.check(this.m._tfp_trainer_step(trainer, n, p));
      return Array.from(new Float64Array(this.m.HEAPU8.buffer, p, n));
    } finally {
      this.m._tfp_free(p);
    }
  }
  evaluate(trainer) {
    const p = this.m._tfp_alloc(24);
    try {
      this.check(this.m._tfp_trainer_evaluate(trainer, p, p + 8, p + 16));
      const [sequence, token, loss] = new Float64Array(this.m.HEAPU8.buffer, p, 3);
      return { sequence, token, loss };
    } finally {
      this.m._tfp_free(p);
    }
  }
  info(trainer) {
    return JSON.parse(this.m.UTF8ToString(this.m._tfp_trainer_info_json(trainer)));
  }
  createStatus(task, optionsText) {
    const t = this.cstr(task), o = this.cstr(optionsText), slot = this.m._tfp_alloc(4);
    try {
      return this.m._tfp_trainer_create(t, o, new TextEncoder().encode(optionsText).length, 1, slot);
    } finally {
      [t, o, slot].forEach((p) => this.m._tfp_free(p));
    }
  }
}
