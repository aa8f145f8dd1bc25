// What a Learn call may need from the worker besides the module (its own file, so that the
// calls' modules and the index that lists them do not import each other).

/** The module pointer of a model the page loaded (args carry its page handle, Model.id). */
export interface LearnContext {
  modelPtr(handle: number): number;
}
