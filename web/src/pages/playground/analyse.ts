// The Analyse view (issue 33): what causes an output, on the model on show. One select
// picks the analysis: the logit lens (logit_lens.ts: the residual stream after every
// layer read through the final norm and the LM head) or what the patching view draws
// (patching.ts: activation patching sweeps, direct logit attribution, head ablation,
// gradient attribution), all in TransformerLens's conventions. The select stays put
// across renders (its focus and the reader's place with it); this file switches what
// is under it.
import { t as tr, type MessageKey } from '../../i18n/i18n';
import { matricesSvg } from '../../widgets/matrix_svg';
import { LogitLensView, type LensData } from './logit_lens';
import { PatchingView, SWEEP_LABELS, type PatchingSource } from './patching';
import { ANALYSE_KINDS, type AnalyseKind, type PlayState } from './state';

/** What the view drew, for the page's tests (window.tfpPlay.shown) and its PNG/SVG export. */
export interface AnalyseShown {
  note?: string;
  panels: Record<string, { dims: number[]; data: Float32Array }>;
  svg: () => SVGSVGElement | null;
}

const KIND_LABELS: Record<AnalyseKind, MessageKey> = { lens: 'play.analyse.lens', ...SWEEP_LABELS };

export class AnalyseView {
  readonly element = document.createElement('div');
  private readonly kind = document.createElement('select');
  private readonly kindLabel = document.createElement('span');
  private readonly slot = document.createElement('div');
  private readonly lensView = new LogitLensView();
  private readonly patchView: PatchingView;

  constructor(private readonly change: (p: Partial<PlayState>) => void) {
    this.patchView = new PatchingView(change);
    this.element.className = 'analyse';
    this.kind.className = 'patch-sweep analyse-kind';
    for (const k of ANALYSE_KINDS) this.kind.append(new Option(k, k));
    this.kind.addEventListener('change', () => this.change({ patchSweep: this.kind.value as AnalyseKind }));
    const label = document.createElement('label');
    label.className = 'analyse-pick';
    label.append(this.kindLabel, ' ', this.kind);
    this.element.append(label, this.slot);
  }

  redraw(): void {
    this.patchView.redraw();
  }

  /** Shows the analysis the state asks for; resolves with what was drawn, or null when a
   *  newer render took over (`current` false). lens and patching are the page's (main.ts):
   *  null before a model is on show, a message where this model has none. */
  async show(s: PlayState, lens: (() => Promise<LensData | MessageKey>) | null, patching: PatchingSource | MessageKey | null,
             current: () => boolean): Promise<AnalyseShown | null> {
    // The labels follow the page's language; the options themselves never change.
    this.kindLabel.textContent = tr('play.analyse.kind');
    for (const o of this.kind.options) o.textContent = tr(KIND_LABELS[o.value as AnalyseKind]);
    this.kind.value = s.patchSweep;
    const none = { panels: {}, svg: () => null };
    if (s.patchSweep === 'lens') {
      if (!lens) return { ...none, note: 'no lens' };
      this.note(tr('play.lens.computing'));
      let d: LensData | MessageKey;
      try {
        d = await lens();
      } catch (e) {
        if (!current()) return null;
        this.note(tr('play.lens.refused', { message: e instanceof Error ? e.message : String(e) }));
        return { ...none, note: 'error' };
      }
      if (!current()) return null;
      if (typeof d === 'string') {
        this.note(tr(d));
        return { ...none, note: 'no lens' };
      }
      this.lensView.update(d);
      this.mount(this.lensView.element);
      return { panels: { 'lens.ids': d.result.ids, 'lens.probs': d.result.probs }, svg: () => this.lensView.svg() };
    }
    if (!patching) return { ...none, note: 'no patching' };
    if (typeof patching === 'string') {
      this.note(tr(patching));
      return { ...none, note: 'no patching' };
    }
    this.mount(this.patchView.element);
    let r;
    try {
      r = await this.patchView.show(patching, { ...s, patchSweep: s.patchSweep }, current);
    } catch (e) {
      if (!current()) return null;
      this.note(tr('play.patch.refused', { message: e instanceof Error ? e.message : String(e) }));
      return { ...none, note: 'error' };
    }
    if (!r) return null;
    const panel = this.patchView.svg;
    return { ...r, svg: () => (panel ? matricesSvg([panel], 1, { cell: 18, labels: true, colormap: 'rdbu' }) : null) };
  }

  /** Puts `node` under the select unless it is there (re-inserting it would relayout it). */
  private mount(node: Node): void {
    if (this.slot.childNodes.length !== 1 || this.slot.firstChild !== node) this.slot.replaceChildren(node);
  }

  private note(text: string): void {
    const p = document.createElement('p');
    p.className = 'view-note';
    p.textContent = text;
    this.slot.replaceChildren(p);
  }
}
