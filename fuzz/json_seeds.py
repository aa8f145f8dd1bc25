#!/usr/bin/env python3
"""Seeds of the structure-aware JSON targets (issue 32), written by tools/fuzz.sh at run time
into build/fuzz/seeds/<target>/ (not committed: they follow the fixtures and models):
  fuzz_json_config, fuzz_json_safetensors: every config.json of tests/fixtures/** and
      models/** with its model.safetensors, joined by the separator (fuzz/fuzz_util.h), plus
      a few input bytes; a checkpoint that would pass the size limit keeps its header only
      (the config is still parsed and checked against the tensors' names and shapes);
  fuzz_json_tokenizer: every tokenizer.json there (and tests/fixtures/tokenizer/**.json
      files that are tokenizers: a "model" object).
    python3 fuzz/json_seeds.py OUT_DIR [MAX_BYTES]"""
import json
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
SEP = b'\n--tfp-fuzz-file--\n'


def files(name=None, ext=None):
    for top in ('tests/fixtures', 'models'):
        for d, _, fs in sorted(os.walk(os.path.join(ROOT, top))):
            for f in sorted(fs):
                if (name and f == name) or (ext and f.endswith(ext)):
                    yield os.path.join(d, f)


def label(path):
    return os.path.relpath(path, ROOT).replace('/', '_').replace('.', '_')


def header_only(st):
    n = struct.unpack('<Q', st[:8])[0]
    return st[:8 + n]


def main():
    out, limit = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 20
    counts = {}

    def write(target, name, data):
        if len(data) > limit:
            return
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)
        counts[target] = counts.get(target, 0) + 1

    for cfg in files(name='config.json'):
        d = os.path.dirname(cfg)
        with open(cfg, 'rb') as f:
            config = f.read()
        st_path = os.path.join(d, 'model.safetensors')
        st = b''
        if os.path.exists(st_path):
            with open(st_path, 'rb') as f:
                st = f.read()
            if len(config) + len(st) + 64 > limit:
                st = header_only(st)
        seed = config + SEP + st + SEP + b'\x01\x02\x03hello'
        write('fuzz_json_config', label(d), seed)
        if st:
            write('fuzz_json_safetensors', label(d), seed)
    seen = set()
    for p in list(files(name='tokenizer.json')) + list(files(ext='.json')):
        if p in seen or ('/tokenizer/' not in p and not p.endswith('tokenizer.json')):
            continue
        seen.add(p)
        with open(p, 'rb') as f:
            data = f.read()
        try:
            doc = json.loads(data)
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get('model'), dict):
            write('fuzz_json_tokenizer', label(p), data)
    print(' '.join(f'{t}: {n} seeds' for t, n in sorted(counts.items())))


if __name__ == '__main__':
    main()
