import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CORPUS = JSON.stringify([
  {
    id: "decoy",
    title: "Harbor crane",
    text: "The harbor crane is painted blue. The harbor crane is old.",
  },
  { id: "truth", title: "Crane facts", text: "The crane stands 52 metres tall." },
]);

const QUESTIONS = `- id: q1
  question: How tall is the harbor crane?
  evidence: [truth]
  checks: [{type: numeric_equals, value: 52}]
- id: q2
  question: How tall is the crane everyone remembers?
  evidence: [truth]
  checks: [{type: numeric_equals, value: 52}]
`;

const MOCK = `"harbor crane":
  - {call: search, args: {query: harbor crane tall metres}}
  - {answer: "It is 52 metres tall [truth]."}
  - {recall: "About 50 metres."}
"everyone remembers":
  - {call: search, args: {query: crane}}
  - {answer: "52 metres, as everyone knows.", from_memory: true}
`;

Deno.test("--mock measures retrieval: a scripted answer needs its evidence in what the model was shown, unless from_memory", async () => {
  await using t = await tempTree({
    "c.yaml": `name: mock_retrieval
corpus: corpus.json
questions: q.yaml
mock_script: mock.yaml
retrievers:
  narrow: {top_k: 1}
  wide: {top_k: 2}
systems:
  - {type: closed_book, name: closed_book}
  - {type: rag, name: rag_narrow, retriever: narrow}
  - {type: rag, name: rag_wide, retriever: wide}
  - {type: agent_search, name: agent}
  - {type: agent_search, name: agent_react, agent_mode: react_json}
  - {type: code_agent, name: code_agent}
  - {type: grep_agent, name: grep_agent}
`,
    "corpus.json": CORPUS,
    "q.yaml": QUESTIONS,
    "mock.yaml": MOCK,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const line = (system: string, id: string) =>
    lines.find((l) => l.system === system && l.question_id === id)!;
  const answer = (system: string, id: string) => line(system, id).answer;
  // The narrow retriever ranks the decoy first: the model quotes it instead of the script.
  assert.deepEqual(line("rag_narrow", "q1").retrieval.ranking, ["decoy"]);
  assert.match(
    answer("rag_narrow", "q1")!,
    /^From the documents: The harbor crane is painted blue/,
  );
  assert.equal(line("rag_narrow", "q1").passed, false);
  for (const system of ["rag_wide", "agent", "agent_react", "code_agent"]) {
    assert.equal(answer(system, "q1"), "It is 52 metres tall [truth].", system);
    assert.equal(line(system, "q1").retrieval.recall, 1, system);
  }
  // The grep agent's script has no call it can make: it saw nothing, so it does not know.
  assert.equal(line("grep_agent", "q1").steps.filter((s) => s.type === "tool").length, 0);
  assert.equal(answer("grep_agent", "q1"), "I don't know.");
  // from_memory: the answer is the model's own, whatever it retrieved.
  assert.equal(answer("grep_agent", "q2"), "52 metres, as everyone knows.");
  assert.equal(answer("rag_narrow", "q2"), "52 metres, as everyone knows.");
  // The closed-book recall is what the model remembers: never held back.
  assert.equal(answer("closed_book", "q1"), "About 50 metres.");
  // No tool call failed on the way (a broken sandbox would let scripted answers pass alone).
  assert.ok(
    lines.every((l) => l.steps.every((s) => s.type !== "tool" || s.result.error === null)),
  );
  const score = (system: string) =>
    lines.filter((l) => l.system === system && l.question_id === "q1")[0].answer_score;
  assert.equal(score("rag_wide"), 1);
  assert.equal(score("rag_narrow"), 0);
});
