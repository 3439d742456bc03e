/**
 * A framework process killed at a question's timeout is replaced outside
 * every question's clock: the replacement starts when the old one ends, and
 * the system's next question starts only once it has loaded, so that
 * question's `latency_ms` and time limit hold no start-up. Shown by events,
 * not time: the replacement's start-up is held until the test releases it,
 * and the next question's start (`RunReporter.onStart`, taken just before
 * its clock) must come after the replacement said it had loaded.
 *
 * @module
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PlannedSystem } from "../../../lib/run/runner.ts";
import { runQuestions } from "../../../lib/run/runner.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { frameworkSystem } from "../../../systems/frameworks/framework_system.ts";
import type { FrameworkManifest } from "../../../systems/frameworks/registry.ts";
import { fakeSearch, modelOf, question, toolboxOf } from "../../support/fixtures.ts";
import { assertNoFrameworkProcess } from "../../support/frameworks.ts";
import { tempTree } from "../../support/temp.ts";
import { waitUntil } from "../../support/wait.ts";

/** Searches once, then answers. */
const model = modelOf((request) =>
  request.messages.some((m) => m.role === "tool") || request.tools.length === 0
    ? { content: "It is 330 metres." }
    : { tool_calls: [{ id: "c1", name: "search", arguments: '{"query":"tower"}' }] }
);

Deno.test("a process killed at a question's timeout is replaced before the system's next question starts its clock", async () => {
  await using t = await tempTree();
  const dir = t.dir;
  const manifest: FrameworkManifest = {
    type: "held_start",
    description: "a framework whose later start-ups the test holds",
    packages: ["held_start@0.0.0"],
    adapter: new URL("../../fixtures/frameworks/held_start.ts", import.meta.url),
    permissions: [],
    env: { HOLD_DIR: dir },
  };
  const def = frameworkSystem(manifest, {
    cancelAckMs: 300,
    permissionFlags: [`--allow-read=${dir}`, `--allow-write=${dir}`, "--allow-env=HOLD_DIR"],
  });
  const options = def.options.parse({ type: "held_start" });
  const instance = def.start!(options, { name: "held" });
  const system: PlannedSystem = {
    name: "held",
    def: { ...def, run: instance.run },
    options,
    toolbox: toolboxOf([fakeSearch]),
    retriever: null,
    model,
    ready: instance.ready,
    ...(instance.pending ? { pending: () => instance.pending!() } : {}),
  };
  // What had happened when each question's clock was about to start.
  const seen: string[][] = [];
  const events = () => ["started-2", "loaded-2"].filter((f) => existsSync(join(dir, f)));
  // Releases the replacement's start-up once it has begun (bounded: the wait gives up).
  const releaser = waitUntil(() => existsSync(join(dir, "started-2"))).then((began) => {
    if (began) Deno.writeTextFileSync(join(dir, "release-2"), "");
    return began;
  });
  const results: QuestionResult[] = [];
  try {
    await runQuestions({
      systems: [system],
      questions: [question("q0", "spin"), question("q1", "fine")],
      repeats: 1,
      concurrency: 1,
      questionTimeoutMs: 2000,
      maxCostUsd: null,
      done: new Set(),
      sink: (r) => {
        results.push(r);
        return Promise.resolve();
      },
      reporter: { onResult() {}, onStart: () => void seen.push(events()) },
      signal: new AbortController().signal,
    });
    assert.ok(await releaser, "the replacement process started");
    const [spin, fine] = results;
    assert.equal(spin.error?.kind, "timeout");
    assert.deepEqual([fine.error, fine.answer], [null, "It is 330 metres."]);
    // The spinning question started on the first process; the next one only after its
    // replacement had started and loaded.
    assert.deepEqual(seen, [[], ["started-2", "loaded-2"]]);
  } finally {
    Deno.writeTextFileSync(join(dir, "release-2"), "");
    await releaser;
    await instance.close();
    await assertNoFrameworkProcess();
  }
});
