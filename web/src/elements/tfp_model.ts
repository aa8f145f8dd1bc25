// <tfp-model src="brown-gpt" id="m">: a model for the views of the page. src is a shipped
// model's name, a folder URL, or a Hugging Face Hub name ("hf:owner/name@revision");
// precision="f32|f16|int8" holds the matrices so (narrowed as they load); hub="https://…" is the
// Hub's address for an hf: name (a mirror with the same layout; default huggingface.co). Changing src opens the new model
// (the old one stays until the new one has opened). It shows one line of status.
//   el.model            the current load: a Promise<Model>
//   'tfp-model-load'    { detail: { info } } once a model has opened
//   'tfp-model-error'   { detail: { message } } when it could not
import type { Model } from '../engine/engine';
import { t } from '../i18n/i18n';
import { elementSheet } from './element_styles';
import { elementLocale } from './locale';
import { modelSource } from './model_sources';
import { pageEngine } from './page_engine';

const PRECISIONS = ['f32', 'f16', 'int8'] as const;

export class TfpModelElement extends HTMLElement {
  static observedAttributes = ['src', 'precision', 'hub', 'lang'];
  #load: Promise<Model> | null = null;
  #current: Model | null = null;
  #asked = '';
  readonly #status = document.createElement('p');

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [elementSheet()];
    this.#status.className = 'status';
    this.#status.setAttribute('part', 'status');
    this.#status.setAttribute('role', 'status');
    root.append(this.#status);
  }

  /** The model of the latest src (rejects if it could not be opened). */
  get model(): Promise<Model> {
    return this.#load ?? this.open();
  }

  connectedCallback(): void {
    void this.model.catch(() => undefined);
  }

  attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    if (before === after || !this.isConnected) return;
    if (name === 'lang') return this.#say(this.#current ? this.#loaded(this.#current) : this.#status.textContent ?? '');
    void this.open().catch(() => undefined);
  }

  /** Opens the model the attributes name now. */
  open(): Promise<Model> {
    const src = this.getAttribute('src')?.trim() ?? '';
    const precision = PRECISIONS.find((p) => p === this.getAttribute('precision'));
    const hub = this.getAttribute('hub')?.trim() || undefined;
    const asked = `${src}|${precision ?? ''}|${hub ?? ''}`;
    if (this.#load && asked === this.#asked) return this.#load;
    this.#asked = asked;
    const load = (async () => {
      if (!src) throw new Error('no src attribute');
      this.#say(this.#t('el.loading', { name: src }));
      const engine = await pageEngine();
      return engine.load(modelSource(src), {
        ...(precision ? { precision } : {}),
        ...(hub ? { hub } : {}),
        onProgress: (p) => {
          if (p.total > 0 && load === this.#load) this.#say(this.#t('el.loadingBytes', { name: src, percent: Math.floor((100 * p.bytes) / p.total) }));
        },
      });
    })();
    this.#load = load;
    load.then((model) => {
      if (load !== this.#load) return void model.dispose();
      const old = this.#current;
      this.#current = model;
      if (old && old !== model) void old.dispose();
      this.#say(this.#loaded(model));
      this.dispatchEvent(new CustomEvent('tfp-model-load', { detail: { info: model.info } }));
    }, (e: unknown) => {
      if (load !== this.#load) return;
      const message = e instanceof Error ? e.message : String(e);
      this.#say(this.#t('el.loadFailed', { name: src || '?', message }), true);
      this.dispatchEvent(new CustomEvent('tfp-model-error', { detail: { message } }));
    });
    return load;
  }

  #loaded(model: Model): string {
    const i = model.info;
    const layers = Math.max(i.n_encoder_layers, i.n_decoder_layers);
    return this.#t('el.loaded', { name: this.getAttribute('src') ?? '', family: i.family,
                                  layers: this.#t('play.layers', { count: layers }), heads: this.#t('play.heads', { count: i.n_heads }) });
  }

  #t(...args: Parameters<typeof t>): string {
    return elementLocale(this, () => t(...args));
  }

  #say(text: string, error = false): void {
    this.#status.textContent = text;
    this.#status.classList.toggle('error', error);
  }
}
