import assert from "node:assert/strict";
import { noteChildExit } from "../../../lib/util/child_registry.ts";
import { type PlannedSystem, runQuestions } from "../../../lib/run/runner.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { systemBaseSchema } from "../../../lib/config/schema.ts";
import { defineSystem, NO_FLAGS } from "../../../systems/system.ts";
import { modelOf, question, toolboxOf } from "../../support/fixtures.ts";

const model = modelOf(() => ({ content: "It is 330 metres." }));

/** A system whose question `q2` sees one of its child processes end (`stoppedByUs` or not). */
function systemSeeing(stoppedByUs: boolean, onQ2?: () => void): PlannedSystem {
  const def = defineSystem({
    type: "child_exit_probe",
    description: "A child process ends during q2.",
    acceptsTools: false,
    alwaysTools: [],
    options: systemBaseSchema,
    run(_options, ctx) {
      if (ctx.question.id === "q2") {
        noteChildExit(stoppedByUs);
        onQ2?.();
      }
      return Promise.resolve({ answer: "It is 330 metres.", flags: NO_FLAGS });
    },
  });
  return { name: "probe", def, options: {}, toolbox: toolboxOf([]), retriever: null, model };
}

async function run(system: PlannedSystem, signal = new AbortController().signal) {
  const lines: QuestionResult[] = [];
  const outcome = await runQuestions({
    systems: [system],
    questions: ["q1", "q2", "q3"].map((id) => question(id, `Question ${id}?`)),
    repeats: 1,
    concurrency: 1,
    questionTimeoutMs: 5000,
    maxCostUsd: null,
    done: new Set(),
    sink: (r) => {
      lines.push(r);
      return Promise.resolve();
    },
    reporter: { onResult() {} },
    signal,
  });
  return { outcome, ids: lines.map((l) => l.question_id) };
}

Deno.test("runner: once cancelled, a question during which a child process ended unasked is not recorded", async () => {
  const controller = new AbortController();
  const { outcome, ids } = await run(
    systemSeeing(false, () => controller.abort()),
    controller.signal,
  );
  assert.deepEqual(ids, ["q1"]);
  assert.equal(outcome.interrupted, 1);
  assert.equal(outcome.notRun, 2);
  assert.equal(outcome.stoppedBy, "cancelled");
});

Deno.test("runner: a child process that ends while the run goes on is the system's result, and ragbench's own kills never count", async () => {
  const goingOn = await run(systemSeeing(false));
  assert.deepEqual(goingOn.ids, ["q1", "q2", "q3"]);
  assert.equal(goingOn.outcome.interrupted, 0);

  const controller = new AbortController();
  const killed = await run(systemSeeing(true, () => controller.abort()), controller.signal);
  assert.deepEqual(killed.ids, ["q1", "q2"]);
  assert.equal(killed.outcome.interrupted, 0);
});
