/// <reference types="vite/client" />
import type { MessageKey } from '../i18n/i18n';
// The models the picker offers, found at build time: every folder under models/ that
// holds config.json and model.safetensors (shipped models, trained by our trainer), then
// small test fixtures from tests/fixtures/checkpoints/ so the page always opens with a
// model even when no shipped model exists yet. Files are emitted as assets and loaded by
// URL (the engine streams the weights into its heap).
// No runtime import here: the playground's entry reads it to start fetching the first model
// before the page's other code (and the i18n messages) have run (entry.ts); the names in the
// page's language are catalog_label.ts's.

export interface CatalogEntry {
  id: string;          // URL id: "brown-gpt", "fixture-gpt2_tiny"
  label: string;       // the folder's name; shown through catalogLabel(), which prefers labelKey
  labelKey?: MessageKey;
  config: string;      // URLs
  weights: string;
  tokenizer?: string;
  readme?: string;
  shipped: boolean;
}

// Globs are relative to this file: ../../../ is the repository root.
const shipped = import.meta.glob('../../../models/*/{config.json,model.safetensors,tokenizer.json,README.md}',
  { query: '?url', import: 'default', eager: true }) as Record<string, string>;
// The configs' text, to leave out models the engine cannot load (see UNSUPPORTED).
const shippedConfigs = import.meta.glob('../../../models/*/config.json',
  { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const fixtures = import.meta.glob('../../../tests/fixtures/checkpoints/{gpt2_tiny,bert_tiny,bert_mlm_tiny}/{config.json,model.safetensors,tokenizer.json}',
  { query: '?url', import: 'default', eager: true }) as Record<string, string>;

const FIXTURE_LABELS: Record<string, MessageKey> = {
  gpt2_tiny: 'play.fixtureGpt2',
  bert_tiny: 'play.fixtureBert',
  bert_mlm_tiny: 'play.fixtureBertMlm',
};

/** model_type values that tfp_model_load refuses, with the reason shown under the
 * picker. Empty: every shipped model loads (the recurrent encoder–decoder numbers-gru,
 * tfp_gru_seq2seq, too, through src/api/api_gru.cpp). */
const UNSUPPORTED: Record<string, MessageKey> = {};

function modelTypeOf(configText: string | undefined): string {
  try {
    const c = JSON.parse(configText ?? '{}') as { model_type?: unknown };
    return typeof c.model_type === 'string' ? c.model_type : '';
  } catch {
    return '';
  }
}

/** Shipped folders left out of the picker, with the reason (shown under it). */
export const LEFT_OUT: { id: string; reason: MessageKey }[] = [];

function group(files: Record<string, string>, isShipped: boolean): CatalogEntry[] {
  const byDir = new Map<string, Record<string, string>>();
  for (const [path, url] of Object.entries(files)) {
    const parts = path.split('/');
    const dir = parts[parts.length - 2]!, file = parts[parts.length - 1]!;
    if (!byDir.has(dir)) byDir.set(dir, {});
    byDir.get(dir)![file] = url;
  }
  const out: CatalogEntry[] = [];
  for (const [dir, f] of [...byDir.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (!f['config.json'] || !f['model.safetensors']) continue;
    if (isShipped) {
      const type = modelTypeOf(shippedConfigs[`../../../models/${dir}/config.json`]);
      if (UNSUPPORTED[type]) {
        LEFT_OUT.push({ id: dir, reason: UNSUPPORTED[type]! });
        continue;
      }
    }
    out.push({
      id: isShipped ? dir : `fixture-${dir}`,
      label: dir,
      ...(!isShipped && FIXTURE_LABELS[dir] ? { labelKey: FIXTURE_LABELS[dir]! } : {}),
      config: f['config.json'],
      weights: f['model.safetensors'],
      ...(f['tokenizer.json'] ? { tokenizer: f['tokenizer.json'] } : {}),
      ...(f['README.md'] ? { readme: f['README.md'] } : {}),
      shipped: isShipped,
    });
  }
  return out;
}

/** Shipped models first (brown-gpt, then any other decoder LM, first among them), then
 * the fixtures. */
const rank = (id: string): number => (id === 'brown-gpt' ? 0 : id.includes('gpt') ? 1 : 2);
export const CATALOG: CatalogEntry[] = [
  ...group(shipped, true).sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id)),
  ...group(fixtures, false),
];

/** What the page opens with: brown-gpt when shipped, else the first entry (another
 * shipped model, else the GPT-2 fixture). */
export const DEFAULT_MODEL = CATALOG[0]?.id ?? '';
