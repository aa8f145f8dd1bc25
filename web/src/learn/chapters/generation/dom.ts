// The chapter "Generating text"'s own small pieces: its chapter type, the model it runs,
// a labelled control with extra content after the input, and how a vocabulary spelling is
// shown. Controls, formats and tables come from the shell (learn/chapter.ts,
// learn/format.ts, widgets/tables.ts).
import type { Chapter } from '../../chapter';
import { textTable } from '../../../widgets/tables';
import { visibleToken } from '../../../widgets/token_text';
import type { Key } from './text';

export type GenChapter = Chapter<Key>;
export const MODEL = 'brown-gpt';

/** ch.field with something after the input (a value readout, a button). */
export function fieldWith(ch: GenChapter, key: Key, input: HTMLElement, id: string, extra?: HTMLElement): HTMLElement {
  const f = ch.field(key, input, id).element;
  if (extra) f.append(extra);
  return f;
}

/** A vocabulary spelling as the reader should see it ("Ġthe" → "·the"). */
export const tokenText = (t: string) => visibleToken(t, true);

/** The chapter's tables (widgets/tables.ts textTable, styled as .gen-table). */
export const table = (caption: string, head: string[], rows: (string | number)[][]): HTMLTableElement =>
  textTable(caption, head, rows, 'gen-table');
