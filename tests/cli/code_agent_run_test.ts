import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

Deno.test("run --mock: code programs that spin, allocate without bound or flood stdout are killed and the run goes on", async () => {
  await using t = await tempTree({
    "corpus.json": JSON.stringify([
      { id: "eiffel", title: "Eiffel Tower", text: "The Eiffel Tower is 330 metres tall." },
    ]),
    "q.yaml": `
- {id: spin, question: "Spin: how tall is the Eiffel Tower?", checks: [{type: contains, value: "330"}]}
- {id: bomb, question: "Bomb: how tall is the Eiffel Tower?", checks: [{type: contains, value: "330"}]}
- {id: flood, question: "Flood: how tall is the Eiffel Tower?", checks: [{type: contains, value: "330"}]}
- {id: hang, question: "Hang: how tall is the Eiffel Tower?", checks: [{type: contains, value: "330"}]}
- {id: plain, question: "Plain: how tall is the Eiffel Tower?", checks: [{type: contains, value: "330"}]}
`,
    "mock.yaml": `
"Spin:":
  - {code: "while (true) {}"}
  - {answer: "330 metres"}
"Bomb:":
  - {code: "const a = []; for (;;) a.push(new Uint8Array(1e7).fill(7));"}
  - {answer: "330 metres"}
"Flood:":
  - {code: "for (;;) Deno.stdout.writeSync(new Uint8Array(1 << 20).fill(65));"}
  - {answer: "330 metres"}
"Hang:":
  - {code: "await new Promise(() => {});"}
  - {answer: "330 metres"}
"Plain:":
  - {call: search, args: {query: Eiffel Tower}}
  - {answer: "330 metres"}
`,
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
mock_script: mock.yaml
evaluation: {concurrency: 2, question_timeout_s: 20}
systems:
  - {type: code_agent, name: code, program_timeout_s: 0.5, program_wall_timeout_s: 2, memory_mb: 64}
`,
  });
  const out = t.path("out");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const byId = new Map(lines.map((l) => [l.question_id, l]));
  assert.equal(lines.length, 5);
  for (const id of ["spin", "bomb", "flood", "hang"]) {
    const line = byId.get(id)!;
    assert.equal(line.error, null, id);
    assert.equal(line.passed, true, `${id}: the model recovered after the observation`);
    assert.equal(line.format_errors, 1, id);
  }
  const plain = byId.get("plain")!;
  assert.equal(plain.passed, true);
  assert.equal(plain.format_errors, 0);
  assert.deepEqual(plain.steps.map((s) => s.type), ["model", "tool"]);
});

Deno.test("run --mock: the question timeout holds against a code program with a long limit", async () => {
  await using t = await tempTree({
    "corpus.json": JSON.stringify([{ id: "a", title: "A", text: "alpha" }]),
    "q.yaml": `- {id: spin, question: "Spin forever", checks: [{type: contains, value: "x"}]}\n`,
    "mock.yaml": `"Spin forever":\n  - {code: "while (true) {}"}\n`,
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
mock_script: mock.yaml
evaluation: {question_timeout_s: 1}
systems:
  - {type: code_agent, name: code, program_timeout_s: 600}
`,
  });
  const out = t.path("out");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  const [line] = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  assert.equal(result.code, 1, "every question of the system errored");
  assert.match(result.stderr, /every question of code errored/);
  // The question's limit ended it, not the program's own 600 s one.
  assert.deepEqual(line.error, {
    kind: "timeout",
    message: "the question took longer than 1 s (evaluation.question_timeout_s)",
  });
});
