// Types of hub_paths.mjs.
export function hostDir(hub: string): string;
export function fileSegment(file: string): string;
