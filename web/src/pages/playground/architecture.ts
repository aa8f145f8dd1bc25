// The loaded model's architecture in a few lines, read from the engine's description of
// it (tfp_model_info_json → "config", written by src/model/config_json.cpp
// config_to_json; a key that is absent has its default): how positions enter (RoPE with
// its base, fraction and scaling, ALiBi, relative buckets, learned or sinusoidal
// vectors), how many query heads share how many key/value heads, the head size, the
// score scale, the norms and residual form, which layers are local and with what window,
// and the soft-caps. Values are shown as the engine reports them; nothing is computed.
import type { Model } from 'transformer-playground';
import { t, type MessageKey } from '../../i18n/i18n';
import { machinery } from '../../widgets/attention_masks';

type Info = Model['info'];
type Cfg = Record<string, unknown>;

const num = (c: Cfg, k: string): number | undefined => (typeof c[k] === 'number' ? (c[k] as number) : undefined);
const flag = (c: Cfg, k: string): boolean => c[k] === true;

/** The head size: config.json's head_dim when the model has its own, else d_model / heads
 *  (the definition every other family uses). */
function headSize(info: Info): number {
  return num(info.config ?? {}, 'head_dim') ?? info.d_model / Math.max(1, info.n_heads);
}

function positions(c: Cfg): string {
  const kind = typeof c['positional'] === 'string' ? (c['positional'] as string) : 'none';
  if (kind === 'rope') {
    const r = (c['rope'] ?? {}) as Cfg;
    let s = t('play.arch.posRope', { base: String(num(r, 'base') ?? '') });
    const fraction = num(r, 'fraction');
    if (fraction !== undefined && fraction < 1) s += t('play.arch.posRopeFraction', { fraction: String(fraction) });
    if (r['interleaved'] === true) s += t('play.arch.posRopePairs');
    const scaled = typeof r['scaling'] === 'string' && r['scaling'] !== 'none';
    if (scaled) s += t('play.arch.posRopeScaling', { kind: r['scaling'] as string, factor: String(num(r, 'factor') ?? '') });
    // Local layers with a base of their own keep it unscaled (the engine's rope_config).
    const local = num(r, 'local_base');
    if (local !== undefined && local > 0)
      s += t(scaled ? 'play.arch.posRopeLocalUnscaled' : 'play.arch.posRopeLocal', { base: String(local) });
    return s;
  }
  if (kind === 'alibi') return t('play.arch.posAlibi');
  if (kind === 'relative') {
    const r = (c['relative'] ?? {}) as Cfg;
    return t('play.arch.posRelative', { buckets: String(num(r, 'num_buckets') ?? ''), distance: String(num(r, 'max_distance') ?? '') });
  }
  const keys: Record<string, MessageKey> = { learned: 'play.arch.posLearned', sinusoidal: 'play.arch.posSinusoidal' };
  return t(keys[kind] ?? 'play.arch.posNone');
}

/** The layers' pattern: "local · 4, global, local · 4, global"; runs of one kind longer
 *  than two are written once with their count ("3 × local · 4"). */
export function layerPattern(windows: number[]): string {
  const word = (w: number) => (w > 0 ? t('play.arch.local', { window: w }) : t('play.arch.global'));
  const runs: { w: number; n: number }[] = [];
  for (const w of windows) {
    const last = runs[runs.length - 1];
    if (last && last.w === w) last.n++;
    else runs.push({ w, n: 1 });
  }
  return runs.map((r) => (r.n > 2 ? `${r.n} × ${word(r.w)}` : Array(r.n).fill(word(r.w)).join(', '))).join(', ');
}

/** The summary as (label, value) rows, in the page's language. */
export function architectureRows(info: Info): { key: string; label: string; value: string }[] {
  const c = info.config ?? {};
  const m = machinery(info);
  const D = headSize(info);
  const rows: { key: string; label: string; value: string }[] = [];
  const add = (key: string, label: MessageKey, value: string) => rows.push({ key, label: t(label), value });
  add('positions', 'play.arch.positions', positions(c));
  const H = info.n_heads;
  add('heads', 'play.arch.heads', m.kvHeads === undefined ? t('play.arch.headsMha', { heads: H })
    : m.kvHeads === 1 ? t('play.arch.headsMqa', { heads: H }) : t('play.arch.headsGqa', { heads: H, kv: m.kvHeads }));
  add('headSize', 'play.arch.headSize', String(D));
  add('scale', 'play.arch.scale', m.attnScale === undefined ? t('play.arch.scaleDefault', { D })
    : m.attnScale === 1 ? t('play.arch.scaleNone') : t('play.arch.scaleOwn', { scale: String(m.attnScale), D }));
  const rms = c['norm'] === 'rms_norm';
  let norm = t(rms ? 'play.arch.normRms' : 'play.arch.normLayer');
  if (flag(c, 'norm_plus_one')) norm += t('play.arch.normPlusOne');
  norm += t(flag(c, 'sandwich_norms') ? 'play.arch.normSandwich' : c['norm_first'] === false ? 'play.arch.normPost' : 'play.arch.normPre');
  if (flag(c, 'qk_norm')) norm += t('play.arch.qkNorm');
  add('norm', 'play.arch.norm', norm);
  add('residual', 'play.arch.residual', t(flag(c, 'parallel_residual') ? 'play.arch.residualParallel' : 'play.arch.residualSequential'));
  if (info.architecture === 'encoder_decoder')
    add('stacks', 'play.arch.encDec', t('play.arch.encDecValue', { enc: info.n_encoder_layers, dec: info.n_decoder_layers,
                                                                  start: info.decoder_start_token_id }));
  if (m.windows) add('layers', 'play.arch.layers', layerPattern(m.windows));
  const caps: string[] = [];
  const attnCap = num(c, 'attn_softcap'), finalCap = num(c, 'final_softcap');
  if (attnCap) caps.push(t('play.arch.softcapAttn', { cap: String(attnCap) }));
  if (finalCap) caps.push(t('play.arch.softcapFinal', { cap: String(finalCap) }));
  if (caps.length) add('softcaps', 'play.arch.softcaps', caps.join('; '));
  return rows;
}

/** Fills `host` (a <dl>) with the summary of `info`; hides it for models that have no
 *  such description (recurrent models, models that read vectors). */
export function showArchitecture(host: HTMLElement, info: Info | null): void {
  if (!info || info.recurrent || !info.has_embeddings) {
    host.hidden = true;
    host.replaceChildren();
    return;
  }
  const title = document.createElement('h3');
  title.className = 'arch-title';
  title.textContent = t('play.arch.title');
  const dl = document.createElement('dl');
  dl.className = 'arch-list';
  for (const r of architectureRows(info)) {
    const dt = document.createElement('dt');
    dt.textContent = r.label;
    const dd = document.createElement('dd');
    dd.textContent = r.value;
    dd.dataset.arch = r.key;
    dl.append(dt, dd);
  }
  host.replaceChildren(title, dl);
  host.hidden = false;
}
