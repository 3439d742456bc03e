import assert from "node:assert/strict";
import type { PlannedSystem } from "../../../lib/run/runner.ts";
import { runQuestions } from "../../../lib/run/runner.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { frameworkSystem } from "../../../systems/frameworks/framework_system.ts";
import type { FrameworkManifest } from "../../../systems/frameworks/registry.ts";
import { fakeSearch, modelOf, question, toolboxOf } from "../../support/fixtures.ts";
import { assertNoFrameworkProcess } from "../../support/frameworks.ts";

const MISBEHAVING: FrameworkManifest = {
  type: "misbehaving",
  description: "a framework that misbehaves on purpose",
  packages: ["misbehaving@0.0.0"],
  adapter: new URL("../../fixtures/frameworks/misbehaving.ts", import.meta.url),
  permissions: [],
  env: {},
};

/** Searches once, then answers. */
const model = modelOf((request) =>
  request.messages.some((m) => m.role === "tool") || request.tools.length === 0
    ? { content: "It is 330 metres." }
    : { tool_calls: [{ id: "c1", name: "search", arguments: '{"query":"tower"}' }] }
);

async function run(
  texts: string[],
  keys: Record<string, unknown> = {},
  timeoutMs = 3000,
): Promise<Map<string, QuestionResult>> {
  const def = frameworkSystem(MISBEHAVING, { cancelAckMs: 500 });
  const options = def.options.parse({ type: "misbehaving", ...keys });
  const instance = def.start!(options, { name: "misbehaving" });
  const system: PlannedSystem = {
    name: "misbehaving",
    def: { ...def, run: instance.run },
    options,
    toolbox: toolboxOf([fakeSearch]),
    retriever: null,
    model,
    ready: instance.ready,
  };
  try {
    const results: QuestionResult[] = [];
    await runQuestions({
      systems: [system],
      questions: texts.map((text, i) => question(`q${i}`, text)),
      repeats: 1,
      concurrency: 1,
      questionTimeoutMs: timeoutMs,
      maxCostUsd: null,
      done: new Set(),
      sink: (r) => {
        results.push(r);
        return Promise.resolve();
      },
      reporter: { onResult() {} },
      signal: new AbortController().signal,
    });
    const texts_ = new Map(texts.map((text, i) => [`q${i}`, text]));
    return new Map(results.map((r) => [texts_.get(r.question_id)!, r]));
  } finally {
    await instance.close();
    await assertNoFrameworkProcess();
  }
}

Deno.test("a framework that throws, returns nothing, exits, breaks the protocol or offers a foreign tool fails that question alone, with a system error", async () => {
  const results = await run(["throw", "nothing", "exit", "garbage", "foreign", "fine"]);
  const error = (word: string) => results.get(word)?.error;
  assert.deepEqual(error("throw"), {
    kind: "system",
    message: "misbehaving failed: TypeError: the framework broke",
  });
  assert.match(error("nothing")!.message, /ended without an answer after a reply with tool calls/);
  assert.equal(error("nothing")!.kind, "system");
  assert.match(error("exit")!.message, /the misbehaving process failed: its process exited/);
  assert.match(error("garbage")!.message, /wrote a malformed protocol line/);
  assert.match(error("foreign")!.message, /offered the model a tool it was not given: "rm_rf"/);
  // The process was started again, and the next question ran as usual.
  const fine = results.get("fine")!;
  assert.equal(fine.error, null);
  assert.equal(fine.answer, "It is 330 metres.");
  assert.equal(fine.failure_label, null);
  assert.equal(results.get("throw")!.failure_label, "other");
});

Deno.test("a framework that hangs or spins is stopped at the question timeout; a spinning process is killed and replaced", async () => {
  // The process that replaces the killed one loads before "fine again" starts its clock
  // (restart_test.ts), so that question's time limit holds no start-up.
  const results = await run(["hang", "fine", "spin", "fine again"], {}, 3000);
  for (const word of ["hang", "spin"]) {
    const line = results.get(word)!;
    assert.equal(line.error?.kind, "timeout", word);
    assert.equal(line.failure_label, "budget_exhausted", word);
  }
  for (const word of ["fine", "fine again"]) {
    assert.deepEqual([results.get(word)!.error, results.get(word)!.answer], [
      null,
      "It is 330 metres.",
    ], word);
  }
});

Deno.test("a framework with no cap of its own is ended by ragbench's budget; asking again after the final answer is an error", async () => {
  const results = await run(["again"], { max_steps: 3 });
  const line = results.get("again")!;
  assert.equal(line.error?.kind, "system");
  assert.match(line.error!.message, /asked the model again after its final answer/);
  const models = line.steps.filter((s) => s.type === "model");
  assert.equal(models.length, 3);
  assert.equal(models.at(-1)!.type === "model" && models.at(-1)!.final, true);
});
