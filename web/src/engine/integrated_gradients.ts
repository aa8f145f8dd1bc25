// Gradient attribution as the page calls it (Model.gradientAttribution): gradient × input
// and the gradient's norm in one request (tfp_model_gradient_attribution with no steps),
// then integrated gradients' midpoints a range at a time (tfp_model_integrated_gradients),
// so a long run reports progress and stops between two ranges. The ranges add up to the
// engine's one-call integrated gradients (the midpoint rule is a sum over steps).
import type { GradientAttributionArgs, GradientAttributionResult, IntegratedGradientsArgs, Reply } from './messages';

/** The two requests this module sends (Model.request narrowed to them). */
type GradientRequest = (body: { kind: 'gradient-attribution'; model: number; args: GradientAttributionArgs }
                             | { kind: 'integrated-gradients'; model: number; args: IntegratedGradientsArgs }) => Promise<Reply>;

export interface GradientProgress {
  /** Integrated gradients' steps done and in all. */
  done: number;
  total: number;
}

export interface GradientRunOptions {
  /** Called after each range of steps. */
  onProgress?: (p: GradientProgress) => void;
  /** Aborting stops the run between two ranges; the promise rejects with the reason. */
  signal?: AbortSignal;
}

/** Steps per request: a forward and a backward pass each. */
const STEPS_PER_REQUEST = 4;

export async function gradientAttributionInSteps(request: GradientRequest, model: number, args: GradientAttributionArgs,
                                                 o: GradientRunOptions = {}): Promise<GradientAttributionResult> {
  o.signal?.throwIfAborted();
  const first = await request({ kind: 'gradient-attribution', model, args: { ...args, steps: 0 } });
  if (!(first.ok && first.kind === 'gradient-attribution')) throw new Error('engine: unexpected reply to gradientAttribution');
  const g = first.result;
  if (args.steps === 0) return g;
  const T = args.ids.length, sum = new Float64Array(T);
  let baseline: number | null = null, workerMs = g.workerMs;
  for (let done = 0; done < args.steps;) {
    o.signal?.throwIfAborted();
    const count = Math.min(STEPS_PER_REQUEST, args.steps - done);
    const r = await request({ kind: 'integrated-gradients', model, args: { ...args, first: done, count } });
    if (!(r.ok && r.kind === 'integrated-gradients')) throw new Error('engine: unexpected reply to gradientAttribution');
    r.result.integrated.forEach((v, t) => { sum[t]! += v; });
    baseline = r.result.baseline ?? baseline;
    workerMs += r.result.workerMs;
    done += count;
    o.onProgress?.({ done, total: args.steps });
  }
  const integrated = Float32Array.from(sum);
  const integratedSum = sum.reduce((a, v) => a + v, 0);
  return { ...g, baseline: baseline!, integrated, integratedSum, completenessGap: integratedSum - (g.metric - baseline!), steps: args.steps, workerMs };
}
