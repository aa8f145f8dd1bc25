// Figures 3-5: the feed-forward network and brown-pos read layer by layer.
//   3. GELU against ReLU: the curves from the engine's activation kernels
//      (engine.learn('activation') → tfp_learn_activation) on x in [−4, 4];
//   4. the picked token's feed-forward hidden activations in each layer of brown-pos,
//      recorded from the model's own forward pass (observer "enc.l.ffn.hidden");
//   5. the tagger lens: every layer's residual stream through the final norm and the
//      classifier (inspect::tagger_lens), the exercise "where is this token first tagged
//      as it ends?" and a playground link.
// 4 and 5 come from one call (engine.learn('taggerLayers') → tfp_learn_tagger_layers).
// Picking the most probable label of the engine's probabilities is a choice of what to
// show, not maths. Legend: R = L + 1 lens rows, T tokens, N labels, F hidden width.
import type { TaggerLayersResult } from '../../../engine/learn_calls/encoder';
import { LineChart } from '../../../widgets/line_chart';
import { vectorBars } from '../../../widgets/vector_bars';
import { visibleToken } from '../../../widgets/token_text';
import type { EncChapter } from './dom';
import { el } from '../../../widgets/dom';
import { fixed, listSep, pct } from '../../format';
import { numberTable } from '../../../widgets/tables';
import { streamFigure } from './stream';

const MODEL = 'brown-pos';
const XS = Float32Array.from({ length: 33 }, (_, i) => -4 + i * 0.25);

export function brownSection(ch: EncChapter): { runCurves: () => Promise<void>; run: () => Promise<void> } {
  const state = ch.debug.state;
  // ---- activation curves ----
  const s3 = ch.section('hFfn');
  ch.prose(s3, 'ffnWhat');
  let curves: Float32Array[] | null = null;
  const KINDS = [['seriesRelu', 0], ['seriesGelu', 1], ['seriesGeluTanh', 2]] as const;
  const figAct = ch.figure(s3, {
    caption: 'figActCaption', label: 'figActLabel',
    table: (host) => {
      if (!curves) return;
      const idx = Array.from(XS, (_, i) => i);
      const vals = new Float32Array(idx.length * 3);
      idx.forEach((i, r) => vals.set([curves![0]![i]!, curves![1]![i]!, curves![2]![i]!], r * 3));
      host.replaceChildren(numberTable(ch.t('actTableCaption'), Array.from(idx, (i) => fixed(XS[i]!, 2)), KINDS.map(([k]) => ch.t(k)), vals, 4));
    },
  });
  const actChart = new LineChart({ label: () => ch.t('figActLabel'), xLabel: () => ch.t('axisX'), yLabel: () => ch.t('axisY') });
  figAct.view.append(actChart.element);
  async function runCurves(): Promise<void> {
    const engine = await ch.engine();
    curves = await Promise.all(KINDS.map(([, kind]) => engine.learn('activation', { kind, x: XS })));
    actChart.update(KINDS.map(([k], j) => ({ name: () => ch.t(k), points: Array.from(XS, (x, i): [number, number] => [x, curves![j]![i]!]), dashed: j === 2 })));
    state['activation'] = { x: XS, relu: curves[0], gelu: curves[1], geluTanh: curves[2] };
    figAct.refreshTable();
    ch.debug.renders++;
  }

  // ---- brown-pos: hidden activations ----
  ch.prose(s3, 'ffnModel');
  const input = { text: 'The dogs run fast but the run was long.', token: 2 };
  let view: { tokens: string[]; ids: Int32Array; labels: string[]; r: TaggerLayersResult } | null = null;
  const figHidden = ch.figure(s3, {
    caption: 'figHiddenCaption', label: 'figHiddenLabel',
    // The strips as numbers: one row per layer, one column per hidden unit.
    table: (host) => {
      const v = view;
      if (!v) return;
      const t = Math.min(input.token, v.tokens.length - 1), F = v.r.hidden[0]!.dims[1]!;
      const vals = new Float32Array(v.r.hidden.length * F);
      v.r.hidden.forEach((h, l) => vals.set(h.data.subarray(t * F, (t + 1) * F), l * F));
      host.replaceChildren(numberTable(ch.t('figHiddenLabel'), v.r.hidden.map((_, l) => ch.t('layerN', { l: l + 1 })),
        Array.from({ length: F }, (_, f) => String(f + 1)), vals, 3));
    },
  });
  const sentence = el('textarea');
  sentence.rows = 2;
  sentence.value = input.text;
  sentence.spellcheck = false;
  sentence.addEventListener('input', () => { input.text = sentence.value; schedule(); });
  const pick = el('select');
  pick.addEventListener('change', () => { input.token = Number(pick.value); render(); refreshExercise(); });
  figHidden.controls.append(ch.field('sentenceLabel', sentence, 'enc-sentence').element, ch.field('tokenLabel', pick, 'enc-token').element);
  figHidden.controls.classList.add('enc-brown-controls');
  const hiddenBox = el('div', 'enc-hidden');
  figHidden.view.append(hiddenBox);

  function renderHidden(): void {
    const v = view;
    if (!v) return;
    const t = Math.min(input.token, v.tokens.length - 1);
    hiddenBox.replaceChildren(...v.r.hidden.map((h, l) => {
      const F = h.dims[1]!;
      const row = h.data.subarray(t * F, (t + 1) * F);
      let pos = 0, max = -Infinity, min = Infinity;
      for (const a of row) { if (a > 0) pos++; max = Math.max(max, a); min = Math.min(min, a); }
      const box = el('div', 'enc-hidden-layer');
      const p = el('p');
      p.textContent = ch.t('hiddenLayer', { l: l + 1, pos, F, max: fixed(max, 2), min: fixed(min, 2) });
      box.append(p, vectorBars(row, { label: ch.t('hiddenStrip', { tok: v.tokens[t]!, l: l + 1 }), digits: 3 }));
      return box;
    }));
  }

  // ---- the tagger lens ----
  const s4 = ch.section('hTagger');
  ch.prose(s4, 'taggerWhat');
  const figTag = ch.figure(s4, {
    caption: 'figTaggerCaption', label: 'figTaggerLabel',
    table: (host) => {
      const v = view;
      if (!v) return;
      const [R, T, N] = v.r.probs.dims as [number, number, number];
      const t = Math.min(input.token, T - 1);
      const vals = new Float32Array(R * N);
      for (let r = 0; r < R; r++) vals.set(v.r.probs.data.subarray((r * T + t) * N, (r * T + t + 1) * N), r * N);
      host.replaceChildren(numberTable(`${v.tokens[t]}`, rowNames(R), v.labels, vals, 3));
    },
  });
  const tagBox = el('div', 'enc-tags');
  figTag.view.append(tagBox);
  const rowNames = (R: number) => Array.from({ length: R }, (_, r) => (r === 0 ? ch.t('rowEmbed') : ch.t('rowLayer', { l: r }) + (r === R - 1 ? ` ${ch.t('rowOutput')}` : '')));
  /** Per row and token: the most probable label and its probability. */
  function best(r: TaggerLayersResult): { label: number; p: number }[][] {
    const [R, T, N] = r.probs.dims as [number, number, number];
    return Array.from({ length: R }, (_, row) => Array.from({ length: T }, (_, t) => {
      let k = 0;
      const base = (row * T + t) * N;
      for (let j = 1; j < N; j++) if (r.probs.data[base + j]! > r.probs.data[base + k]!) k = j;
      return { label: k, p: r.probs.data[base + k]! };
    }));
  }
  function renderTags(): void {
    const v = view;
    if (!v) return;
    const b = best(v.r);
    const table = el('table', 'enc-tag-table');
    table.createCaption().textContent = ch.t('figTaggerLabel');
    const head = table.createTHead().insertRow();
    head.append(el('th'));
    v.tokens.forEach((tok, t) => {
      const th = el('th');
      th.scope = 'col';
      th.textContent = tok;
      if (t === input.token) th.classList.add('picked');
      head.append(th);
    });
    const body = table.createTBody();
    rowNames(b.length).forEach((name, r) => {
      const tr = body.insertRow();
      const th = el('th');
      th.scope = 'row';
      th.textContent = name;
      tr.append(th);
      b[r]!.forEach((x, t) => {
        const td = tr.insertCell();
        td.dataset.label = v.labels[x.label]!;
        td.dataset.p = String(x.p);
        const changed = r > 0 && b[r - 1]![t]!.label !== x.label;
        td.className = changed ? 'changed' : '';
        if (t === input.token) td.classList.add('picked');
        const lab = el('strong');
        lab.textContent = v.labels[x.label]!;
        const pr = el('small');
        pr.textContent = ` ${pct(x.p, 0)}`;
        td.append(lab, pr);
        if (changed) td.title = ch.t('changed');
      });
    });
    tagBox.replaceChildren(table);
  }
  const stream = streamFigure(ch, s4);
  const link = ch.playgroundLink(s4, 'openPlayground', () => ({ model: MODEL, text: input.text.trim() }));

  function render(): void {
    renderHidden();
    figHidden.refreshTable();
    renderTags();
    if (view) stream.update(view.r, view.tokens, Math.min(input.token, view.tokens.length - 1));
    figTag.refreshTable();
    (link as HTMLAnchorElement & { update?: () => void }).update?.();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  let timer = 0, runId = 0;
  let pending: Promise<void> = Promise.resolve();
  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => { pending = forward(); }, 250);
  }
  function run(): Promise<void> {
    pending = forward();
    return pending;
  }
  async function forward(): Promise<void> {
    const text = input.text.trim();
    if (!text) return;
    const mine = ++runId;
    try {
      const engine = await ch.engine();
      const model = await ch.model(MODEL);
      const enc = await model.tokenize(text);
      const n = Math.min(enc.ids.length, model.info.max_positions);
      const ids = enc.ids.slice(0, n);
      const r = await engine.learn('taggerLayers', { model: model.id, ids });
      if (mine !== runId) return;
      // The label names: config.json's id2label, in the engine's model info.
      const id2label = (model.info.config['id2label'] ?? {}) as Record<string, string>;
      const N = r.probs.dims[2]!;
      const labels = Array.from({ length: N }, (_, k) => id2label[String(k)] ?? String(k));
      const tokens = Array.from(enc.tokens.slice(0, n), (t) => visibleToken(t, false));
      const prevTokens = view?.tokens.join('\u0000');
      view = { tokens, ids, labels, r };
      if (input.token >= n) input.token = 0;
      if (prevTokens !== tokens.join('\u0000')) {
        pick.replaceChildren(...tokens.map((t, i) => { const o = el('option'); o.value = String(i); o.textContent = `${i + 1}: ${t}`; return o; }));
      }
      pick.value = String(input.token);
      state['brown'] = { text, ids: Array.from(ids), tokens: enc.tokens.slice(0, n), labels, ...r, token: input.token };
      render();
      refreshExercise();
    } catch (e) {
      if (mine === runId) ch.showError(e);
    }
  }

  // The exercise: where does the picked token first get the tag it ends with?
  const ex = ch.exercise(s4, {
    id: 'first-layer-tag',
    question: 'exTagQuestion',
    questionParams: () => {
      const v = view, t = input.token;
      if (!v) return { tok: '…', i: t + 1, label: '…' };
      const b = best(v.r);
      return { tok: v.tokens[t]!, i: t + 1, label: v.labels[b[b.length - 1]![t]!.label]! };
    },
    choices: () => {
      const R = view?.r.probs.dims[0] ?? 3;
      return Array.from({ length: R }, (_, r) => (r === 0 ? ch.t('exTagChoice0') : ch.t('exTagChoiceL', { l: r })));
    },
    answer: async () => {
      await pending;
      const v = view;
      if (!v) throw new Error('brown-pos has not run yet');
      // Ask the engine again for this sentence: the answer is its numbers.
      const engine = await ch.engine();
      const model = await ch.model(MODEL);
      const r = await engine.learn('taggerLayers', { model: model.id, ids: v.ids });
      const b = best(r), t = input.token, final = b[b.length - 1]![t]!.label;
      // The first row from which the label stays the final one.
      let first = b.length - 1;
      while (first > 0 && b[first - 1]![t]!.label === final) first--;
      const names = rowNames(b.length);
      const list = b.map((row, k) => `${names[k]}: ${v.labels[row[t]!.label]} ${pct(row[t]!.p, 0)}`).join(listSep());
      state['exercise2'] = { token: t, first, final };
      const where = first === 0 ? ch.t('exTagWhere0') : ch.t('exTagWhereL', { l: first });
      return { correct: first, explanation: ch.t('exTagExplain', { tok: v.tokens[t]!, list, label: v.labels[final]!, where }) };
    },
  });
  function refreshExercise(): void {
    ex.refresh();
  }
  return { runCurves, run };
}
