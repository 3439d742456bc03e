import assert from "node:assert/strict";
import { resumeCommand, writeFailure } from "../../lib/cli/resume_hint.ts";
import { RagbenchError } from "../../lib/errors.ts";
import { jsonlWriter } from "../../lib/report/jsonl.ts";
import { runQuestions } from "../../lib/run/runner.ts";
import { closedBook } from "../../systems/closed_book.ts";
import { modelOf, question, toolboxOf } from "../support/fixtures.ts";

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
  assert.equal(
    resumeCommand({
      configPath: "c.yaml",
      dir: "r",
      mock: false,
      cache: [["cache-dir", "/my cache"]],
    }),
    "ragbench run c.yaml --resume r --cache-dir '/my cache'",
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

Deno.test("a disk that fills mid-run: the run stops with the file, keeps the complete lines and gives the resume command", async () => {
  const written: string[] = [];
  const file = {
    writeSync(bytes: Uint8Array) {
      if (written.length === 2) throw new Error("No space left on device (os error 28)");
      written.push(new TextDecoder().decode(bytes));
      return bytes.length;
    },
    close() {},
  };
  const writer = jsonlWriter(file, "run/per_question_results.jsonl");
  const questions = ["q1", "q2", "q3", "q4"].map((id) => question(id, `Question ${id}?`));
  const run = runQuestions({
    systems: [{
      name: "a",
      def: closedBook,
      options: closedBook.options.parse({ type: "closed_book" }) as Record<string, unknown>,
      toolbox: toolboxOf([]),
      retriever: null,
      model: modelOf(() => ({ content: "330" })),
    }],
    questions,
    repeats: 1,
    concurrency: 1,
    questionTimeoutMs: 5000,
    maxCostUsd: null,
    done: new Set(),
    sink: (r) => writer.append(r),
    reporter: { onResult() {} },
    signal: new AbortController().signal,
  });
  const error = await run.then(
    () => null,
    (e) => writeFailure(e, { results: "run/per_question_results.jsonl", resume: "CMD" }),
  );
  assert.ok(error instanceof RagbenchError && error.code === "io");
  assert.equal(
    error.message,
    'Cannot write "run/per_question_results.jsonl": No space left on device (os error 28).\n' +
      'The results finished before it are kept in "run/per_question_results.jsonl". ' +
      "Make room (or fix the permission), then continue with:\n  CMD",
  );
  assert.equal(written.length, 2);
  for (const line of written) assert.ok(line.endsWith("\n") && JSON.parse(line).system === "a");
});
