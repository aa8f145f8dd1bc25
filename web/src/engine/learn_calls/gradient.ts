// The worker's side of src/api/tfp_learn_gradient_api.h (Learn chapter "Why attention"):
// a gradient passed back through T recurrent steps. Marshalling only: the engine runs
// the cell, passes the gradient back and measures it; the two columns come back.
//
// Legend: T steps, H state width, k steps back (0 = the last state h_T).
import type { TfpModule } from '../wasm/tfp.mjs';
import type { Calls } from '../calls';

/** tfp_learn_recurrent_cell. */
export const RECURRENT_CELLS = { linear: 0, tanh: 1, gru: 2 } as const;
export type RecurrentCell = keyof typeof RECURRENT_CELLS;

export interface GradientStepsArgs {
  cell: RecurrentCell;
  H: number;           // state width, 1..256
  T: number;           // steps, 1..256
  gain: number;        // W_hh = gain·Q (Q orthogonal), 0..3
  updateBias: number;  // added to the GRU's update-gate bias; 0 for the other cells
  seed: number;
}

export interface GradientSteps {
  /** (T) ‖∂L/∂h_{T−k}‖ for k = 0 … T−1, L = u·h_T (norms[0] = 1). */
  norms: Float64Array;
  /** (T) at step T−k, the mean over units of the factor the gradient meets there:
   *  1 − h² (tanh), the update gate z (GRU), 1 (linear). */
  gates: Float64Array;
}

export function gradientSteps(c: Calls, m: TfpModule, a: GradientStepsArgs): GradientSteps {
  const T = a.T;
  return c.withBuffer(2 * T * 8, (out) => {
    // out comes from tfp_alloc, aligned for doubles: norms, then gates.
    c.check(m._tfp_learn_gradient_steps(RECURRENT_CELLS[a.cell], a.H, T, a.gain, a.updateBias, a.seed >>> 0, out, out + T * 8));
    const v = new Float64Array(m.HEAPU8.buffer, out, 2 * T);
    return { norms: v.slice(0, T), gates: v.slice(T, 2 * T) };
  });
}
