import assert from "node:assert/strict";
import { canonicalJson } from "../../../lib/util/canonical_json.ts";
import { createRng } from "../../../lib/util/prng.ts";

/** JSON.stringify over a copy with sorted keys: what canonical JSON must equal (recursive; tests only). */
function reference(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

const KEYS = [
  "a",
  "b",
  "B",
  "é",
  "日本",
  "__proto__",
  "",
  "10",
  "2",
  "01",
  "4294967295",
  "4294967294",
  "-1",
  "1.5",
  "\ud800",
  "a\u0000b",
  "z z",
];
const STRINGS = ["", "x", 'quote " and \\ slash', "line\nbreak", "\ud83c\udfaf", "\udfff", "ü"];
const NUMBERS = [0, -0, 1, -1.5, 1e21, 1e-7, 123456789.125, NaN, Infinity];

function randomValue(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  const r = next();
  if (depth > 4 || r < 0.35) {
    return pick<unknown>([
      null,
      true,
      false,
      undefined,
      pick(STRINGS),
      pick(NUMBERS),
      new Date(Date.UTC(2026, 0, 1)),
    ]);
  }
  if (r < 0.65) {
    return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  }
  const out: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--) {
    Object.defineProperty(out, pick(KEYS), {
      value: randomValue(next, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

Deno.test("canonical JSON is JSON.stringify with sorted keys, on 3,000 random values", () => {
  const next = createRng(20_261_201);
  for (let i = 0; i < 3000; i++) {
    const value = randomValue(next, 0);
    assert.equal(canonicalJson(value), reference(value) ?? "null", JSON.stringify(value));
  }
});

Deno.test("canonical JSON sorts keys at every depth, keeps __proto__ and drops undefined members", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [{ z: 1, y: undefined }, undefined], c: null } }),
    '{"a":{"c":null,"d":[{"z":1},null]},"b":1}',
  );
  assert.equal(
    canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":2}}')),
    '{"__proto__":{"x":2},"b":1}',
  );
  assert.equal(canonicalJson(undefined), "null");
});

Deno.test("canonical JSON writes a value nested 100,000 deep", () => {
  const depth = 100_000;
  const value = JSON.parse('{"k":['.repeat(depth) + "1" + "]}".repeat(depth));
  assert.equal(canonicalJson(value), '{"k":['.repeat(depth) + "1" + "]}".repeat(depth));
});

Deno.test("canonical JSON refuses cycles and bigints, and non-finite numbers when strict", () => {
  const loop: Record<string, unknown> = {};
  loop.self = { back: loop };
  assert.throws(() => canonicalJson(loop), /cycle/);
  assert.throws(() => canonicalJson({ n: 1n }), TypeError);
  assert.equal(canonicalJson({ a: NaN, b: -Infinity }), '{"a":null,"b":null}');
  assert.throws(() => canonicalJson({ a: NaN }, { strictNumbers: true }), /non-finite number/);
  // The same object twice, side by side, is not a cycle.
  const shared = { x: 1 };
  assert.equal(canonicalJson([shared, { y: shared }]), '[{"x":1},{"y":{"x":1}}]');
});
