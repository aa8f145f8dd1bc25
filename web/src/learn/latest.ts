// Latest-call-wins for a chapter's engine calls: a reader's edits can overtake a call in
// flight, and only the newest call's results may be drawn or its error shown.

/** Runs `body` for the latest call only: a newer call makes older results stale. */
export function latest<A extends unknown[]>(ch: { showError(e: unknown): void },
                                            body: (isLatest: () => boolean, ...a: A) => Promise<void>): (...a: A) => Promise<void> {
  let n = 0;
  return async (...a: A) => {
    const mine = ++n;
    try {
      await body(() => mine === n, ...a);
    } catch (e) {
      if (mine === n) ch.showError(e);
    }
  };
}
