import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../../../lib/config/load.ts";
import type { Config } from "../../../lib/config/types.ts";
import { ConfigError } from "../../../lib/errors.ts";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { MAX_PROMPT_CHARS } from "../../../lib/prompts/template.ts";
import { tempTree } from "../../support/temp.ts";

const BASE = `name: t
corpus: corpus.json
questions: q.yaml
`;

function load(dir: string, systems: string): Config {
  const absolute = join(dir, "c.yaml");
  return parseConfig(`${BASE}systems:\n${systems}`, { file: "c.yaml", absolute }, REGISTRIES);
}

/** The formatted message of the ConfigError that loading `systems` throws. */
function problem(dir: string, systems: string): string {
  try {
    load(dir, systems);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  assert.fail("the config loaded");
}

Deno.test("prompts: an inline prompt and a file's are the system's option text; the file is kept beside", async () => {
  await using t = await tempTree({ "prompts/terse.txt": "Be terse about {{question}}.\n" });
  const config = load(
    t.dir,
    `  - {type: closed_book, name: inline, prompts: {system: "Answer in one word."}}
  - type: rag
    name: from_file
    prompts: {system: {file: prompts/terse.txt}}
  - {type: agent_search, prompts: {final_answer: "Answer now, in {{max_steps}} words."}}
  - {type: closed_book}
`,
  );
  const [inline, fromFile, agent, plain] = config.systems;
  assert.deepEqual(inline.options.prompts, { system: "Answer in one word." });
  assert.equal(inline.prompt_files, undefined);
  assert.deepEqual(fromFile.options.prompts, { system: "Be terse about {{question}}.\n" });
  assert.deepEqual(fromFile.prompt_files, { system: t.path("prompts/terse.txt") });
  assert.deepEqual(agent.options.prompts, { final_answer: "Answer now, in {{max_steps}} words." });
  assert.equal(plain.options.prompts, undefined);
});

Deno.test("prompts: an unknown placeholder is refused at its line, with the prompt's placeholders and a did-you-mean", async () => {
  await using t = await tempTree({});
  const message = problem(
    t.dir,
    `  - {type: agent_search, prompts: {system: "Use {{tool}} for {{question}}."}}\n`,
  );
  assert.match(
    message,
    /"c\.yaml" \(line 5, column \d+\): prompt "system" uses the unknown placeholder \{\{tool\}\}/,
  );
  assert.match(
    message,
    /did you mean \{\{tools\}\}\? Its placeholders: \{\{question\}\}, \{\{tools\}\}, \{\{max_steps\}\}/,
  );
  const closed = problem(t.dir, `  - {type: closed_book, prompts: {system: "{{tools}}"}}\n`);
  assert.match(closed, /unknown placeholder \{\{tools\}\} — its placeholders: \{\{question\}\}/);
});

Deno.test("prompts: a missing prompt file, a folder and an empty file are named with the path they were looked for at", async () => {
  await using t = await tempTree({ "empty.txt": "  \n", "dir/x.txt": "x" });
  const missing = problem(t.dir, `  - {type: rag, prompts: {system: {file: nope.txt}}}\n`);
  assert.match(
    missing,
    /"c\.yaml" \(line 5, column \d+\): cannot read the file "nope\.txt" of prompt "system": no such file or folder/,
  );
  assert.ok(
    missing.includes(`looked for at ${t.path("nope.txt")} (relative to the config's folder)`),
    missing,
  );
  assert.match(
    problem(t.dir, `  - {type: rag, prompts: {system: {file: dir}}}\n`),
    /cannot read the file "dir" of prompt "system": it is a folder, not a file/,
  );
  assert.match(
    problem(t.dir, `  - {type: rag, prompts: {system: {file: empty.txt}}}\n`),
    /cannot read the file "empty\.txt" of prompt "system": it is empty/,
  );
});

Deno.test("prompts: a huge prompt is refused, inline by its length and from a file by its size, unread", async () => {
  const huge = "x".repeat(MAX_PROMPT_CHARS + 1);
  await using t = await tempTree({
    "long.txt": huge,
    "huge.txt": "y".repeat(MAX_PROMPT_CHARS * 4 + 1),
  });
  assert.match(
    problem(t.dir, `  - {type: closed_book, prompts: {system: "${huge}"}}\n`),
    /prompt "system" is 100,001 characters long; a prompt may have at most 100,000 — shorten it/,
  );
  assert.match(
    problem(t.dir, `  - {type: closed_book, prompts: {system: {file: long.txt}}}\n`),
    /prompt "system" is 100,001 characters long/,
  );
  assert.match(
    problem(t.dir, `  - {type: closed_book, prompts: {system: {file: huge.txt}}}\n`),
    /cannot read the file "huge\.txt" of prompt "system": it is 400,001 bytes; a prompt may have at most 100,000 characters/,
  );
});

Deno.test("prompts: __proto__, a misspelt slot, an empty text and prompts on a type that sends none are refused", async () => {
  await using t = await tempTree({});
  assert.match(
    problem(t.dir, `  - {type: closed_book, prompts: {__proto__: "x"}}\n`),
    /unknown key "__proto__"/,
  );
  assert.match(
    problem(t.dir, `  - {type: agent_search, prompts: {sytem: "x"}}\n`),
    /unknown key "sytem".*did you mean "system"\?/s,
  );
  assert.match(
    problem(t.dir, `  - {type: closed_book, prompts: {system: ""}}\n`),
    /is empty: write the prompt, or leave the key out to use the default/,
  );
  assert.match(
    problem(t.dir, `  - {type: rag, prompts: {system: {path: a.txt}}}\n`),
    /prompts\.system: must be the prompt's text, or \{file: PATH\}/,
  );
  assert.match(
    problem(t.dir, `  - {type: retrieval_only, prompts: {system: "x"}}\n`),
    /unknown key "prompts"/,
  );
});
