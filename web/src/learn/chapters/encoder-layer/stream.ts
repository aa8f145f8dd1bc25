// Figure 5b: the picked token's residual stream in brown-pos, piece by piece, as the
// model's own forward pass recorded it (tfp_learn_tagger_layers: "embed.out",
// "enc.l.attn.out", "enc.l.ffn.out", "enc.l.out" and each one's rms from the engine):
// h₀, + attention, + feed-forward, = h₁, ... on one shared colour scale, so the sizes of
// the corrections compare with the stream they are added to. Legend: C = d_model.
import type { TaggerLayersResult } from '../../../engine/learn_calls/encoder';
import { maxAbs, vectorBars } from '../../../widgets/vector_bars';
import type { EncChapter } from './dom';
import { el } from '../../../widgets/dom';
import { fixed } from '../../format';
import { numberTable } from '../../../widgets/tables';

interface Piece { label: string; values: Float32Array; rms: number; kind: 'stream' | 'attn' | 'ffn' }

export function streamFigure(ch: EncChapter, host: HTMLElement): { update: (r: TaggerLayersResult, tokens: string[], t: number) => void } {
  let pieces: Piece[] = [];
  ch.prose(host, 'streamWhat');
  const fig = ch.figure(host, {
    caption: 'figStreamCaption', label: 'figStreamLabel',
    table: (h) => {
      if (!pieces.length) return;
      const C = pieces[0]!.values.length;
      const vals = new Float32Array(pieces.length * (C + 1));
      pieces.forEach((p, i) => { vals[i * (C + 1)] = p.rms; vals.set(p.values, i * (C + 1) + 1); });
      h.replaceChildren(numberTable(ch.t('figStreamLabel'), pieces.map((p) => p.label),
        ['rms', ...Array.from({ length: C }, (_, c) => String(c + 1))], vals, 3));
    },
  });
  const formulaBox = el('div', 'enc-formula');
  fig.element.insertBefore(formulaBox, fig.view);
  ch.formula(formulaBox, () => String.raw`h_{\ell+1} = h_\ell + \underbrace{\mathrm{Attn}_\ell(\mathrm{LN}_1(h_\ell))}_{a_\ell} + \underbrace{\mathrm{FFN}_\ell(\mathrm{LN}_2(h_\ell + a_\ell))}_{f_\ell}`);
  const list = el('div', 'enc-stream');
  fig.view.append(list);
  let last: { r: TaggerLayersResult; tokens: string[]; t: number } | null = null;

  function update(r: TaggerLayersResult, tokens: string[], t: number): void {
    last = { r, tokens, t };
    const [R, T, C] = r.stream.dims as [number, number, number];
    const row = (x: { data: Float32Array }, k: number) => x.data.subarray((k * T + t) * C, (k * T + t + 1) * C);
    const size = (x: { data: Float32Array }, k: number) => x.data[k * T + t]!;
    pieces = [{ label: ch.t('streamEmbed', { tok: tokens[t]! }), values: row(r.stream, 0), rms: size(r.streamRms, 0), kind: 'stream' }];
    for (let l = 0; l < R - 1; l++) {
      pieces.push({ label: ch.t('streamAttn', { l: l + 1 }), values: row(r.attnOut, l), rms: size(r.attnRms, l), kind: 'attn' },
                  { label: ch.t('streamFfn', { l: l + 1 }), values: row(r.ffnOut, l), rms: size(r.ffnRms, l), kind: 'ffn' },
                  { label: ch.t('streamOut', { l: l + 1 }), values: row(r.stream, l + 1), rms: size(r.streamRms, l + 1), kind: 'stream' });
    }
    const scale = maxAbs(...pieces.map((p) => p.values));
    list.replaceChildren(...pieces.map((p) => {
      const d = el('div', `enc-stream-piece ${p.kind}`);
      const label = el('p');
      label.textContent = `${p.label} · rms ${fixed(p.rms, 3)}`;
      d.append(label, vectorBars(p.values, { label: p.label, scale, digits: 3 }));
      return d;
    }));
    fig.refreshTable();
  }
  ch.onLocale(() => { if (last) update(last.r, last.tokens, last.t); });
  return { update };
}
