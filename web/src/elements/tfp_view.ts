// What every view element shares: it finds its model (model="<id of a tfp-model>", else the
// page's first <tfp-model>), redraws when an attribute it observes changes or its model
// opens another checkpoint, in its own language (lang), and says in one line why it draws
// nothing (no model, no text, the engine's refusal). Subclasses draw into `body`.
//   el.shown   the numbers the view shows now (tests compare them with the engine's)
import type { Model } from '../engine/engine';
import { applyBindings, t, type MessageKey, type Params } from '../i18n/i18n';
import { elementSheet } from './element_styles';
import { elementLocale } from './locale';
import type { TfpModelElement } from './tfp_model';

const DARK = window.matchMedia('(prefers-color-scheme: dark)');

export abstract class TfpView extends HTMLElement {
  static readonly shared = ['model', 'text', 'lang', 'theme'];
  protected readonly body = document.createElement('div');
  readonly #status = document.createElement('p');
  #source: TfpModelElement | null = null;
  #queued = false;
  #generation = 0;
  /** What is drawn now, as numbers (null while nothing is). */
  shown: unknown = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [elementSheet()];
    this.body.className = 'frame';
    this.body.setAttribute('part', 'body');
    this.#status.className = 'status';
    this.#status.setAttribute('role', 'status');
    this.#status.setAttribute('part', 'status');
    root.append(this.#status, this.body);
  }

  connectedCallback(): void {
    DARK.addEventListener('change', this.#reload);  // canvases read the theme's colours
    this.schedule();
  }

  disconnectedCallback(): void {
    DARK.removeEventListener('change', this.#reload);
    this.#watch(null);
  }

  attributeChangedCallback(_name: string, before: string | null, after: string | null): void {
    if (before !== after) this.schedule();
  }

  /** The text the view reads. */
  get text(): string {
    return this.getAttribute('text') ?? '';
  }

  /** A whole-number attribute (e.g. layer="2"), or `fallback`. */
  protected intAttribute(name: string, fallback: number): number {
    const v = Number(this.getAttribute(name));
    return this.hasAttribute(name) && Number.isInteger(v) ? v : fallback;
  }

  /** Redraws once, after the attribute changes of this task. */
  protected schedule(): void {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (this.isConnected) void this.#render();
    });
  }

  protected tr(key: MessageKey, params?: Params): string {
    return elementLocale(this, () => t(key, params));
  }

  /** Runs a widget's update in the element's language (its labels are read as it draws; the
   *  fixed ones its widgets bound when they were made are rewritten in it too). */
  protected paint(fn: () => void): void {
    elementLocale(this, () => {
      fn();
      applyBindings(this.shadowRoot!);
    });
  }

  /** Says why nothing is drawn (or clears the line). */
  protected say(text: string, error = false): void {
    this.#status.textContent = text;
    this.#status.classList.toggle('error', error);
    if (text) this.shown = null;
  }

  /** Draws for `model`; `current()` turns false once a newer render has started. */
  protected abstract draw(model: Model, current: () => boolean): Promise<void>;

  #watch(source: TfpModelElement | null): void {
    if (source === this.#source) return;
    this.#source?.removeEventListener('tfp-model-load', this.#reload);
    this.#source = source;
    source?.addEventListener('tfp-model-load', this.#reload);
  }

  readonly #reload = (): void => this.schedule();

  async #render(): Promise<void> {
    const gen = ++this.#generation;
    const current = () => gen === this.#generation;
    const id = this.getAttribute('model');
    const source = (id ? document.getElementById(id) : document.querySelector('tfp-model')) as TfpModelElement | null;
    if (!source || source.localName !== 'tfp-model') {
      this.#watch(null);
      this.say(this.tr('el.noModel'), true);
      return;
    }
    this.#watch(source);
    let model: Model;
    try {
      model = await source.model;
    } catch {
      if (current()) this.say('');  // the model element says why
      return;
    }
    if (!current()) return;
    try {
      await this.draw(model, current);
    } catch (e) {
      if (current()) this.say(this.tr('el.failed', { message: e instanceof Error ? e.message : String(e) }), true);
    }
  }
}
