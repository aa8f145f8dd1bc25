// Chapter 7's own small pieces: its chapter type and a labelled slider built on the
// shell's ch.field (the label shows the current value). Formats and tables come from the
// shell (format.ts, widgets/tables.ts).
import type { Chapter } from '../../chapter';
import { el } from '../../../widgets/dom';
import type { Key } from './text';

export type PosChapter = Chapter<Key>;

/** <input type=range> in a ch.field whose label `key` reads {n} = the current value. */
export function slider(ch: PosChapter, key: Key, id: string, o: { min: number; max: number; step?: number; value: number },
                       onInput: (v: number) => void): { element: HTMLElement; input: HTMLInputElement } {
  const input = el('input');
  input.type = 'range';
  input.min = String(o.min);
  input.max = String(o.max);
  input.step = String(o.step ?? 1);
  input.value = String(o.value);
  const f = ch.field(key, input, id, { params: () => ({ n: input.value }) });
  input.addEventListener('input', () => {
    f.relabel();
    onInput(Number(input.value));
  });
  return { element: f.element, input };
}

/** <input type=number> in a ch.field; onInput gets only integers in [min, max]. */
export function intInput(ch: PosChapter, key: Key, id: string, o: { min: number; max: number; value: number },
                         onInput: (v: number) => void): { element: HTMLElement; input: HTMLInputElement } {
  const input = el('input');
  input.type = 'number';
  input.min = String(o.min);
  input.max = String(o.max);
  input.step = '1';
  input.value = String(o.value);
  input.addEventListener('input', () => {
    const v = Number(input.value);
    if (input.value !== '' && Number.isInteger(v) && v >= o.min && v <= o.max) onInput(v);
  });
  return { element: ch.field(key, input, id).element, input };
}

