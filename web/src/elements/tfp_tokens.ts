// <tfp-tokens text="…">: the tokens of the text with their ids and character spans.
// selected="3" marks token 3 (numbered from 1). Pressing a token sets it and fires
// 'tfp-token-select' { detail: { index, id, token } } (index from 1).
import type { Model } from '../engine/engine';
import { looksByteLevel } from '../widgets/token_text';
import { TokenSpans } from '../widgets/token_spans';
import { passOf } from './page_engine';
import { TfpView } from './tfp_view';

export class TfpTokensElement extends TfpView {
  static observedAttributes = [...TfpView.shared, 'selected'];
  #spans = new TokenSpans(() => this.tr('el.tokens', { text: this.text }), {
    onHover: () => undefined,
    onSelect: (i) => {
      this.setAttribute('selected', String(i + 1));
      const s = this.shown as { ids: number[]; tokens: string[] } | null;
      this.dispatchEvent(new CustomEvent('tfp-token-select', { detail: { index: i + 1, id: s?.ids[i], token: s?.tokens[i] } }));
    },
  });

  protected async draw(model: Model, current: () => boolean): Promise<void> {
    if (!this.text) return this.say(this.tr('el.noText'));
    const { encoding } = await passOf(model, this.text);
    if (!current()) return;
    const byteLevel = model.info.family === 'gpt2' || looksByteLevel(encoding.tokens);
    const selected = this.intAttribute('selected', 0) - 1;
    this.paint(() => this.#spans.update({ tokens: encoding.tokens, ids: encoding.ids, offsets: encoding.offsets,
                                          special: encoding.specialMask, byteLevel },
                                        selected >= 0 && selected < encoding.tokens.length ? selected : null));
    if (this.#spans.element.parentNode !== this.body) this.body.replaceChildren(this.#spans.element);
    this.say('');
    this.shown = { ids: [...encoding.ids], tokens: [...encoding.tokens] };
  }
}
