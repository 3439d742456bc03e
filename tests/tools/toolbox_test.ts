import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define_tool.ts";
import { createInProcessHost } from "../../tools/host.ts";
import { createToolbox, toolMessageText } from "../../tools/toolbox.ts";
import { corpusOf } from "../support/tool_context.ts";
import { PATIENCE_MS } from "../support/wait.ts";

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

/** A toolbox over one tool whose host never answers, recording the signal each call gets. */
function hangingToolbox(timeoutMs: number) {
  const signals: AbortSignal[] = [];
  const host = {
    call: (_call: unknown, callSignal: AbortSignal) => {
      signals.push(callSignal);
      return new Promise<never>(() => {});
    },
    endQuestion() {},
    close: () => Promise.resolve(),
  };
  const box = createToolbox([{
    name: "hang",
    description: "",
    sideEffects: "none",
    parameters: {},
    options: {},
    timeoutMs,
    host,
  }], { max_output_chars: 100 });
  return { box, signals };
}

Deno.test("toolbox: a call that outlives its tool's timeout ends as a timeout error and the host's signal is aborted", async () => {
  const { box, signals } = hangingToolbox(100);
  const started = performance.now();
  const { result } = await box.session("q").execute("hang", "{}", signal);
  assert.ok(performance.now() - started >= 95, "not before the timeout");
  assert.equal(
    `${result.error?.kind}: ${result.error?.message}`,
    "timeout: The tool did not finish within 0.1 s and was stopped. Try simpler arguments.",
  );
  assert.equal(signals.length, 1);
  assert.equal(signals[0].aborted, true);
  assert.equal((signals[0].reason as DOMException).name, "TimeoutError");
});

Deno.test("toolbox: the question's signal aborting reaches the host's signal", async () => {
  const { box, signals } = hangingToolbox(200);
  const question = new AbortController();
  const pending = box.session("q").execute("hang", "{}", question.signal);
  await Promise.resolve();
  question.abort(new Error("question over"));
  assert.equal(signals[0].aborted, true);
  assert.equal((signals[0].reason as Error).message, "question over");
  await pending; // ends at the tool's own deadline, 200 ms on
});

Deno.test("toolbox: a finished call's deadline keeps no process alive", async () => {
  // A tool timeout of an hour: the process must end as soon as its work does.
  const script = `
    import { createToolbox } from ${
    JSON.stringify(new URL("../../tools/toolbox.ts", import.meta.url).href)
  };
    const host = { call: () => Promise.resolve({ output: "done" }), endQuestion() {}, close: () => Promise.resolve() };
    const box = createToolbox([{ name: "t", description: "", sideEffects: "none", parameters: {},
      options: {}, timeoutMs: 3_600_000, host }], { max_output_chars: 100 });
    const { result } = await box.session("q").execute("t", "{}", new AbortController().signal);
    console.log(result.output);
  `;
  // Killed by the guard, it would fail: a process waiting for the hour-long deadline.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-read", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(PATIENCE_MS),
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const { success, stdout, stderr } = await out.output();
  assert.ok(success, new TextDecoder().decode(stderr));
  assert.equal(new TextDecoder().decode(stdout).trim(), "done");
});
