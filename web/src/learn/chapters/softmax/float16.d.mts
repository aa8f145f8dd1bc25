// Types of float16.mjs (rounding to f16 / bf16, ties to even).
export type Dtype16 = 'f16' | 'bf16';
export function roundTo16(x: number, format: Dtype16): number;
export function decode16(bits: number, format: Dtype16): number;
export function roundToDtype(x: number, dtype: 'f32' | Dtype16): number;
