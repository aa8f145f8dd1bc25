#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target (fuzz/corpus/<target>/) from tests/fixtures
and the shipped models' small files. Deterministic; rerun after a fixture changes:
    python3 fuzz/make_corpus.py
Multi-file inputs are the files joined by SEP (fuzz/fuzz_util.h: kFileSeparator)."""
import json
import os
import shutil
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
FIX = os.path.join(ROOT, 'tests', 'fixtures')
OUT = os.path.join(ROOT, 'fuzz', 'corpus')
SEP = b'\n--tfp-fuzz-file--\n'

# Small checkpoints, one per family/kind (the fuzzer mutates big inputs slowly).
MODELS = ['checkpoints/gpt2_tiny', 'checkpoints/bert_tiny_f16', 'checkpoints/bert_mlm_tiny_f16',
          'checkpoints/torch_encoder_prenorm', 'checkpoints/torch_decoder', 'families/llama_bf16',
          'families/bloom_alibi', 'families/mistral_window']
CONFIGS = sorted(['checkpoints/' + d for d in os.listdir(os.path.join(FIX, 'checkpoints'))] +
                 ['families/' + d for d in os.listdir(os.path.join(FIX, 'families'))])
TOKENIZERS = ['checkpoints/gpt2_tiny/tokenizer.json', 'tokenizer/bert_tiny.json', 'tokenizer/shapes/t5.json',
              'tokenizer/shapes/mistral.json', 'tokenizer/shapes/word_level.json',
              'tokenizer/shapes/unigram_byte_fallback.json', 'tokenizer/shapes/neox.json']
JSON_MODELS = ['checkpoints/bert_tiny_f16', 'checkpoints/torch_encoder_prenorm', 'families/mistral_window']
JSON_TOKENIZERS = ['tokenizer/bert_tiny.json', 'tokenizer/shapes/word_level.json']
# fuzz_tokenize.cpp's list, in its order (the first input byte picks one).
N_TOKENIZE = 10
TEXTS = [b'Hello, world! The quick brown fox.', 'caf\u00e9 na\u00efve \u4e2d\u6587 \U0001F642 \u00bd'.encode(),
         b'<s>[CLS] <|endoftext|> [SEP]</s> [MASK]', b'  leading   spaces\ttabs\nnew\r\nlines  ',
         b'12345 3.14 1,000,000', b'\xff\xfe invalid \xc3', 'e\u0301 \ufb01 \u2460 \uff21'.encode()]


def read(rel):
    with open(os.path.join(FIX, rel), 'rb') as f:
        return f.read()


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def tensor_list(st):
    n = struct.unpack('<Q', st[:8])[0]
    header = json.loads(st[8:8 + n])
    return '\n'.join(f"{k} {' '.join(str(d) for d in v['shape'])}".rstrip()
                     for k, v in header.items() if k != '__metadata__').encode() + b'\n'


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for rel in ['checkpoints/torch_encoder_prenorm/inputs.safetensors', 'checkpoints/torch_decoder/inputs.safetensors',
                'checkpoints/bert_tiny_f16/model.safetensors', 'families/llama_bf16/model.safetensors']:
        write('fuzz_safetensors', rel.replace('/', '_'), read(rel))
    write('fuzz_safetensors', 'two_shards', read('checkpoints/torch_decoder/inputs.safetensors') + SEP +
          read('checkpoints/torch_transformer/inputs.safetensors'))
    for rel in CONFIGS:
        if not os.path.exists(os.path.join(FIX, rel, 'config.json')):
            continue
        cfg = read(rel + '/config.json')
        write('fuzz_config', rel.replace('/', '_'), cfg + SEP + tensor_list(read(rel + '/model.safetensors')))
    for m in sorted(os.listdir(os.path.join(ROOT, 'models'))):
        p = os.path.join(ROOT, 'models', m, 'config.json')
        if os.path.exists(p):
            with open(p, 'rb') as f:
                write('fuzz_config', 'model_' + m, f.read())
    for rel in TOKENIZERS:
        write('fuzz_tokenizer_json', rel.replace('/', '_'), read(rel))
    for i in range(N_TOKENIZE):
        for j, text in enumerate(TEXTS):
            if (i + j) % 3 == 0 or j == 0:
                write('fuzz_tokenize', f'tok{i}_text{j}', bytes([i]) + text)
    for rel in MODELS:
        write('fuzz_model_forward', rel.replace('/', '_'),
              read(rel + '/config.json') + SEP + read(rel + '/model.safetensors') + SEP + b'\x01\x02\x03hello')
    # The structure-aware JSON targets (issue 32): a few small seeds replayed by npm test; the
    # fuzzer's full seed set (every fixture and shipped model) is written at run time by
    # tools/fuzz.sh (fuzz/json_seeds.py).
    for rel in JSON_MODELS:
        seed = read(rel + '/config.json') + SEP + read(rel + '/model.safetensors') + SEP + b'\x01\x02\x03hello'
        write('fuzz_json_config', rel.replace('/', '_'), seed)
        write('fuzz_json_safetensors', rel.replace('/', '_'), seed)
    for rel in JSON_TOKENIZERS:
        write('fuzz_json_tokenizer', rel.replace('/', '_'), read(rel))


if __name__ == '__main__':
    main()
