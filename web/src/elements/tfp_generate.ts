// <tfp-generate text="The prompt" max-tokens="20" temperature="1" seed="0" top-k="0">:
// a language model's continuation of the text, token by token as the engine produces it,
// with a Generate / Stop button. autostart: it runs once the model is open (and again
// when an attribute changes). Fires 'tfp-generated' { detail: { ids, text } } at the end.
import type { GeneratedToken, Model } from '../engine/engine';
import { TfpView } from './tfp_view';

export class TfpGenerateElement extends TfpView {
  static observedAttributes = [...TfpView.shared, 'max-tokens', 'temperature', 'seed', 'top-k', 'top-p', 'autostart'];
  readonly #button = document.createElement('button');
  readonly #output = document.createElement('p');
  readonly #prompt = document.createElement('span');
  readonly #added = document.createElement('span');
  #model: Model | null = null;
  #stop: AbortController | null = null;

  constructor() {
    super();
    this.#button.type = 'button';
    this.#button.className = 'primary';
    this.#button.setAttribute('part', 'button');
    this.#button.addEventListener('click', () => (this.#stop ? this.stop() : void this.run()));
    this.#output.className = 'gen-output';
    this.#output.setAttribute('aria-live', 'polite');
    this.#prompt.className = 'gen-prompt';
    this.#added.className = 'gen-new';
    this.#output.append(this.#prompt, this.#added);
  }

  protected async draw(model: Model): Promise<void> {
    this.#model = model;
    this.stop();
    this.#output.setAttribute('aria-label', this.tr('el.generated'));
    this.#button.textContent = this.tr('el.generate');
    if (this.body.firstChild !== this.#button) this.body.replaceChildren(this.#button, this.#output);
    if (model.info.head !== 'lm' || model.info.architecture !== 'decoder_only') {
      this.#button.disabled = true;
      return this.say(this.tr('el.noHead'));
    }
    this.#button.disabled = false;
    this.say('');
    this.#prompt.textContent = this.text;
    this.#added.textContent = '';
    if (this.hasAttribute('autostart')) await this.run();
  }

  /** Generates from the text (stopping a generation under way first). */
  async run(): Promise<void> {
    const model = this.#model;
    if (!model) return;
    this.stop();
    const stop = new AbortController();
    this.#stop = stop;
    this.#button.textContent = this.tr('el.stop');
    this.#prompt.textContent = this.text;
    this.#added.textContent = '';
    const num = (name: string, fallback: number) => {
      const v = Number(this.getAttribute(name));
      return this.hasAttribute(name) && Number.isFinite(v) ? v : fallback;
    };
    const tokens: GeneratedToken[] = [];
    try {
      for await (const tok of model.generate(this.text, { maxTokens: num('max-tokens', 20), temperature: num('temperature', 1),
                                                         seed: num('seed', 0), topK: num('top-k', 0), topP: num('top-p', 1),
                                                         signal: stop.signal })) {
        if (stop.signal.aborted) break;
        tokens.push(tok);
        this.#added.textContent += tok.text;
        this.shown = { ids: tokens.map((x) => x.id), text: this.#added.textContent, done: false };
      }
      if (this.#stop !== stop) return;
      this.shown = { ids: tokens.map((x) => x.id), text: this.#added.textContent, done: true };
      this.dispatchEvent(new CustomEvent('tfp-generated', { detail: { ids: tokens.map((x) => x.id), text: this.#added.textContent } }));
    } catch (e) {
      if (this.#stop === stop) this.say(this.tr('el.failed', { message: e instanceof Error ? e.message : String(e) }), true);
    } finally {
      if (this.#stop === stop) {
        this.#stop = null;
        this.#button.textContent = this.tr('el.generate');
      }
    }
  }

  /** Stops a generation under way (the text so far stays). */
  stop(): void {
    this.#stop?.abort();
    this.#stop = null;
    this.#button.textContent = this.tr('el.generate');
  }
}
