// The encoder-layer chapter's chapter type. Its controls, formats and tables come from
// the shell (learn/chapter.ts, learn/format.ts, widgets/tables.ts).
import type { Chapter } from '../../chapter';
import type { Key } from './text';

export type EncChapter = Chapter<Key>;
