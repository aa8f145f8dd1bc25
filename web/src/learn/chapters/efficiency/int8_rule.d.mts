// Types of int8_rule.mjs (the engine's symmetric int8 rule, replayed for a typed matrix).
export interface Int8Group { scale: number; q: number[]; deq: number[]; err: number[] }
export interface Int8Scheme { scales: number[]; q: number[]; deq: number[]; err: number[] }
export function quantiseGroup(values: number[], amax?: number): Int8Group;
export function quantiseMatrix(values: ArrayLike<number>, rows: number, cols: number): { x: number[]; tensor: Int8Scheme; channel: Int8Scheme };
export type ParsedMatrix = { rows: number; cols: number; values: number[]; error?: undefined }
  | { error: 'empty' | 'rows' | 'cols' | 'ragged' | 'number'; rows?: undefined; cols?: undefined; values?: undefined };
export function parseMatrix(text: string, maxRows?: number, maxCols?: number): ParsedMatrix;
