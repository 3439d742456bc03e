import assert from "node:assert/strict";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const HEAD = `name: v
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
systems:
`;

Deno.test("validate lists each system's prompts: defaults, inline ones and files, with their lengths", async () => {
  await using t = await tempTree({
    "c.yaml": `${HEAD}  - {type: closed_book}
  - {type: rag, name: terse, prompts: {system: {file: prompts/terse.txt}}}
  - {type: agent_search, prompts: {final_answer: "Answer now."}}
  - {type: retrieval_only}
`,
    "prompts/terse.txt": "One word.",
  });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    new RegExp(
      [
        "  prompts:   closed_book: defaults \\(system\\)",
        "             terse: system from prompts/terse\\.txt \\(9 characters\\)",
        "             agent_search: final_answer inline \\(11 characters\\); default system",
        "  models:",
      ].join("\n"),
    ),
  );
});

Deno.test("validate prints a prompt's unknown placeholder and a missing prompt file, each at its line", async () => {
  await using t = await tempTree({
    "c.yaml": `${HEAD}  - {type: closed_book, prompts: {system: "Answer {{questoin}}"}}
  - {type: rag, prompts: {system: {file: missing.txt}}}
`,
  });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /\(line 5, column \d+\): prompt "system" uses the unknown placeholder \{\{questoin\}\} — did you mean \{\{question\}\}\? Its placeholders: \{\{question\}\}/,
  );
  assert.match(
    result.stderr,
    /\(line 6, column \d+\): cannot read the file "missing\.txt" of prompt "system": no such file or folder/,
  );
});
