#!/usr/bin/python3
"""Writes one GPT-2-shaped model twice, with the same random weights, for the end-to-end
benchmark (bench/e2e_gpt2.mjs, issue 14):

  OUT/gpt2/config.json + model.safetensors   a Hugging Face GPT-2 folder (our engine reads it)
  OUT/gpt2.onnx                              the same network as one ONNX graph (onnxruntime-web)

The ONNX graph is GPT-2 as Hugging Face computes it (pre-LayerNorm blocks, fused c_attn,
gelu_new, tied LM head) with a key/value cache, so one graph serves both a prefill
(past length 0) and a decode step (T = 1 after a prefill):

  inputs   input_ids [1, T] int64, position_ids [1, T] int64,
           attn_bias [T, P + T] float32 (0 where a query may look, -1e9 where not: the
           caller passes the causal mask), past_k.L / past_v.L [1, H, P, D] float32
  outputs  logits [1, T, V], present_k.L / present_v.L [1, H, P + T, D]

Only standard ONNX ops (opset 17: LayerNormalization, Gemm, MatMul, Softmax, Tanh...), so
onnxruntime's own graph optimiser decides what to fuse, as it would for a user's export.

  /usr/bin/python3 bench/e2e_gpt2_files.py [--out build/e2e] [--layers 12] [--d-model 768]
      [--heads 12] [--vocab 50257] [--positions 1024] [--seed 0] [--name gpt2] [--dtype F32|F16|I8]
      [--no-onnx]   (GPT-2-medium in the page: --layers 24 --d-model 1024 --heads 16 --dtype F16
                     --no-onnx --out build/real-models --name gpt2-medium-f16; bench/real_size_page.mjs)

Needs Debian's python3-numpy and python3-onnx (tools/deps.sh installs them for `npm run bench`).
"""
import argparse
import json
import os
import struct

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weights(layers, d, vocab, positions, seed):
    """HF GPT-2 tensors (Conv1D weights stored (in, out)); normal(0, 0.02), biases small."""
    rng = np.random.default_rng(seed)
    w = {}

    def normal(name, *shape, std=0.02):
        w[name] = (rng.standard_normal(shape, dtype=np.float32) * std).astype(np.float32)

    normal('wte.weight', vocab, d)
    normal('wpe.weight', positions, d, std=0.01)
    for i in range(layers):
        p = f'h.{i}.'
        w[p + 'ln_1.weight'] = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        normal(p + 'ln_1.bias', d)
        normal(p + 'attn.c_attn.weight', d, 3 * d)
        normal(p + 'attn.c_attn.bias', 3 * d)
        normal(p + 'attn.c_proj.weight', d, d)
        normal(p + 'attn.c_proj.bias', d)
        w[p + 'ln_2.weight'] = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        normal(p + 'ln_2.bias', d)
        normal(p + 'mlp.c_fc.weight', d, 4 * d)
        normal(p + 'mlp.c_fc.bias', 4 * d)
        normal(p + 'mlp.c_proj.weight', 4 * d, d)
        normal(p + 'mlp.c_proj.bias', d)
    w['ln_f.weight'] = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    normal('ln_f.bias', d)
    return w


# The matrices an int8 checkpoint holds as I8 (the token table doubles as the tied head).
INT8_MATRICES = ('wte.weight', '.c_attn.weight', '.c_proj.weight', '.c_fc.weight')


def quantize_int8(name, a):
    """Per-output-channel symmetric int8, as the engine's model/precision.h reads it: the I8
    tensor in the stored layout plus '<name>_scale' (F32, one per output). Conv1D weights
    are (in, out): outputs are columns; the token table's outputs are its rows."""
    axis = 1 if name == 'wte.weight' else 0  # the axis summed over (the inputs)
    scale = np.abs(a).max(axis=axis) / 127
    x = a / np.expand_dims(np.where(scale == 0, 1, scale), axis)  # an all-zero channel stays 0
    q = np.clip(np.sign(x) * np.floor(np.abs(x.astype(np.float64)) + 0.5), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def int8_tensors(w):
    """(dtype, array) per tensor name, matrices quantised; and the weights they stand for
    (q·scale in f32), which the ONNX graph gets so that both engines compute one function."""
    out, values = {}, {}
    for name, a in w.items():
        if name.endswith(INT8_MATRICES):
            q, scale = quantize_int8(name, a)
            out[name], out[name + '_scale'] = ('I8', q), ('F32', scale)
            values[name] = q.astype(np.float32) * (scale[:, None] if name == 'wte.weight' else scale[None, :])
        else:
            out[name], values[name] = ('F32', a), a
    return out, values


def write_safetensors(path, tensors, dtype='F32'):
    """tensors: name -> array (stored as dtype F32 or F16) or name -> (dtype, array)."""
    tensors = {k: v if isinstance(v, tuple) else (dtype, v.astype(np.float16) if dtype == 'F16' else v)
               for k, v in tensors.items()}
    header, offset = {}, 0
    for name, (kind, a) in tensors.items():
        header[name] = {'dtype': kind, 'shape': list(a.shape), 'data_offsets': [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for _, a in tensors.values():
            f.write(np.ascontiguousarray(a).tobytes())


def onnx_graph(w, layers, d, heads, vocab):
    D = d // heads
    nodes, inits = [], [numpy_helper.from_array(a, name) for name, a in w.items()]
    n = [0]

    def op(kind, inputs, **attrs):
        n[0] += 1
        out = f'{kind.lower()}_{n[0]}'
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def const(name, values, dtype=np.int64):
        inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), name))
        return name

    const('shape_btd', [1, -1, d])
    const('shape_bthd', [1, -1, heads, D])
    const('shape_td', [-1, d])
    const('shape_btv', [1, -1, vocab])
    const('split3', [d, d, d])
    const('half', 0.5, np.float32)
    const('one', 1.0, np.float32)
    const('gelu_c', np.sqrt(2 / np.pi), np.float32)
    const('gelu_k', 0.044715, np.float32)
    const('scale', 1 / np.sqrt(D), np.float32)

    def layer_norm(x, p):
        return op('LayerNormalization', [x, p + '.weight', p + '.bias'], axis=-1, epsilon=1e-5)

    def linear(x, p):  # x [1, T, in] @ W (in, out) + b
        return op('Add', [op('MatMul', [x, p + '.weight']), p + '.bias'])

    def gelu_new(x):  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = op('Mul', [op('Mul', [x, x]), x])
        inner = op('Mul', [op('Add', [x, op('Mul', [cube, 'gelu_k'])]), 'gelu_c'])
        return op('Mul', [op('Mul', [x, 'half']), op('Add', [op('Tanh', [inner]), 'one'])])

    tok = op('Gather', ['wte.weight', 'input_ids'], axis=0)
    pos = op('Gather', ['wpe.weight', 'position_ids'], axis=0)
    h = op('Add', [tok, pos])
    outputs = []
    for i in range(layers):
        p = f'h.{i}.'
        x = layer_norm(h, p + 'ln_1')
        qkv = linear(x, p + 'attn.c_attn')
        q, k, v = (f'{p}{s}' for s in 'qkv')
        nodes.append(helper.make_node('Split', [qkv, 'split3'], [q, k, v], axis=2))
        heads_of = lambda t: op('Transpose', [op('Reshape', [t, 'shape_bthd'])], perm=[0, 2, 1, 3])  # [1, H, T, D]
        k_all = op('Concat', [f'past_k.{i}', heads_of(k)], axis=2)
        v_all = op('Concat', [f'past_v.{i}', heads_of(v)], axis=2)
        nodes.append(helper.make_node('Identity', [k_all], [f'present_k.{i}']))
        nodes.append(helper.make_node('Identity', [v_all], [f'present_v.{i}']))
        outputs += [f'present_k.{i}', f'present_v.{i}']
        scores = op('Add', [op('Mul', [op('MatMul', [heads_of(q), op('Transpose', [k_all], perm=[0, 1, 3, 2])]), 'scale']), 'attn_bias'])
        ctx = op('MatMul', [op('Softmax', [scores], axis=-1), v_all])  # [1, H, T, D]
        ctx = op('Reshape', [op('Transpose', [ctx], perm=[0, 2, 1, 3]), 'shape_btd'])
        h = op('Add', [h, linear(ctx, p + 'attn.c_proj')])
        x = layer_norm(h, p + 'ln_2')
        h = op('Add', [h, linear(gelu_new(linear(x, p + 'mlp.c_fc')), p + 'mlp.c_proj')])
    x = op('Reshape', [layer_norm(h, 'ln_f'), 'shape_td'])
    logits = op('Gemm', [x, 'wte.weight'], transB=1)  # the tied head, without a transposed copy
    nodes.append(helper.make_node('Reshape', [logits, 'shape_btv'], ['logits']))

    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    kv = lambda name: helper.make_tensor_value_info(name, f32, [1, heads, name.startswith('past') and 'P' or 'PT', D])
    inputs = [helper.make_tensor_value_info('input_ids', i64, [1, 'T']),
              helper.make_tensor_value_info('position_ids', i64, [1, 'T']),
              helper.make_tensor_value_info('attn_bias', f32, ['T', 'PT'])]
    inputs += [kv(f'past_{s}.{i}') for i in range(layers) for s in 'kv']
    outs = [helper.make_tensor_value_info('logits', f32, [1, 'T', vocab])] + [kv(o) for o in outputs]
    graph = helper.make_graph(nodes, 'gpt2', inputs, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)], producer_name='tfp-bench')
    model.ir_version = 8
    return model


def main():
    a = argparse.ArgumentParser()
    a.add_argument('--out', default='build/e2e')
    a.add_argument('--name', default='gpt2')
    a.add_argument('--layers', type=int, default=12)
    a.add_argument('--d-model', type=int, default=768)
    a.add_argument('--heads', type=int, default=12)
    a.add_argument('--vocab', type=int, default=50257)
    a.add_argument('--positions', type=int, default=1024)
    a.add_argument('--seed', type=int, default=0)
    a.add_argument('--dtype', choices=['F32', 'F16', 'I8'], default='F32',
                   help='how the safetensors stores the weights (I8: the matrices, with per-output scales); '
                        'the ONNX graph gets the same values in f32')
    a.add_argument('--no-onnx', action='store_true', help='only the Hugging Face folder (e.g. for the page)')
    o = a.parse_args()
    w = weights(o.layers, o.d_model, o.vocab, o.positions, o.seed)
    stored = w
    if o.dtype == 'F16':  # both engines then compute with the same (f16-representable) values
        w = stored = {k: a.astype(np.float16).astype(np.float32) for k, a in w.items()}
    elif o.dtype == 'I8':
        stored, w = int8_tensors(w)
    folder = os.path.join(o.out, o.name)
    os.makedirs(folder, exist_ok=True)
    config = {'architectures': ['GPT2LMHeadModel'], 'model_type': 'gpt2', 'activation_function': 'gelu_new',
              'n_embd': o.d_model, 'n_layer': o.layers, 'n_head': o.heads, 'n_positions': o.positions,
              'n_ctx': o.positions, 'vocab_size': o.vocab, 'layer_norm_epsilon': 1e-5,
              'bos_token_id': o.vocab - 1, 'eos_token_id': o.vocab - 1,
              'torch_dtype': 'float16' if o.dtype == 'F16' else 'float32'}
    with open(os.path.join(folder, 'config.json'), 'w') as f:
        json.dump(config, f, indent=2)
    write_safetensors(os.path.join(folder, 'model.safetensors'), stored, o.dtype)
    if o.no_onnx:
        print(json.dumps({'folder': folder, 'parameters': int(sum(a.size for a in w.values()))}))
        return
    model = onnx_graph(w, o.layers, o.d_model, o.heads, o.vocab)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(o.out, o.name + '.onnx'))
    print(json.dumps({'folder': folder, 'onnx': os.path.join(o.out, o.name + '.onnx'),
                      'parameters': int(sum(a.size for a in w.values()))}))


if __name__ == '__main__':
    main()
