// The precision switch beside the model picker (issue 14): the current model opened again
// with its matrices held in f32, f16 or int8 (tfp_model_files_set_precision, model/precision.h),
// and what that costs and saves: the weights' bytes as held (the engine's info) and the last
// forward pass's time in the worker. The first load of a model is as its file stores it; the
// switch then shows what that is.
import { t } from '../../i18n/i18n';
import type { Model } from 'transformer-playground';
import { PRECISIONS, type Precision } from './state';

const megabytes = (bytes: number): string =>
  bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;

export class PrecisionSwitch {
  readonly element = document.createElement('div');
  private readonly select = document.createElement('select');
  private readonly line = document.createElement('p');
  private readonly help = document.createElement('p');
  private info: Model['info'] | null = null;
  private forward: { ms: number; tokens: number } | null = null;

  /** pick: the reader chose a precision (the page keeps it in its state and URL and opens
   *  the model again in it). */
  constructor(private readonly pick: (p: Precision) => void) {
    this.element.className = 'field precision-switch';
    const label = document.createElement('label');
    label.htmlFor = this.select.id = 'precision-select';
    label.dataset.i18n = 'play.precision';
    for (const p of PRECISIONS) this.select.add(new Option(p, p));
    this.select.disabled = true;
    this.line.id = 'precision-info';
    this.line.className = 'help';
    this.line.setAttribute('aria-live', 'polite');
    this.help.className = 'help';
    this.help.dataset.i18n = 'play.precisionHelp';
    this.select.setAttribute('aria-describedby', 'precision-info');
    this.element.append(label, this.select, this.line, this.help);
    this.select.addEventListener('change', () => this.pick(this.select.value as Precision));
    this.text();
  }

  /** A model was loaded (null: none). */
  setModel(info: Model['info'] | null): void {
    this.info = info;
    this.forward = null;
    // A GRU model or a checkpoint of mixed precisions: nothing to switch between.
    const held = info?.precision;
    const switchable = !!info && !info.recurrent && !!held && held !== 'mixed';
    this.select.disabled = !switchable;
    if (held && (PRECISIONS as readonly string[]).includes(held)) this.select.value = held;
    else if (held === 'bf16') this.select.value = 'f16';
    this.text();
  }

  noteForward(ms: number, tokens: number): void {
    this.forward = { ms, tokens };
    this.text();
  }

  /** Redraws the line in the page's language. */
  text(): void {
    const i = this.info;
    this.line.hidden = !i?.weights_bytes;
    if (!i?.weights_bytes) return;
    this.line.textContent = t('play.precisionInfo', { size: megabytes(i.weights_bytes), precision: i.precision ?? '' })
      + (this.forward ? t('play.precisionSpeed', { ms: this.forward.ms.toFixed(1), count: this.forward.tokens }) : '');
  }
}
