// Chapter "Generating text", sections 2 and 3: the KV cache. Its size for brown-gpt at the
// reader's context and at the whole window (engine.learn('kvCacheSize') →
// tfp_learn_kv_cache_size → model::kv_cache_bytes, from the model's config), the exercise
// "how many bytes at 128 positions", and generation timed with and without the cache over
// lengths (engine.learn('generationTiming') → tfp_learn_generation_timing: model::generate
// against model::generate_without_cache, same prompt, controls and seed), drawn as a line
// chart with a table; the mistake box "the KV cache changes the output" shows both runs'
// tokens.
import type { GenerationTimingResult, KvCacheSizeResult } from '../../../engine/learn_calls/generation';
import { LineChart } from '../../../widgets/line_chart';
import { proseHtml } from '../../maths';
import { el } from '../../../widgets/dom';
import { num, texNum } from '../../format';
import { MODEL, table, type GenChapter } from './dom';
import type { Controls, GenerationView } from './steps';

const LENGTHS = [8, 16, 32, 64];

export function cacheSection(ch: GenChapter, current: () => GenerationView | null): {
  size: (v: GenerationView) => Promise<void>; time: () => Promise<void>;
} {
  const state = ch.debug.state;
  let sizes: { context: KvCacheSizeResult; full: KvCacheSizeResult } | null = null;

  // ---- section 2: what the cache holds, and its size ---------------------------------
  const s2 = ch.section('hCache');
  ch.prose(s2, 'cacheIntro');
  const fig = ch.figure(s2, { caption: 'figCache', label: 'figCacheLabel', table: (host) => host.replaceChildren(sizeTable()) });
  const formulaBox = el('div');
  const tableBox = el('div', 'gen-table-box');
  fig.view.append(formulaBox, tableBox);
  fig.view.classList.add('gen-cache-view');
  const f = ch.formula(formulaBox, () => {
    const line = (r: KvCacheSizeResult | undefined) => (r
      ? String.raw`&= ${r.layers} \cdot 2 \cdot ${r.positions} \cdot ${r.kvWidth} \cdot 4 = ${texNum(r.bytes)}`
      : String.raw`&= ?`);
    return String.raw`\begin{aligned}
\text{bytes} &= L \cdot 2 \cdot n \cdot (H_{kv} d_k) \cdot 4 \\
${line(sizes?.context)} \\
${line(sizes?.full)}
\end{aligned}`;
  });

  function sizeTable(): HTMLTableElement {
    const rows = sizes ? [
      [ch.t('cacheRowContext', { n: sizes.context.positions }), num(sizes.context.bytes), num(sizes.context.bytes / 1024, 1)],
      [ch.t('cacheRowFull', { n: sizes.full.positions }), num(sizes.full.bytes), num(sizes.full.bytes / 1024, 1)],
    ] : [];
    return table(ch.t('figCacheLabel'), [ch.t('cacheWhat'), ch.t('cacheBytes'), ch.t('cacheKib')], rows);
  }

  function renderSize(): void {
    tableBox.replaceChildren(sizeTable());
    f.update();
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(renderSize);

  let sizeRun = 0;
  async function size(v: GenerationView): Promise<void> {
    const mine = ++sizeRun;
    try {
      const engine = await ch.engine();
      const model = await ch.model(MODEL);
      const max = model.info.max_positions;
      const positions = Math.min(max, v.promptIds.length + v.tokens.length);
      const [context, full] = await Promise.all([
        engine.learn('kvCacheSize', { model: model.id, positions }),
        engine.learn('kvCacheSize', { model: model.id, positions: max }),
      ]);
      if (mine !== sizeRun) return;
      sizes = { context, full };
      state['cache'] = { context, full };
      renderSize();
    } catch (e) {
      if (mine === sizeRun) ch.showError(e);
    }
  }

  // Exercise: the bytes at 128 positions, answered by the engine.
  const CHOICES = [262144, 524288, 786432, 2097152];
  ch.exercise(s2, {
    id: 'cache-bytes',
    question: 'exBytesQuestion',
    choices: () => CHOICES.map((b) => `${num(b)} B (${num(b / 1024)} KiB)`),
    answer: async () => {
      const engine = await ch.engine();
      const model = await ch.model(MODEL);
      const r = await engine.learn('kvCacheSize', { model: model.id, positions: 128 });
      state['bytesExercise'] = r;
      return {
        correct: CHOICES.indexOf(r.bytes),
        explanation: ch.t('exBytesExplain', { layers: r.layers, positions: r.positions, width: r.kvWidth, bytes: num(r.bytes), kib: num(r.bytes / 1024) }),
      };
    },
  });

  // ---- section 3: timed with and without ---------------------------------------------
  const s3 = ch.section('hTiming');
  ch.prose(s3, 'timingIntro');
  let timing: { result: GenerationTimingResult; controls: Controls; prompt: string; promptIds: number[] } | null = null;
  const tfig = ch.figure(s3, { caption: 'figTiming', label: 'figTimingLabel', table: (host) => host.replaceChildren(timingTable()) });
  const againB = ch.button('timeAgain');
  againB.addEventListener('click', () => void time());
  const status = el('p', 'gen-status');
  status.setAttribute('aria-live', 'polite');
  let measuring = false;
  const renderStatus = () => { status.textContent = measuring ? ch.t('measuring') : ''; };
  ch.onLocale(renderStatus);
  tfig.controls.append(againB, status);
  const chart = new LineChart({
    label: () => ch.t('figTimingLabel'), xLabel: () => ch.t('xTokens'), yLabel: () => ch.t('yMs'), xLog: true, yLog: true,
  });
  const measuredFor = el('p', 'gen-measured');
  const summary = el('p', 'gen-summary');
  const timingBox = el('div', 'gen-table-box');
  tfig.view.append(measuredFor, chart.element, summary, timingBox);
  tfig.view.classList.add('gen-timing-view');

  function timingTable(): HTMLTableElement {
    const rows = timing?.result.rows.map((r) => [r.length, num(r.msWith, 2), num(r.msWithout, 2), num(r.msWithout / r.msWith, 1),
                                                 ch.t(r.same ? 'yes' : 'no')]) ?? [];
    return table(ch.t('figTimingLabel'), [ch.t('colTokens'), ch.t('colWith'), ch.t('colWithout'), ch.t('colRatio'), ch.t('colSame')], rows);
  }

  // Mistake: "the KV cache changes the output" — both runs' tokens.
  const demo = el('div', 'gen-both');
  const mistake = ch.mistake(s3, { title: 'mCacheTitle', body: 'mCacheBody', bodyParams: () => ({ n: timing?.result.idsWith.length ?? 0 }),
                                   demo: (host) => host.append(demo) });
  let texts: { with: string; without: string } | null = null;

  function renderTiming(): void {
    const t = timing;
    if (!t) return;
    const rows = t.result.rows;
    chart.update([
      { name: () => ch.t('seriesWith'), points: rows.map((r) => [r.length, r.msWith]) },
      { name: () => ch.t('seriesWithout'), points: rows.map((r) => [r.length, r.msWithout]) },
    ]);
    const o = t.controls;
    measuredFor.textContent = `“${t.prompt}” · τ = ${o.temperature} · k = ${o.topK} · p = ${o.topP} · seed ${o.seed}`;
    const last = rows[rows.length - 1]!;
    summary.textContent = ch.t('timingSummary', { n: last.length, with: num(last.msWith, 1), without: num(last.msWithout, 1),
                                                  ratio: num(last.msWithout / last.msWith, 1) });
    timingBox.replaceChildren(timingTable());
    if (texts) {
      const col = (key: 'mCacheWith' | 'mCacheWithout', text: string, ids: Int32Array) => {
        const d = el('div', 'gen-both-col');
        const h = el('h4');
        h.textContent = ch.t(key);
        const p = el('p', 'gen-both-text');
        p.textContent = text;
        const idsP = el('p', 'gen-both-ids');
        idsP.textContent = Array.from(ids).join(' ');
        d.append(h, p, idsP);
        return d;
      };
      const same = el('p', 'gen-both-same');
      same.innerHTML = proseHtml(ch.t('mCacheSame', { same: ch.t(rows.every((r) => r.same) ? 'yes' : 'no') }));
      demo.replaceChildren(col('mCacheWith', texts.with, t.result.idsWith), col('mCacheWithout', texts.without, t.result.idsWithout), same);
    }
    mistake.rerender();
    tfig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(renderTiming);

  let timeRun = 0;
  async function time(): Promise<void> {
    const v = current();
    if (!v) return;
    const mine = ++timeRun;
    againB.disabled = true;
    measuring = true;
    renderStatus();
    try {
      const engine = await ch.engine();
      const model = await ch.model(MODEL);
      // As many new tokens as fit after the prompt: P + n − 1 <= max_positions.
      const most = model.info.max_positions - v.promptIds.length + 1;
      const lengths = [...LENGTHS.filter((n) => n < most), most].filter((n) => n >= 1);
      const o = v.controls;
      const result = await engine.learn('generationTiming', {
        model: model.id, prompt: Int32Array.from(v.promptIds), lengths, temperature: o.temperature, topK: o.topK, topP: o.topP, seed: o.seed,
      });
      const [withText, withoutText] = await Promise.all([model.decode(result.idsWith), model.decode(result.idsWithout)]);
      if (mine !== timeRun) return;
      timing = { result, controls: o, prompt: v.prompt, promptIds: v.promptIds };
      texts = { with: withText, without: withoutText };
      state['timing'] = { ...timing, lengths };
      renderTiming();
    } catch (e) {
      if (mine === timeRun) ch.showError(e);
    } finally {
      if (mine === timeRun) {
        againB.disabled = false;
        measuring = false;
        renderStatus();
      }
    }
  }

  return { size, time };
}
