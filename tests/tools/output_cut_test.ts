import assert from "node:assert/strict";
import { cutOutput } from "../../tools/output_cut.ts";
import type { RawToolResult } from "../../tools/invoke.ts";
import type { JsonValue } from "../../lib/types.ts";

/** Three results of 40, 40 and 40 characters, separated by a blank line. */
function threeResults(extra: Record<string, JsonValue> = {}): RawToolResult {
  const blocks = ["a", "b", "c"].map((c) => c.repeat(40));
  return {
    output: blocks.join("\n\n"),
    data: { results: [{ doc_id: "a" }, { doc_id: "b" }, { doc_id: "c" }], ...extra },
    error: null,
    cost_usd: 0,
    result_ends: [40, 82, 124],
  };
}

Deno.test("cutOutput leaves an output within the limit as it is", () => {
  const raw = threeResults();
  const cut = cutOutput(raw, 124);
  assert.equal(cut.truncated, false);
  assert.equal(cut.output, raw.output);
  assert.deepEqual(cut.data, raw.data);
});

Deno.test("cutOutput cuts after the last whole result that fits and moves the rest to not_shown", () => {
  const cut = cutOutput(threeResults(), 100);
  assert.equal(cut.truncated, true);
  assert.equal(
    cut.output,
    `${"a".repeat(40)}\n\n${
      "b".repeat(40)
    }\n\n[output cut at 100 characters: 2 of 3 results shown]`,
  );
  assert.deepEqual(cut.data, {
    results: [{ doc_id: "a" }, { doc_id: "b" }],
    not_shown: [{ doc_id: "c" }],
  });
});

Deno.test("cutOutput keeps the data's other keys (a __proto__ key too) beside the moved results", () => {
  const extra = JSON.parse('{"__proto__": {"x": 1}, "stopped_at": 3}');
  const cut = cutOutput(threeResults(extra), 50);
  const data = cut.data as Record<string, JsonValue>;
  assert.deepEqual(Object.keys(data).sort(), ["__proto__", "not_shown", "results", "stopped_at"]);
  assert.deepEqual(Object.getOwnPropertyDescriptor(data, "__proto__")?.value, { x: 1 });
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
  assert.deepEqual(data.results, [{ doc_id: "a" }]);
});

Deno.test("cutOutput cuts inside the first result only when it alone is over the limit; the model still read its start", () => {
  const cut = cutOutput(threeResults(), 30);
  assert.equal(
    cut.output,
    `${
      "a".repeat(30)
    }\n[output cut at 30 characters: the first result is longer than the limit; 2 more not shown]`,
  );
  assert.deepEqual(cut.data, {
    results: [{ doc_id: "a" }],
    not_shown: [{ doc_id: "b" }, { doc_id: "c" }],
  });
});

Deno.test("cutOutput cuts an output without result ends by characters and leaves its data alone", () => {
  const { result_ends: _, ...raw } = threeResults();
  const cut = cutOutput(raw, 50);
  assert.equal(cut.output, `${raw.output.slice(0, 50)}\n[output cut at 50 characters]`);
  assert.deepEqual(cut.data, raw.data);
});

Deno.test("cutOutput ignores result ends that do not describe the results (a hostile tool's)", () => {
  const bad: Array<[string, unknown]> = [
    ["too few", [40, 82]],
    ["descending", [82, 40, 124]],
    ["past the output", [40, 82, 10_000]],
    ["negative", [-1, 82, 124]],
    ["not integers", [40.5, 82, 124]],
    ["not a list", "40,82,124"],
  ];
  for (const [why, ends] of bad) {
    const raw = { ...threeResults(), result_ends: ends as number[] };
    const cut = cutOutput(raw, 100);
    assert.equal(cut.output, `${raw.output.slice(0, 100)}\n[output cut at 100 characters]`, why);
    assert.deepEqual(cut.data, raw.data, why);
  }
});
