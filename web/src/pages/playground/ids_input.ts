// A token model opened without tokenizer.json (the family fixtures, a folder of weights
// alone): the text box takes the token ids themselves, as `tfp generate --ids` does on
// the command line. "5 17 3" or "5, 17, 3" is three tokens; each shows as its id in the
// token strip, the maps' labels and the drill-down. Nothing is computed here: the ids are
// read as typed and checked against the vocabulary size the engine reports; every number
// after that is the engine's.
import type { Model, TokenizeResult } from 'transformer-playground';
import { t } from '../../i18n/i18n';

/** True for a model that reads token ids but came without a tokenizer (and without the
 *  engine's words fallback, which only models that read vectors have). */
export function readsIds(info: Model['info']): boolean {
  return info.has_embeddings && !info.tokenizer && !info.tokenizer_fallback;
}

/** The ids typed in `text` as an encoding: tokens are the ids as typed, offsets their
 *  characters in the text (UTF-16). Throws a message naming the first piece that is not
 *  an id of a vocabulary of `vocab` entries. */
export function idsEncoding(text: string, vocab: number): TokenizeResult {
  const ids: number[] = [], offsets: number[] = [], tokens: string[] = [];
  for (const m of text.matchAll(/[^\s,]+/g)) {
    const piece = m[0];
    const id = /^\d{1,9}$/.test(piece) ? Number(piece) : -1;
    if (id < 0 || id >= vocab) throw new Error(t('play.ids.bad', { piece, max: vocab - 1 }));
    ids.push(id);
    tokens.push(String(id));
    offsets.push(m.index!, m.index! + piece.length);
  }
  return { ids: Int32Array.from(ids), tokens, offsets: Int32Array.from(offsets), specialMask: new Uint8Array(ids.length) };
}

/** A text of ids for a model that reads ids, when the text box holds words: the first
 *  ids of its vocabulary, in an order that is not 0, 1, 2, … (so that the maps show more
 *  than a diagonal). */
export function defaultIds(vocab: number): string {
  const picks = [5, 17, 3, 42, 8, 23, 11, 30, 14, 2];
  const ids = picks.filter((x) => x < vocab);
  return (ids.length ? ids : [0]).join(' ');
}

/** Makes `model.tokenize` read ids (the page's only route from text to ids, shared by the
 *  forward pass, generation and translation). */
export function tokenizeAsIds(model: Model): void {
  const V = model.info.vocab_size;
  model.tokenize = (text: string) => {
    try {
      return Promise.resolve(idsEncoding(text, V));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  };
}

/** Whether `text` already reads as ids of `vocab`. */
export function isIdsText(text: string, vocab: number): boolean {
  try {
    return idsEncoding(text, vocab).ids.length > 0;
  } catch {
    return false;
  }
}
