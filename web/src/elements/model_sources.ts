// What a <tfp-model src="…"> names: a shipped model by name (the package's entry tells the
// elements where its models are), an "hf:owner/name" Hub name, or a folder URL.

let shipped: (name: string) => string | null = () => null;

/** Called once by an entry that ships models: name → folder URL, or null for no such model. */
export function setShippedModels(resolve: (name: string) => string | null): void {
  shipped = resolve;
}

/** The engine's source for a src attribute. */
export function modelSource(src: string): string {
  const name = src.trim();
  if (name.startsWith('hf:')) return name;
  return shipped(name) ?? name;
}
