// <tfp-next text="…" top="10">: a language model's most probable next tokens after the
// text, with their probabilities (temperature 1) and ids.
import type { Model } from '../engine/engine';
import { looksByteLevel, visibleToken } from '../widgets/token_text';
import { ProbBars } from '../widgets/prob_bars';
import { passOf } from './page_engine';
import { TfpView } from './tfp_view';

export class TfpNextElement extends TfpView {
  static observedAttributes = [...TfpView.shared, 'top'];
  #bars = new ProbBars(() => this.tr('el.next'));

  protected async draw(model: Model, current: () => boolean): Promise<void> {
    if (!this.text) return this.say(this.tr('el.noText'));
    if (model.info.head !== 'lm' || model.info.architecture !== 'decoder_only') return this.say(this.tr('el.noHead'));
    const top = Math.min(50, Math.max(1, this.intAttribute('top', 10)));
    const { encoding, forward } = await passOf(model, this.text, top);
    if (!current()) return;
    const next = forward.next ?? [];
    const byteLevel = model.info.family === 'gpt2' || looksByteLevel(encoding.tokens);
    this.paint(() => this.#bars.update(next.map((c) => ({ label: visibleToken(c.token, byteLevel), value: c.prob, note: `#${c.id}` }))));
    if (this.#bars.element.parentNode !== this.body) this.body.replaceChildren(this.#bars.element);
    this.say('');
    this.shown = { next: next.map((c) => ({ id: c.id, token: c.token, prob: c.prob })) };
  }
}
