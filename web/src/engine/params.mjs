// The C API's params structs (src/api/tfp_api.h "parameter structs") written into the WASM
// heap. The worker and the Node tests share this file; it holds no field list of its own:
// the layout — each field's byte offset and kind, the struct's size — comes from the C side
// (tfp_params_layout_json, made from offsetof), and the defaults from the C side too
// (tfp_<name>_params_init). A caller names the fields it sets; a name the struct does not
// have, or a value its kind cannot hold, throws before the call — so a field order or a
// spelling that differs between C and JavaScript cannot go unnoticed.
// Plain JavaScript (typed by params.d.mts) so that Node imports it without a build.

/** @type {WeakMap<object, Record<string, { size: number, fields: Record<string, [number, string]> }>>} */
const layouts = new WeakMap();

/** The layout of params struct `struct` ("tfp_forward_params", ...) in module m. */
export function paramsLayout(m, struct) {
  let all = layouts.get(m);
  if (!all) {
    all = JSON.parse(m.UTF8ToString(m._tfp_params_layout_json()));
    layouts.set(m, all);
  }
  const layout = all[struct];
  if (!layout) throw new Error(`${struct}: not a params struct of this module (it has ${Object.keys(all).join(', ')})`);
  return layout;
}

const LIMITS = { i32: [-0x80000000, 0x7fffffff], u32: [0, 0xffffffff], ptr: [0, 0xffffffff] };

/** Writes `values` (field name → number) into the struct at ptr, after its C defaults. */
export function writeParams(m, struct, ptr, values) {
  const layout = paramsLayout(m, struct);
  const init = m[`_${struct}_init`];
  if (typeof init !== 'function') throw new Error(`${struct}: the module does not export ${struct}_init`);
  init(ptr);
  const view = new DataView(m.HEAPU8.buffer);
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;  // keep the default
    const field = layout.fields[name];
    if (!field) throw new Error(`${struct} has no field '${name}' (fields: ${Object.keys(layout.fields).join(', ')})`);
    const [offset, kind] = field;
    if (typeof value !== 'number' || Number.isNaN(value)) throw new Error(`${struct}.${name}: not a number: ${value}`);
    if (kind === 'f32') {
      view.setFloat32(ptr + offset, value, true);
      continue;
    }
    const [lo, hi] = LIMITS[kind];
    if (!Number.isInteger(value) || value < lo || value > hi)
      throw new Error(`${struct}.${name}: ${value} is not a ${kind === 'ptr' ? 'pointer' : kind} value`);
    if (kind === 'i32') view.setInt32(ptr + offset, value, true);
    else view.setUint32(ptr + offset, value, true);
  }
}

/** Lays the struct out on the heap (defaults, then `values`), runs body(ptr) and frees it. */
export function withParams(m, struct, values, body) {
  const { size } = paramsLayout(m, struct);
  const ptr = m._tfp_alloc(size);
  if (ptr === 0) throw new Error(`${struct}: out of memory (${m.UTF8ToString(m._tfp_last_error())})`);
  try {
    writeParams(m, struct, ptr, values);
    return body(ptr);
  } finally {
    m._tfp_free(ptr);
  }
}
