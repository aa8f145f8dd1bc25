// One engine for every element of a page, started by the first element that needs it, and
// one forward pass per (model, text) however many views show it.
import { Engine, decoderStartId, type ForwardResult, type Model, type TokenizeResult } from '../engine/engine';

let engine: Promise<Engine> | null = null;

/** The page's engine (started once). A page that also calls the engine itself can use it. */
export function pageEngine(): Promise<Engine> {
  engine ??= Engine.create();
  return engine;
}

export interface Pass {
  encoding: TokenizeResult;
  forward: ForwardResult;
  /** Encoder–decoders: the decoder's input (the start mark, then the model's translation of
   *  the text), whose rows the decoder's and cross-attention maps have. */
  decoderTokens?: string[];
  /** Their ids (the decoder input the forward pass was given). */
  tgtIds?: Int32Array;
}

const passes = new WeakMap<Model, Map<string, Promise<Pass>>>();
const KEPT = 8;

/** The tokens of `text` and the forward pass over them with every attention map and the
 *  next token's `topN` candidates (a language model's), shared by the views that ask. */
export function passOf(model: Model, text: string, topN = 10): Promise<Pass> {
  let byText = passes.get(model);
  if (!byText) passes.set(model, (byText = new Map()));
  const key = `${topN}\u0000${text}`;
  let pass = byText.get(key);
  if (!pass) {
    pass = (async () => {
      const encoding = await model.tokenize(text);
      const info = model.info;
      if (info.architecture === 'encoder_decoder') {
        // Teacher-forced on the model's own translation, as the playground shows it.
        const out = await model.translate(encoding.ids);
        const tgtIds = Int32Array.from([decoderStartId(info), ...out.ids]);
        const forward = await model.forward(encoding.ids, { attention: true, logits: 'none', tgtIds });
        return { encoding, forward, decoderTokens: ['⟨start⟩', ...out.tokens], tgtIds };
      }
      const lm = info.head === 'lm' && info.architecture === 'decoder_only';
      const forward = await model.forward(encoding.ids, { attention: true, logits: 'none', ...(lm ? { next: { topN } } : {}) });
      return { encoding, forward };
    })();
    pass.catch(() => byText!.delete(key));
    byText.set(key, pass);
    if (byText.size > KEPT) byText.delete(byText.keys().next().value!);
  }
  return pass;
}
