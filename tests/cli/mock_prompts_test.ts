import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

/** Each system twice: with its type's prompts, and with other words (`_own`). */
const PAIRS = [
  "{type: closed_book}",
  "{type: rag}",
  "{type: agent_search, max_steps: 3}",
  "{type: agent_search, name: react, agent_mode: react_json, max_steps: 2}",
  "{type: grep_agent, max_steps: 3}",
  "{type: code_agent, max_steps: 2}",
];
const OWN = "prompts: {system: 'Work it out. Question: {{question}}', final_answer: 'Now answer.'}";

function config(): string {
  const systems = PAIRS.flatMap((entry) => {
    const type = /type: (\w+)/.exec(entry)![1];
    const name = /name: (\w+)/.exec(entry)?.[1] ?? type;
    const own = type === "closed_book" || type === "rag"
      ? "prompts: {system: 'Work it out. Question: {{question}}'}"
      : OWN;
    return [
      `  - ${entry}`,
      `  - ${
        entry.replace(/(name: \w+, )?}$/, "").replace(/name: \w+, /, "")
      }, name: ${name}_own, ${own}}`,
    ];
  });
  return `name: mock-prompts
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
mock_script: ${ROOT}arenas/rag/mock.yaml
systems:
${systems.join("\n")}
`;
}

Deno.test("--mock answers do not depend on a system's prompt wording: each system and its twin with other prompts answer alike", async () => {
  await using t = await tempTree({ "c.yaml": config() });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--out",
    t.path("run"),
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(
    join(t.path("run"), "per_question_results.jsonl"),
  ) as QuestionResult[];
  const answers = new Map<string, string | null>();
  for (const line of lines) {
    assert.equal(line.error, null, `${line.system} ${line.question_id}: ${line.error?.message}`);
    answers.set(`${line.system}/${line.question_id}`, line.answer);
  }
  const systems = [...new Set(lines.map((l) => l.system))].filter((s) => !s.endsWith("_own"));
  assert.equal(systems.length, PAIRS.length);
  let compared = 0;
  for (const [key, answer] of answers) {
    const [system, id] = key.split("/");
    if (system.endsWith("_own")) continue;
    assert.equal(answers.get(`${system}_own/${id}`), answer, `${system} on ${id}`);
    compared++;
  }
  assert.equal(compared, lines.length / 2);
  // The scripted answers, not "I don't know.", for most of the grounded systems' questions.
  const rag = lines.filter((l) => l.system === "rag_own");
  assert.ok(rag.filter((l) => l.passed).length >= rag.length / 2);
  const react = lines.filter((l) => l.system === "react_own");
  assert.ok(react.every((l) => !l.flags.format_error), "no react_json answer was lost");
});
