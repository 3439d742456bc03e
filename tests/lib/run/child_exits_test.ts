import assert from "node:assert/strict";
import { noteChildExit } from "../../../lib/run/child_exits.ts";
import { type PlannedSystem, runQuestions } from "../../../lib/run/runner.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { systemBaseSchema } from "../../../lib/config/schema.ts";
import { defineSystem, NO_FLAGS } from "../../../systems/system.ts";
import { modelOf, question, toolboxOf } from "../../support/fixtures.ts";

const model = modelOf(() => ({ content: "It is 330 metres." }));
const KILLED: Deno.CommandStatus = { success: false, code: 130, signal: "SIGINT" };
const CRASHED: Deno.CommandStatus = { success: false, code: 1, signal: null };

/** A system whose question `q2` sees one of its child processes end as `status` (unasked). */
function systemSeeing(status: Deno.CommandStatus, onQ2?: () => void): PlannedSystem {
  const def = defineSystem({
    type: "child_exit_probe",
    description: "Ends a child process during q2.",
    acceptsTools: false,
    alwaysTools: [],
    options: systemBaseSchema,
    run(_options, ctx) {
      if (ctx.question.id === "q2") {
        noteChildExit(status, false);
        onQ2?.();
      }
      return Promise.resolve({ answer: "It is 330 metres.", flags: NO_FLAGS });
    },
  });
  return {
    name: "probe",
    def,
    options: {},
    toolbox: toolboxOf([]),
    retriever: null,
    model,
  };
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

Deno.test("runner: a question during which a child process died of a stop signal ragbench did not send is not recorded", async () => {
  const { outcome, ids } = await run(systemSeeing(KILLED));
  assert.deepEqual(ids, ["q1", "q3"]);
  assert.equal(outcome.interrupted, 1);
  assert.equal(outcome.notRun, 1);
  assert.equal(outcome.stoppedBy, null);
});

Deno.test("runner: a child process's crash is the system's result, unless the run was being cancelled", async () => {
  const kept = await run(systemSeeing(CRASHED));
  assert.deepEqual(kept.ids, ["q1", "q2", "q3"]);
  assert.equal(kept.outcome.interrupted, 0);

  const controller = new AbortController();
  const cancelled = await run(systemSeeing(CRASHED, () => controller.abort()), controller.signal);
  assert.deepEqual(cancelled.ids, ["q1"]);
  assert.equal(cancelled.outcome.interrupted, 1);
  assert.equal(cancelled.outcome.stoppedBy, "cancelled");
});
