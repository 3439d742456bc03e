import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { plainYaml } from "../../../lib/util/plain_yaml.ts";
import { createRng } from "../../../lib/util/prng.ts";

const ROOT = new URL("../../../", import.meta.url);

/** Strings on both sides of every rule the writer must follow. */
const TRICKY = [
  "",
  " ",
  "a",
  "a b",
  "a  b",
  "a: b",
  "a:b",
  "a:",
  ":a",
  "-",
  "- a",
  "-a",
  "a -",
  "?",
  "? a",
  "?a",
  "#a",
  "a #b",
  "a#b",
  "'a",
  "a'b",
  '"a',
  'a"b',
  "a,b",
  ",a",
  "[a",
  "a[b]",
  "{a}",
  "&a",
  "*a",
  "!a",
  "|a",
  ">a",
  "%a",
  "@a",
  "`a",
  "true",
  "True",
  "tRue",
  "false",
  "null",
  "Null",
  "~",
  "nULL",
  "0",
  "01",
  "-1",
  "+1",
  "1.5",
  "1.",
  ".5",
  "1e5",
  "1E-5",
  "1e",
  "0x1F",
  "0x",
  "0o17",
  "0o8",
  ".inf",
  "-.inf",
  ".nan",
  "1_000",
  "2026-01-01",
  "0.1.0",
  "12:30:00",
  "---",
  "--- a",
  "...",
  "a...",
  "yes",
  "no",
  "<<",
  "a\\b",
  "http://x.y/z?q=1&r=2",
  "a ",
  " a",
  "a\tb",
  "a\nb",
  "é",
  "a—b",
  "\u0001",
  "$HOME",
  "${VAR}",
  "mock:gpt-4o-mini",
  "--a",
  "a- b",
  "+.5",
  "1.2.3",
  "x".repeat(1100),
];
const SAFE = ["abc", "x y", "mock:m", "a-b", "p/q.r", "A_B", "v1.2", "hello world", "x=1"];

function generator(seed: number) {
  const rnd = createRng(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)];
  const text = (): string => {
    if (rnd() < 0.4) return pick(TRICKY);
    if (rnd() < 0.5) return pick(SAFE);
    let s = "";
    for (let i = Math.floor(rnd() * 8); i > 0; i--) {
      s += String.fromCharCode(rnd() < 0.92 ? 32 + Math.floor(rnd() * 95) : pick([9, 10, 0xe9]));
    }
    return s;
  };
  const scalar = (): unknown =>
    pick([
      () => null,
      () => rnd() < 0.5,
      () => Math.floor(rnd() * 2000) - 1000,
      () => rnd() * 10 - 5,
      () => rnd() * 1e-7,
      () => rnd() * 1e22,
      text,
      text,
      text,
    ])();
  const node = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.5) return scalar();
    if (r < 0.75) return Array.from({ length: Math.floor(rnd() * 4) }, () => node(depth + 1));
    const map: Record<string, unknown> = {};
    for (let i = Math.floor(rnd() * 4); i > 0; i--) map[text()] = node(depth + 1);
    return map;
  };
  return () => {
    const doc: Record<string, unknown> = {};
    for (let i = 1 + Math.floor(rnd() * 4); i > 0; i--) doc[text()] = node(1);
    return JSON.parse(JSON.stringify(doc));
  };
}

Deno.test("plainYaml writes byte for byte what the yaml library writes, for every document it takes on", () => {
  const next = generator(8);
  let written = 0;
  for (let i = 0; i < 30_000; i++) {
    const doc = next();
    const ours = plainYaml(doc);
    if (ours === null) continue;
    written++;
    assert.equal(ours, stringify(doc, { lineWidth: 0 }), JSON.stringify(doc));
  }
  assert.ok(written > 3000, `only ${written} documents were written plain`);
});

Deno.test("plainYaml writes the bundled configs as the yaml library does", async () => {
  for await (const entry of Deno.readDir(new URL("configs/", ROOT))) {
    const value = parse(await Deno.readTextFile(new URL(`configs/${entry.name}`, ROOT)));
    assert.equal(plainYaml(value), stringify(value, { lineWidth: 0 }), entry.name);
  }
});

Deno.test("plainYaml lays out nested and empty mappings and sequences as the library does", () => {
  const doc = {
    a: [],
    b: {},
    c: [[1, 2], [], {}, { x: 1, y: [3, { z: [] }] }],
    d: { e: [{ f: 1 }, [{ g: 2 }]], h: null, i: true, j: "" },
    k: [[[]]],
    l: 1e-7,
    m: -0.5,
  };
  assert.equal(
    plainYaml(doc),
    "a: []\nb: {}\nc:\n  - - 1\n    - 2\n  - []\n  - {}\n  - x: 1\n    y:\n      - 3\n      - z: []\n" +
      'd:\n  e:\n    - f: 1\n    - - g: 2\n  h: null\n  i: true\n  j: ""\nk:\n  - - []\nl: 1e-7\nm: -0.5\n',
  );
  assert.equal(plainYaml(doc), stringify(doc, { lineWidth: 0 }));
});

Deno.test("plainYaml gives up on what the library would quote, escape or write otherwise", () => {
  for (
    const value of [
      "a: b",
      "true",
      "123",
      "1.5",
      "null",
      "a\nb",
      "é",
      " a",
      "a ",
      "#a",
      "- a",
      "--- a",
      "a #b",
      "a:",
    ]
  ) {
    assert.equal(plainYaml({ key: value }), null, JSON.stringify(value));
    assert.equal(plainYaml({ [value]: 1 }), null, `key ${JSON.stringify(value)}`);
  }
  assert.equal(plainYaml({ "": 1 }), null, "an empty key is written as an explicit key");
  assert.equal(plainYaml({ ["k".repeat(1025)]: 1 }), null, "a long key is written explicitly");
  assert.equal(plainYaml({ n: Number.NaN }), null);
  assert.equal(plainYaml({ d: new Date(0) }), null);
  assert.equal(plainYaml([1, 2]), null, "only a mapping at the top");
  assert.equal(plainYaml({}), null);
});
