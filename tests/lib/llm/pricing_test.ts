import assert from "node:assert/strict";
import { costOf } from "../../../lib/llm/model.ts";
import { isKnownModel, knownModelNames, pricingFor } from "../../../lib/llm/pricing.ts";

Deno.test("pricingFor returns the list price of each known model", () => {
  const table: [string, number, number][] = [
    ["gpt-4o-mini", 0.15, 0.60],
    ["gpt-4o", 2.50, 10.00],
    ["gpt-4.1", 2.00, 8.00],
    ["gpt-4.1-mini", 0.40, 1.60],
    ["gpt-4.1-nano", 0.10, 0.40],
    ["o4-mini", 1.10, 4.40],
  ];
  for (const [name, input, output] of table) {
    assert.deepEqual(pricingFor(name), { input_per_mtok: input, output_per_mtok: output }, name);
    assert.equal(isKnownModel(name), true, name);
  }
  assert.deepEqual(knownModelNames(), table.map(([name]) => name));
});

Deno.test("an unknown model costs 0/0 and is not known", () => {
  for (const name of ["llama3.1:8b", "GPT-4o-mini", "gpt-4o-mini-2024-07-18", "", "constructor"]) {
    assert.deepEqual(pricingFor(name), { input_per_mtok: 0, output_per_mtok: 0 }, name);
    assert.equal(isKnownModel(name), false, name);
  }
});

Deno.test("an override replaces either price, for known and unknown models", () => {
  const cases: [string, Parameters<typeof pricingFor>[1], number, number][] = [
    ["gpt-4o-mini", { input_per_mtok: 0.075 }, 0.075, 0.60],
    ["gpt-4o-mini", { output_per_mtok: 0.30 }, 0.15, 0.30],
    ["gpt-4o", { input_per_mtok: 0, output_per_mtok: 0 }, 0, 0],
    ["my-local-model", { input_per_mtok: 1, output_per_mtok: 2 }, 1, 2],
    ["my-local-model", { output_per_mtok: 3 }, 0, 3],
    ["gpt-4.1", {}, 2.00, 8.00],
  ];
  for (const [name, override, input, output] of cases) {
    assert.deepEqual(pricingFor(name, override), {
      input_per_mtok: input,
      output_per_mtok: output,
    });
  }
});

Deno.test("a negative or non-finite override is refused with the field named", () => {
  const cases: [Parameters<typeof pricingFor>[1], string][] = [
    [{ input_per_mtok: -1 }, "Price input_per_mtok must be a finite number >= 0, got -1"],
    [
      { output_per_mtok: Number.NaN },
      "Price output_per_mtok must be a finite number >= 0, got NaN",
    ],
    [
      { input_per_mtok: Number.POSITIVE_INFINITY },
      "Price input_per_mtok must be a finite number >= 0, got Infinity",
    ],
  ];
  for (const [override, message] of cases) {
    assert.throws(() => pricingFor("gpt-4o", override), { name: "RangeError", message });
  }
});

Deno.test("pricingFor returns a fresh object the caller may change", () => {
  const first = pricingFor("gpt-4o-mini");
  first.input_per_mtok = 99;
  assert.equal(pricingFor("gpt-4o-mini").input_per_mtok, 0.15);
});

Deno.test("a million input and output tokens of gpt-4o-mini cost 0.75 USD", () => {
  const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000 };
  assert.equal(costOf(usage, pricingFor("gpt-4o-mini")), 0.75);
});
