// Chapter 1's own small pieces shared by its section modules: its chapter type and prose
// whose parameters come from the engine (hidden until they are ready).
import type { Chapter, TextParams } from '../../chapter';
import type { WhyKey } from './text';

export type WhyChapter = Chapter<WhyKey>;

/** Prose made once, re-rendered with fresh params by render() (and by the shell on a
 *  language switch); hidden while its params are not ready. */
export function liveProse(ch: WhyChapter, host: HTMLElement, key: WhyKey, params: () => TextParams): { element: HTMLElement; render(show?: boolean): void } {
  const div = ch.prose(host, key, params);
  return {
    element: div,
    render(show = true) {
      div.hidden = !show;
      if (show) div.rerender();
    },
  };
}
