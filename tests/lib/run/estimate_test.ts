import assert from "node:assert/strict";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  dollars,
  estimateLines,
  estimateRun,
  MIN_OUTPUT_TOKENS,
  TURN_OVERHEAD_TOKENS,
} from "../../../lib/run/estimate.ts";

const PRICE = { input_per_mtok: 1_000_000, output_per_mtok: 2_000_000 }; // $1 / $2 a token

Deno.test("estimate: jobs, call ranges and the documented token rule", () => {
  const estimate = estimateRun(
    [
      {
        name: "one",
        modelId: "m:a",
        pricing: PRICE,
        calls: { min: 1, max: 1 },
        fixedChars: 36,
        maxOutputTokens: 10,
      },
      {
        name: "agent",
        modelId: "m:b",
        pricing: PRICE,
        calls: { min: 1, max: 3 },
        fixedChars: 36,
        maxOutputTokens: null,
      },
    ],
    [{ question: "abcd" }, { question: "abcdefghijkl" }], // mean 8 characters
    { repeats: 2, maxOutputChars: 400 },
  );
  assert.equal(estimate.jobs, 8);
  const fixed = Math.ceil((36 + 8) / 4); // 11 tokens
  const runs = 4;
  const [one, agent] = estimate.perSystem;
  assert.deepEqual(one.costUsd, {
    min: runs * (fixed + 2 * MIN_OUTPUT_TOKENS),
    max: runs * (fixed + 2 * 10),
  });
  const turn = 100 + TURN_OVERHEAD_TOKENS;
  const out = 2 * DEFAULT_MAX_OUTPUT_TOKENS;
  assert.deepEqual(agent.costUsd, {
    min: runs * (fixed + 2 * MIN_OUTPUT_TOKENS),
    max: runs * ((fixed + out) + (fixed + turn + out) + (fixed + 2 * turn + out)),
  });
  assert.equal(estimate.costUsd.min, one.costUsd.min + agent.costUsd.min);
  const lines = estimateLines(estimate);
  assert.equal(lines[0], "plan: 2 systems × 2 questions × 2 repeats = 8 runs");
  assert.match(lines[1], /^ {2}one \(m:a\): 1 model call a question, \$/);
  assert.match(lines[2], /^ {2}agent \(m:b\): 1–3 model calls a question, \$/);
});

Deno.test("estimate: dollar figures keep two significant digits below $1", () => {
  assert.equal(dollars(0), "$0");
  assert.equal(dollars(0.000123456), "$0.00012");
  assert.equal(dollars(12.345), "$12.35");
});

Deno.test("estimate: a system that makes no model call (retrieval_only) costs nothing", async () => {
  const { retrievalOnly } = await import("../../../systems/retrieval_only.ts");
  const { modelCallsOf } = await import("../../../systems/system.ts");
  assert.deepEqual(modelCallsOf(retrievalOnly, {}), { min: 0, max: 0 });
  const estimate = estimateRun(
    [{
      name: "r",
      modelId: "m",
      pricing: PRICE,
      calls: { min: 0, max: 0 },
      fixedChars: 100,
      maxOutputTokens: null,
    }],
    [{ question: "q" }],
    { repeats: 1, maxOutputChars: 400 },
  );
  assert.deepEqual(estimate.costUsd, { min: 0, max: 0 });
  // No model is named or estimated for it.
  assert.equal(estimateLines(estimate)[1], "  r: no model call");
});
