// Chapter 1, section "Two translators, one sentence": the shipped numbers-gru and
// numbers-transformer translate the reader's number words (model.translate, greedy); their
// alignment / cross-attention maps and the bottleneck paragraph come from the engine's
// results. The only arithmetic is the sum S + T_out of two lengths the engine returned.
// The inputs and results live in the chapter's debug state (source, gru, transformer,
// translations, layers, gruHidden), which the browser test reads.
//
// Legend: S source characters, T_out output tokens.
import type { Model } from 'transformer-playground';
import type { TranslateResult } from '../../../engine/messages';
import { el } from '../../../widgets/dom';
import { Heatmap } from '../../../widgets/heatmap';
import { textTable } from '../../../widgets/tables';
import type { TextParams } from '../../chapter';
import { liveProse, type WhyChapter } from './dom';
import type { WhyKey } from './text';

const DEFAULT_SOURCE = 'three hundred and forty-two thousand five';
const showChar = (s: string) => (s === ' ' ? '␣' : s);

export interface Translation {
  model: string;
  text: string;
  ids: number[];
  tokens: string[];
  sourceTokens: string[];
  /** (T_out, S) as the engine returned it. */
  alignment: { data: Float32Array; dims: number[] };
}

export function modelsSection(ch: WhyChapter): { run: () => Promise<void> } {
  const state = Object.assign(ch.debug.state, {
    source: DEFAULT_SOURCE,
    gru: null as Translation | null,
    transformer: null as Translation | null,
    translations: 0,
    /** Layer counts of numbers-transformer and the GRU's width, from the models' info. */
    layers: { enc: 0, dec: 0 },
    gruHidden: 0,
  });

  const models = ch.section('hModels');
  ch.prose(models, 'modelsIntro');
  const mfig = ch.figure(models, { caption: 'figModels', label: 'figModelsLabel', table: (host) => modelsTable(host) });
  const sourceField = el('div', 'field field-text');
  const sourceLabel = el('label');
  const sourceInput = el('input');
  sourceInput.type = 'text';
  sourceInput.id = 'wa-source';
  sourceInput.value = state.source;
  sourceInput.autocomplete = 'off';
  sourceInput.spellcheck = false;
  sourceInput.maxLength = 70;
  sourceInput.style.width = '100%';
  sourceLabel.htmlFor = sourceInput.id;
  const sourceHelp = el('p', 'help');
  sourceHelp.id = 'wa-source-help';
  sourceInput.setAttribute('aria-describedby', sourceHelp.id);
  sourceField.style.flex = '1 1 22rem';
  sourceField.append(sourceLabel, sourceInput, sourceHelp);
  const modelStatus = el('p', 'help');
  modelStatus.setAttribute('role', 'status');
  modelStatus.id = 'wa-model-status';
  mfig.controls.append(sourceField, modelStatus);

  function panel(titleKey: WhyKey, alignKey: WhyKey): { element: HTMLElement; title: HTMLElement; output: HTMLElement; map: Heatmap; alignKey: WhyKey; titleKey: WhyKey } {
    const p = el('div', 'wa-panel');
    p.style.minWidth = '0';
    p.style.flex = '1 1 22rem';
    const title = el('h3');
    const output = el('p', 'wa-output');
    const map = new Heatmap({ title: ch.t(alignKey), rowAxis: () => ch.t('axisOut'), colAxis: () => ch.t('axisSrc'), digits: 3, maxCell: 22 });
    p.append(title, output, map.element);
    return { element: p, title, output, map, alignKey, titleKey };
  }
  const gruPanel = panel('gruTitle', 'alignGru');
  gruPanel.element.id = 'wa-gru';
  const trPanel = panel('trTitle', 'alignTr');
  trPanel.element.id = 'wa-transformer';
  mfig.view.append(gruPanel.element, trPanel.element);
  const bottleneck = el('div', 'wa-bottleneck');
  bottleneck.setAttribute('aria-live', 'polite');
  models.append(bottleneck);
  const bottleneckProse = liveProse(ch, bottleneck, 'bottleneck', (): TextParams => {
    const g = state.gru;
    if (!g) return {};
    const S = g.sourceTokens.length, Tout = g.ids.length;
    return { S, Tout, path: S + Tout, H: state.gruHidden, Lenc: state.layers.enc, Ldec: state.layers.dec };
  });
  const link = ch.playgroundLink(models, 'openPlayground', () => ({ model: 'numbers-transformer', text: state.source, set: 'cross', view: 'matrix' }));

  function renderModelText(): void {
    sourceLabel.textContent = ch.t('source');
    sourceHelp.textContent = ch.t('sourceHelp');
    for (const [p, r] of [[gruPanel, state.gru], [trPanel, state.transformer]] as const) {
      p.title.textContent = ch.t(p.titleKey);
      p.output.textContent = r ? ch.t('output', { text: r.text }) : '';
      p.map.setTitle(ch.t(p.alignKey));
    }
    bottleneckProse.render(state.gru !== null);
  }

  function modelsTable(host: HTMLElement): void {
    const g = state.gru, t = state.transformer;
    if (!g || !t) return;
    const S = g.sourceTokens.length;
    host.replaceChildren(textTable(ch.t('tableModels', { text: state.source }),
      [ch.t('thModel'), ch.t('thOutput'), ch.t('thSourceLen'), ch.t('thSeqSteps'), ch.t('thPath')],
      [[g.model, g.text, String(S), String(S), String(S + g.ids.length)],
       [t.model, t.text, String(t.sourceTokens.length), ch.t('layers', { n: state.layers.enc }), ch.t('pathNone')]]));
  }

  async function translateWith(model: Model, name: string, text: string): Promise<Translation> {
    const [enc, r] = await Promise.all([model.tokenize(text), model.translate(text)]) as [Awaited<ReturnType<Model['tokenize']>>, TranslateResult];
    return { model: name, text: r.text, ids: Array.from(r.ids), tokens: r.tokens, sourceTokens: enc.tokens, alignment: r.alignment };
  }

  function drawMap(p: typeof gruPanel, r: Translation): void {
    const [rows, cols] = r.alignment.dims as [number, number];
    p.map.update({
      rowLabels: Array.from({ length: rows }, (_, i) => r.tokens[i] ?? String(r.ids[i])),
      colLabels: Array.from({ length: cols }, (_, j) => showChar(r.sourceTokens[j] ?? '')),
      values: r.alignment.data,
    });
  }

  let translateId = 0;
  async function translate(): Promise<void> {
    const id = ++translateId;
    const text = sourceInput.value.trim();
    if (!text) return;
    modelStatus.textContent = ch.t('translating');
    try {
      const [gm, tm] = await Promise.all([ch.model('numbers-gru'), ch.model('numbers-transformer')]);
      state.gruHidden = gm.info.recurrent?.encoder_hidden ?? 0;
      state.layers = { enc: tm.info.n_encoder_layers, dec: tm.info.n_decoder_layers };
      const [g, t] = await Promise.all([translateWith(gm, 'numbers-gru', text), translateWith(tm, 'numbers-transformer', text)]);
      if (id !== translateId) return;
      state.source = text;
      state.gru = g;
      state.transformer = t;
      state.translations++;
      drawMap(gruPanel, g);
      drawMap(trPanel, t);
      modelStatus.textContent = '';
      renderModelText();
      mfig.refreshTable();
      (link as HTMLAnchorElement & { update?: () => void }).update?.();
      ch.debug.renders++;
    } catch (e) {
      if (id === translateId) modelStatus.textContent = ch.errorText(e);
    }
  }

  let typing = 0;
  sourceInput.addEventListener('input', () => {
    window.clearTimeout(typing);
    typing = window.setTimeout(() => void translate(), 250);
  });

  ch.onLocale(renderModelText);
  renderModelText();
  return { run: translate };
}
