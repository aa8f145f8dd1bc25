// A qualitative predict-then-check on temperature: the reader's scores and mask at τ = 1
// and at τ = 4 — does the row get flatter or sharper, and can the largest key change?
// The engine computes both rows (softmaxRow) and their entropies (head statistics);
// the page only compares the two entropies and the two argmaxes.
import type { Engine } from 'transformer-playground';
import type { Chapter, Exercise } from '../../chapter';
import { entropies } from './entropy';
import type { TEXT } from './text';

type Key = keyof (typeof TEXT)['en'];
const TAU_HIGH = 4;
const CHOICES: Key[] = ['exTauFlatSame', 'exTauFlatOther', 'exTauSharper', 'exTauNothing'];

export function sharpnessExercise(ch: Chapter<Key>, host: HTMLElement, engine: () => Promise<Engine>,
                                  inputs: () => { scores: number[]; masked: number[] }): Exercise {
  const fmt = (x: number) => x.toFixed(3);
  return ch.exercise(host, {
    id: 'temperature-sharpness',
    question: 'exTauQuestion',
    questionParams: () => ({ scores: inputs().scores.map((s) => String(s).replace('-', '−')).join(', '), tau: TAU_HIGH }),
    choices: () => CHOICES.map((k) => ch.t(k)),
    answer: async () => {
      const e = await engine();
      const { scores, masked } = inputs();
      const row = (temperature: number) => e.learn('softmaxRow', { scores: Float32Array.from(scores), temperature,
                                                                   masked: Uint8Array.from(masked) });
      const [one, high] = await Promise.all([row(1), row(TAU_HIGH)]);
      if (one.argmax < 0) throw new Error(ch.t('exTauAllMasked'));
      const [h1, h4] = await entropies(e, [Array.from(one.probs), Array.from(high.probs)]);
      // Equal within float32's rounding of the weights: the row did not change (all open scores equal).
      const same = Math.abs(h4! - h1!) < 1e-6;
      const correct = same ? 3 : h4! > h1! ? (high.argmax === one.argmax ? 0 : 1) : 2;
      ch.debug.state.sharpness = { h1, h4, argmax1: one.argmax, argmax4: high.argmax, p1: one.maxProb, p4: high.maxProb, correct };
      return { correct, explanation: ch.t(same ? 'exTauExplainSame' : 'exTauExplain', {
        h1: fmt(h1!), h4: fmt(h4!), p1: fmt(one.maxProb), p4: fmt(high.maxProb), key: one.argmax + 1, tau: TAU_HIGH }) };
    },
  });
}
