import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define_tool.ts";
import { createInProcessHost } from "../../tools/host.ts";
import { createToolbox, toolMessageText } from "../../tools/toolbox.ts";
import { corpusOf } from "../support/tool_context.ts";

const long = defineTool({
  name: "long",
  description: "Returns n characters.",
  parameters: z.strictObject({ n: z.int().describe("How many") }),
  sideEffects: "none",
  run: ({ n }) => "x".repeat(n),
});

function session(maxOutputChars = 100) {
  const host = createInProcessHost([long], { corpus: corpusOf([]), now: "2026-01-01" });
  return createToolbox([{
    name: "long",
    description: long.description,
    sideEffects: "none",
    parameters: {},
    options: {},
    timeoutMs: 1000,
    host,
  }], { max_output_chars: maxOutputChars }).session("q");
}

const signal = new AbortController().signal;

Deno.test("toolbox: output over max_output_chars is cut and flagged truncated; shorter output is not", async () => {
  const cut = await session().execute("long", '{"n": 250}', signal);
  assert.equal(cut.result.truncated, true);
  assert.equal(cut.result.output, "x".repeat(100) + "\n[output cut at 100 characters]");
  const whole = await session().execute("long", '{"n": 100}', signal);
  assert.equal(whole.result.truncated, false);
  assert.equal(whole.result.output.length, 100);
});

const failures: Array<[string, string, string, string]> = [
  [
    "an unknown tool",
    "lng",
    "{}",
    'unknown_tool: No tool named "lng" — did you mean "long"? Available: long.',
  ],
  [
    "a tool named like an Object property",
    "constructor",
    "{}",
    'unknown_tool: No tool named "constructor" Available: long.',
  ],
  [
    "arguments that are not JSON",
    "long",
    "{n: 1}",
    "invalid_args: Arguments must be a JSON object; could not parse them (Expected property name or '}' in JSON at position 1 (line 1 column 2)).",
  ],
  [
    "arguments that are a list",
    "long",
    "[1]",
    "invalid_args: Arguments must be a JSON object of named parameters.",
  ],
  [
    "arguments nested 10,000 deep",
    "long",
    `{"n": ${"[".repeat(10_000)}1${"]".repeat(10_000)}}`,
    "invalid_args: Arguments are nested more than 100 levels deep; no tool takes such arguments. Send a flat JSON object of named parameters.",
  ],
  [
    "arguments nested 100 deep (the most taken): checked by the tool's schema",
    "long",
    `{"n": ${"[".repeat(99)}1${"]".repeat(99)}}`,
    'invalid_args: Invalid arguments for long: "n": Invalid input: expected number, received array.',
  ],
  [
    "a missing argument",
    "long",
    "{}",
    'invalid_args: Invalid arguments for long: missing required argument "n".',
  ],
  [
    "a wrongly typed argument",
    "long",
    '{"n": "ten"}',
    'invalid_args: Invalid arguments for long: "n": Invalid input: expected number, received string.',
  ],
  [
    "an unknown argument",
    "long",
    '{"n": 1, "m": 2}',
    'invalid_args: Invalid arguments for long: unknown argument "m" (expected: n).',
  ],
];

for (const [name, tool, args, expected] of failures) {
  Deno.test(`toolbox: ${name} is an error result, never a throw`, async () => {
    const { result } = await session().execute(tool, args, signal);
    assert.equal(`${result.error?.kind}: ${result.error?.message}`, expected);
    assert.equal(result.output, "");
    assert.equal(
      toolMessageText(result),
      `Error (${result.error!.kind}): ${result.error!.message}`,
    );
  });
}

Deno.test("toolbox: empty arguments mean {} and null optional arguments are dropped", async () => {
  const opt = defineTool({
    name: "opt",
    description: "Optional argument.",
    parameters: z.strictObject({ x: z.string().optional().describe("maybe") }),
    sideEffects: "none",
    run: ({ x }) => `x=${x ?? "none"}`,
  });
  const host = createInProcessHost([opt], { corpus: corpusOf([]), now: "2026-01-01" });
  const box = createToolbox([{
    name: "opt",
    description: "",
    sideEffects: "none",
    parameters: {},
    options: {},
    timeoutMs: 1000,
    host,
  }], { max_output_chars: 100 });
  assert.equal((await box.session("q").execute("opt", "", signal)).result.output, "x=none");
  assert.equal(
    (await box.session("q").execute("opt", '{"x": null}', signal)).result.output,
    "x=none",
  );
});
