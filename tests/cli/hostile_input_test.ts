import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, spawnCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

Deno.test("run --mock: an iregex (a+)+$ scored against 40 a then b finishes and records the result", async () => {
  await using t = await tempTree({
    "c.yaml": `name: hostile
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
mock_script: m.yaml
systems: [{type: closed_book}]
`,
    "q.yaml": "- id: redos\n  question: What is the pattern?\n" +
      '  checks: [{type: iregex, pattern: "(a+)+$"}]\n',
    "m.yaml": `"the pattern":\n  - {recall: "${"a".repeat(40)}b"}\n`,
  });
  const out = join(t.dir, "run");
  const child = spawnCli(
    ["--allow-read", `--allow-write=${t.dir}`],
    ["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"],
  );
  // A backtracking engine would spin here for days; the run is killed after 60 s instead.
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    const output = await child.output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
  } finally {
    clearTimeout(timer);
  }
  const [line] = (await readJsonl(join(out, "per_question_results.jsonl"))) as QuestionResult[];
  assert.deepEqual(line.checks, [
    { type: "iregex", passed: false, detail: "/(a+)+$/i does not match the answer" },
  ]);
});
