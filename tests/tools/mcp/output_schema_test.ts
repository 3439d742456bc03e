import assert from "node:assert/strict";
import {
  compileOutputSchema,
  MAX_CHECK_STEPS,
  type OutputCheckResult,
} from "../../../tools/mcp/output_schema.ts";
import { re2Stats } from "../../../lib/regex/re2_instance.ts";

const LATER = () => performance.now() + 60_000;

function check(schema: unknown, value: unknown, deadline = LATER()): Promise<OutputCheckResult> {
  return compileOutputSchema(schema).check(value, deadline);
}

/** [schema, value, problem or null] */
const CASES: Array<[unknown, unknown, RegExp | null]> = [
  [{ type: "object" }, {}, null],
  [{ type: "object" }, [], /the result must be object, not array/],
  [{ type: ["string", "null"] }, null, null],
  [{ type: "integer" }, 1.5, /must be integer, not number/],
  [{ const: { a: [1, 2] } }, { a: [1, 2] }, null],
  [{ const: { a: [1, 2] } }, { a: [2, 1] }, /constant/],
  [{ enum: ["x", { b: 1, a: 2 }] }, { a: 2, b: 1 }, null],
  [{ enum: ["x"] }, "y", /one of the schema's 1 values/],
  [{ minimum: 2, exclusiveMaximum: 5 }, 5, /less than 5/],
  [{ minimum: 2, exclusiveMinimum: true }, 2, /greater than 2/],
  [{ multipleOf: 0.1 }, 0.3, null],
  [{ multipleOf: 2 }, 3, /multiple of 2/],
  [{ minLength: 2, maxLength: 3 }, "\u{1F600}\u{1F600}", null],
  [{ maxLength: 3 }, "abcd", /at most 3 characters/],
  [{ pattern: "^[a-z]+\\d$" }, "abc1", null],
  [{ pattern: "^[a-z]+\\d$" }, "abc", /does not match the schema's pattern/],
  [{ pattern: "b" }, "abc", null],
  // Look-ahead: RE2 cannot run it, so the pattern is not checked.
  [{ pattern: "^(?=a)b" }, "xyz", null],
  [{ items: { type: "number" }, minItems: 1 }, [1, "2"], /at \/1 must be number/],
  [{ prefixItems: [{ type: "string" }], items: false }, ["a", 1], /at \/1 is not allowed/],
  [{ items: [{ type: "string" }], additionalItems: { type: "number" } }, ["a", 1], null],
  [{ uniqueItems: true }, [{ a: 1, b: 2 }, { b: 2, a: 1 }], /same item twice \(item 1\)/],
  [{ contains: { const: 3 }, maxContains: 1 }, [3, 3], /at most 1 matching/],
  [{ contains: { const: 3 } }, [1, 2], /at least 1 matching/],
  [
    { properties: { a: { type: "string" } }, required: ["a", "b"] },
    { a: "x" },
    /lacks the required property "b"/,
  ],
  [
    { properties: { a: { type: "string" } }, additionalProperties: false },
    { a: "x", c: 1 },
    /\/c is not an allowed property/,
  ],
  [
    { patternProperties: { "^x-": { type: "number" } }, additionalProperties: false },
    { "x-a": 1 },
    null,
  ],
  [{ patternProperties: { "^x-": { type: "number" } } }, { "x-a": "1" }, /x-a must be number/],
  [{ propertyNames: { maxLength: 2 } }, { abc: 1 }, /its name does not fit propertyNames/],
  [{ dependentRequired: { a: ["b"] } }, { a: 1 }, /has "a" but lacks "b"/],
  [{ dependencies: { a: { required: ["c"] } } }, { a: 1 }, /lacks the required property "c"/],
  [{ anyOf: [{ type: "string" }, { type: "number" }] }, true, /matches none of anyOf/],
  [{ oneOf: [{ type: "number" }, { type: "integer" }] }, 1, /matches 2 of oneOf/],
  [{ not: { type: "string" } }, "s", /under not/],
  [{ if: { type: "string" }, then: { minLength: 2 }, else: { type: "number" } }, "a", /at least 2/],
  [
    { if: { type: "string" }, then: { minLength: 2 }, else: { type: "number" } },
    null,
    /must be number/,
  ],
  [
    { $defs: { n: { type: "number" } }, properties: { x: { $ref: "#/$defs/n" } } },
    { x: "1" },
    /\/x must be number/,
  ],
  [{ definitions: { "a/b": { type: "number" } }, $ref: "#/definitions/a~1b" }, 1, null],
  [{ $defs: { n: { $anchor: "num", type: "number" } }, $ref: "#num" }, "1", /must be number/],
  // A reference to nothing (or to another document) constrains nothing.
  [{ properties: { x: { $ref: "#/definitions/missing" } } }, { x: 1 }, null],
  [{ $ref: "other.json#/x" }, 1, null],
  [false, 1, /is not allowed/],
  [true, 1, null],
  // Keys that name prototype members are ordinary keys.
  [
    { properties: { constructor: { type: "number" } } },
    JSON.parse('{"constructor": "x"}'),
    /must be number/,
  ],
  [{ required: ["__proto__"] }, JSON.parse('{"__proto__": 1}'), null],
  [{ required: ["toString"] }, {}, /lacks the required property "toString"/],
];

for (const [schema, value, problem] of CASES) {
  Deno.test(`output schema: ${JSON.stringify(schema)} on ${JSON.stringify(value)}`, async () => {
    const result = await check(schema, value);
    if (problem === null) assert.deepEqual(result, { ok: true });
    else {
      assert.equal(result.ok ? "ok" : result.reason, "mismatch");
      assert.match(result.ok ? "" : result.message, problem);
    }
  });
}

Deno.test("output schema: catastrophic patterns run in linear time on RE2", async () => {
  const schema = { properties: { s: { pattern: "^(a+)+$" }, t: { pattern: "^(\\w+\\s?)*$" } } };
  const bad = { s: "a".repeat(5000) + "!", t: "word ".repeat(2000) + "!" };
  const result = await check(schema, bad);
  assert.equal(result.ok ? "ok" : result.reason, "mismatch");
  assert.deepEqual(await check(schema, { s: "a".repeat(5000), t: "word ".repeat(2000) }), {
    ok: true,
  });
});

Deno.test("output schema: a match RE2 would take long on is not started", async () => {
  const nested = { pattern: "(?:[a-k]{1,40}){1,25}!" };
  const before = re2Stats().compilations;
  const result = await check(nested, "abcdefghij".repeat(200));
  assert.equal(result.ok ? "ok" : result.reason, "too_costly");
  assert.match(result.ok ? "" : result.message, /matching its patterns would take too long/);
  // Compiled once to size it, never run over the text.
  assert.ok(re2Stats().compilations - before <= 1);
  // A huge text under a small pattern, too.
  const huge = await check({ pattern: "^[a-z]+$" }, "a".repeat(3_000_000));
  assert.equal(huge.ok ? "ok" : huge.reason, "too_costly");
});

Deno.test("output schema: many patterns over many items stop at the regex budget, not after recompiling each", async () => {
  // More distinct patterns than the engine keeps compiled: each match would compile again.
  const properties = Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`p${i}`, { pattern: `^v${i}[a-z]*$` }]),
  );
  const item = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, `v${i}abc`]));
  const before = re2Stats().compilations;
  const result = await check({ items: { properties } }, Array(20_000).fill(item));
  assert.equal(result.ok ? "ok" : result.reason, "too_costly");
  assert.ok(re2Stats().compilations - before <= 2_100, "compilations are counted in the budget");
});

Deno.test("output schema: an exponential schema and a recursive $ref give up at the step budget", async () => {
  // Each level tries both branches all the way down before failing at the bottom: 2^40 steps.
  const branch = { properties: { c: { $ref: "#/$defs/n" } }, required: ["c"] };
  const schema = {
    $defs: { n: { anyOf: [branch, { ...branch, minProperties: 1 }] } },
    $ref: "#/$defs/n",
  };
  let value: unknown = {};
  for (let i = 0; i < 40; i++) value = { c: value };
  const result = await check(schema, value);
  assert.equal(result.ok ? "ok" : result.reason, "too_costly");
  assert.match(result.ok ? "" : result.message, new RegExp(`more than ${MAX_CHECK_STEPS} steps`));
  const loop = await check({ $ref: "#" }, 1);
  assert.equal(loop.ok ? "ok" : loop.reason, "too_costly");
  assert.match(loop.ok ? "" : loop.message, /nested more than 200 levels/);
});

Deno.test("output schema: a value nested deeper than the check goes gives up, without overflowing", async () => {
  const value = JSON.parse("[".repeat(50_000) + "]".repeat(50_000));
  const result = await check(
    { $defs: { a: { items: { $ref: "#/$defs/a" } } }, $ref: "#/$defs/a" },
    value,
  );
  assert.equal(result.ok ? "ok" : result.reason, "too_costly");
});

Deno.test("output schema: a check past its deadline stops with timeout", async () => {
  const result = await check(
    { items: { type: "number" } },
    Array(5000).fill(1),
    performance.now() - 1,
  );
  assert.equal(result.ok ? "ok" : result.reason, "timeout");
  // A small value is checked without looking at the clock.
  assert.deepEqual(await check({ type: "number" }, 1, performance.now() - 1), { ok: true });
});
