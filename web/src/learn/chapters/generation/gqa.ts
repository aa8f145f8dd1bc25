// Chapter "Generating text": grouped-query attention and the KV cache. The engine reads
// published config.json files (no weights) and reports each one's cache at the reader's
// context (engine.learn('kvCacheSizeConfig') → tfp_learn_kv_cache_size_config →
// model::kv_cache_bytes); the reader may paste another config.json. The configurations
// below are the published values of the shapes that matter (hidden size, heads, key/value
// heads, layers), with the fields the loader needs.
import type { KvCacheSizeConfigResult } from '../../../engine/learn_calls/generation';
import { el } from '../../../widgets/dom';
import { num } from '../../format';
import { latest } from '../../latest';
import { table, type GenChapter } from './dom';

const PRESETS: { name: string; config: object }[] = [
  { name: 'Llama 2 7B', config: { model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 4096, intermediate_size: 11008,
    num_attention_heads: 32, num_key_value_heads: 32, num_hidden_layers: 32, vocab_size: 32000, max_position_embeddings: 4096,
    rms_norm_eps: 1e-5, hidden_act: 'silu', tie_word_embeddings: false } },
  { name: 'Llama 3 8B', config: { model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 4096, intermediate_size: 14336,
    num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, vocab_size: 128256, max_position_embeddings: 8192,
    rms_norm_eps: 1e-5, rope_theta: 500000, hidden_act: 'silu', tie_word_embeddings: false } },
  { name: 'Qwen2.5 0.5B', config: { model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_size: 896, intermediate_size: 4864,
    num_attention_heads: 14, num_key_value_heads: 2, num_hidden_layers: 24, vocab_size: 151936, max_position_embeddings: 32768,
    rms_norm_eps: 1e-6, rope_theta: 1000000, hidden_act: 'silu', tie_word_embeddings: true } },
];
const POSITIONS = [1024, 4096];

export function gqaSection(ch: GenChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s = ch.section('hGqa');
  ch.prose(s, 'gqaIntro');
  const fig = ch.figure(s, { caption: 'figGqa', label: 'figGqaLabel', table: (host) => host.replaceChildren(sizeTable()) });
  const positions = el('select');
  for (const p of POSITIONS) positions.append(new Option(String(p), String(p), false, p === 4096));
  const paste = el('textarea');
  paste.rows = 3;
  paste.spellcheck = false;
  paste.style.width = 'min(36rem, 90vw)';
  const help = el('p', 'help');
  fig.controls.append(ch.field('gqaPositions', positions, 'gen-gqa-positions').element,
                      ch.field('gqaPaste', paste, 'gen-gqa-config', { help }).element);
  const box = el('div', 'gen-table-box');
  const note = el('p', 'help');
  note.id = 'gen-gqa-note';
  fig.view.append(box, note);

  let rows: { name: string; r: KvCacheSizeConfigResult }[] = [];
  let refused = '';
  function sizeTable(): HTMLTableElement {
    return table(ch.t('figGqaLabel'), [ch.t('gqaColModel'), ch.t('gqaColHeads'), ch.t('gqaColKv'), ch.t('gqaColBytes'), ch.t('gqaColGib')],
      rows.map(({ name, r }) => [name, r.heads, r.kvHeads, num(r.bytes), num(r.bytes / 2 ** 30, 3)]));
  }
  function render(): void {
    help.textContent = ch.t('gqaPasteHelp');
    box.replaceChildren(sizeTable());
    note.textContent = refused ? ch.t('gqaRefused', { message: refused }) : '';
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    const n = Number(positions.value);
    const next = await Promise.all(PRESETS.map(async (p) => ({
      name: p.name, r: await engine.learn('kvCacheSizeConfig', { config: JSON.stringify(p.config), positions: n }) })));
    let why = '';
    if (paste.value.trim()) {
      try {
        next.push({ name: ch.t('gqaMine'), r: await engine.learn('kvCacheSizeConfig', { config: paste.value, positions: n }) });
      } catch (e) {
        why = e instanceof Error ? e.message : String(e);
      }
    }
    if (!isLatest()) return;
    rows = next;
    refused = why;
    state['gqa'] = { positions: n, rows: rows.map(({ name, r }) => ({ name, ...r })), refused };
    render();
  });
  positions.addEventListener('change', () => void run());
  paste.addEventListener('change', () => void run());
  return { run };
}
