// src/ folders depend in one direction (DESIGN.md): kernels on core; nn on kernels; io
// and tokenizer on core; model on nn, io and tokenizer; inspect and train on model; api
// on what lies below it; cli on api. Here: the folder graph read from every
// #include "folder/..." in src/, and no cycle in it (a cycle names its folders and one
// file that makes each edge).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const SRC = new URL('../../src/', import.meta.url);

function includeGraph() {
  const edges = new Map();  // from → Map(to → example file)
  for (const dir of readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of readdirSync(new URL(`${dir.name}/`, SRC), { recursive: true })) {
      if (!/\.(h|cpp)$/.test(f)) continue;
      const text = readFileSync(new URL(`${dir.name}/${f}`, SRC), 'utf8');
      for (const [, to] of text.matchAll(/^#include "([a-z_]+)\//gm)) {
        if (to === dir.name) continue;
        if (!edges.has(dir.name)) edges.set(dir.name, new Map());
        if (!edges.get(dir.name).has(to)) edges.get(dir.name).set(to, `${dir.name}/${f}`);
      }
    }
  }
  return edges;
}

/** A cycle as [a, b, ..., a], or null. */
function findCycle(edges) {
  const state = new Map();  // 1 = on the path, 2 = done
  const path = [];
  const visit = (n) => {
    state.set(n, 1);
    path.push(n);
    for (const m of edges.get(n)?.keys() ?? []) {
      if (state.get(m) === 1) return [...path.slice(path.indexOf(m)), m];
      if (!state.has(m)) {
        const c = visit(m);
        if (c) return c;
      }
    }
    path.pop();
    state.set(n, 2);
    return null;
  };
  for (const n of edges.keys()) {
    if (!state.has(n)) {
      const c = visit(n);
      if (c) return c;
    }
  }
  return null;
}

test('src/ folders include each other in one direction only', () => {
  const edges = includeGraph();
  assert.ok(edges.get('model')?.has('nn'), 'the graph was read (model includes nn)');
  const cycle = findCycle(edges);
  const why = cycle && cycle.slice(1).map((to, i) => `${cycle[i]} -> ${to} (${edges.get(cycle[i]).get(to)})`).join(', ');
  assert.equal(cycle, null, `include cycle: ${why}`);
});

test('the cycle check finds a cycle', () => {
  const edges = new Map([['a', new Map([['b', 'a/x.h']])], ['b', new Map([['a', 'b/y.h']])]]);
  assert.deepEqual(findCycle(edges), ['a', 'b', 'a']);
});
