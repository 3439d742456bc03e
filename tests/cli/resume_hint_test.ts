import assert from "node:assert/strict";
import { resumeCommand, writeFailure } from "../../lib/cli/resume_hint.ts";
import { RagbenchError } from "../../lib/errors.ts";

Deno.test("resume hint: the command repeats the config, folder, --mock and the selection, quoted", () => {
  assert.equal(
    resumeCommand({ configPath: "configs/all.yaml", dir: "runs/x", mock: false }),
    "ragbench run configs/all.yaml --resume runs/x",
  );
  assert.equal(
    resumeCommand({
      configPath: "my configs/a.yaml",
      dir: "runs/x",
      mock: true,
      systems: "a,b",
      limit: "3",
    }),
    "ragbench run 'my configs/a.yaml' --resume runs/x --mock --systems a,b --limit 3",
  );
});

Deno.test("resume hint: a failed write says what was kept and how to resume; other errors pass unchanged", () => {
  const io = new RagbenchError(
    "io",
    'Cannot write "r/metrics_summary.csv": No space left on device.',
  );
  const wrapped = writeFailure(io, { results: "r/per_question_results.jsonl", resume: "CMD" });
  assert.ok(wrapped instanceof RagbenchError && wrapped.code === "io");
  assert.equal(
    (wrapped as Error).message,
    'Cannot write "r/metrics_summary.csv": No space left on device.\n' +
      'The results finished before it are kept in "r/per_question_results.jsonl". ' +
      "Make room (or fix the permission), then continue with:\n  CMD",
  );
  const bug = new TypeError("x is undefined");
  assert.equal(writeFailure(bug, { results: "r", resume: "CMD" }), bug);
  const config = new RagbenchError("config", "bad");
  assert.equal(writeFailure(config, { results: "r", resume: "CMD" }), config);
});
