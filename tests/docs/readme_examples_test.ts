/**
 * Every command and config example of README.md and of the user pages in
 * docs/ is run, so the documentation cannot go stale. Each fenced block is
 * handled by its language and the marker comment before it:
 *
 * - `sh`: each line runs through `sh` in a copy of the clone (with `ragbench`
 *   the installed command, i.e. the launcher) and must exit 0; every config's
 *   model points at a stand-in OpenAI-compatible server on 127.0.0.1, so a
 *   live run calls no one. `<!-- check: skip-line "PREFIX" (why) -->` leaves
 *   out the lines starting with PREFIX.
 * - `yaml` / `jsonl`: `<!-- check: config -->` is a whole config (paths as
 *   from `configs/`), `fragment` is merged into a minimal config (its systems
 *   added), `questions` and `mock_script` complete one of the bundled arena;
 *   each is checked with `ragbench validate`, which must pass.
 * - `text` after `<!-- output: COMMAND -->`: COMMAND runs as above, and each
 *   line the block shows must be in what it prints, in order (timing figures
 *   masked; `...` stands for any text or lines).
 * - `<!-- check: file PATH -->`: the block is the file, word for word;
 *   `<!-- check: run by TEST -->`: another test runs the block;
 *   `<!-- check: skip (why) -->`: not run, with the reason.
 *
 * A `sh`, `yaml`, `jsonl` or `ts` block without a marker it can act on, and
 * any block without a language, fails the test.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { parse, stringify } from "yaml";
import { ROOT, runCli, runPrinted } from "../support/cli.ts";
import {
  commandLines,
  comparableLines,
  type DocBlock,
  docBlocks,
  missingLine,
} from "../support/doc_blocks.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

/** The pages whose examples are run: the README and the user pages it links to. */
const PAGES = [
  "README.md",
  ...["cli", "config", "systems", "retrievers", "tools", "outputs", "cache", "metrics", "arenas"]
    .map((p) => `docs/${p}.md`),
];

/** What a copy of the clone needs: the program, the configs and what they name. */
const CLONE = [
  "main.ts",
  "ragbench.ts",
  "deno.json",
  "deno.lock",
  "lib",
  "tools",
  "systems",
  "configs",
  "arenas",
  "examples",
];

/** The whole config the fragments complete (paths as from `configs/`). */
const BASE = {
  name: "readme_example",
  corpus: "../arenas/rag/corpus.json",
  questions: "../arenas/rag/questions.yaml",
  systems: [{ type: "closed_book", name: "closed_book" }],
};

/** Systems a mock script may name: a second model, and a code agent for `code:` turns. */
const MOCK_SYSTEMS = [
  { type: "agent_search", name: "agent" },
  { type: "agent_search", name: "agent_4o", model: { name: "gpt-4o" } },
  { type: "code_agent", name: "code_agent" },
];

async function copyTree(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (info.isFile) {
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.copyFile(from, to);
    return;
  }
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    await copyTree(join(from, entry.name), join(to, entry.name));
  }
}

/** Every config of the copy calls the stand-in server instead of the network. */
async function pointConfigsAt(dir: string, baseUrl: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".yaml")) continue;
    const path = join(dir, entry.name);
    const config = parse(await Deno.readTextFile(path));
    config.model = { ...(config.model ?? {}), base_url: baseUrl };
    await Deno.writeTextFile(path, stringify(config));
  }
}

/** The marker's value without a trailing `(reason)`. */
function markerName(block: DocBlock): string {
  return block.marker?.value.replace(/\s*\(.*\)$/, "") ?? "";
}

function where(block: DocBlock): string {
  return `${block.page}:${block.line}`;
}

Deno.test("every command and config example of the README and the user docs runs as shown", async (t) => {
  await using tree = await tempTree();
  const clone = tree.path("clone");
  for (const part of CLONE) await copyTree(join(ROOT, part), join(clone, part));
  await using server = startFakeOpenAIServer((request) => {
    const asked = JSON.stringify(request.body);
    const answer = "I cannot find that in the documents.";
    // A code agent answers with a program; every other system with text.
    const content = asked.includes("final_answer")
      ? `\`\`\`js\nfinal_answer(${JSON.stringify(answer)});\n\`\`\``
      : answer;
    return {
      json: chatCompletion({ content, usage: { prompt_tokens: 50, completion_tokens: 10 } }),
    };
  });
  await pointConfigsAt(join(clone, "configs"), server.baseUrl);

  const env: Record<string, string> = {
    PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`,
    OPENAI_API_KEY: "test-key",
    RAGBENCH_CACHE_DIR: tree.path("cache"),
  };
  const printed = new Map<string, { code: number; stdout: string; stderr: string }>();
  const run = async (command: string) => {
    const known = printed.get(command);
    if (known) return known;
    const result = await runPrinted(
      `ragbench() { deno task --quiet ragbench "$@"; }; ${command}`,
      { cwd: clone, env },
    );
    printed.set(command, result);
    return result;
  };
  const validate = async (block: DocBlock, config: Record<string, unknown>) => {
    const path = join(
      clone,
      "configs",
      `readme_${block.page.replace(/\W/g, "_")}_${block.line}.yaml`,
    );
    await Deno.writeTextFile(path, stringify(config));
    const result = await runCli(["validate", path]);
    assert.equal(result.code, 0, `${where(block)}: validate failed:\n${result.stderr}`);
  };
  const extraFile = async (block: DocBlock, ext: string) => {
    const name = `readme_${block.page.replace(/\W/g, "_")}_${block.line}_file.${ext}`;
    await Deno.writeTextFile(join(clone, "configs", name), block.text);
    return name;
  };

  let ran = 0;
  for (const page of PAGES) {
    const blocks = docBlocks(page, await Deno.readTextFile(join(ROOT, page)));
    for (const block of blocks) {
      const name = markerName(block);
      await t.step(
        `${where(block)} (${block.lang || "no language"}: ${name || "run"})`,
        async () => {
          assert.notEqual(
            block.lang,
            "",
            `${where(block)}: give the block a language (sh, yaml, text)`,
          );
          if (block.marker?.kind === "check" && name === "skip") {
            assert.match(
              block.marker.value,
              /^skip \(.+\)$/,
              `${where(block)}: say why it is skipped`,
            );
            return;
          }
          if (block.marker?.kind === "check" && name.startsWith("run by ")) {
            const test = await Deno.readTextFile(join(ROOT, name.slice("run by ".length)));
            const page = block.page === "README.md" ? "README" : block.page;
            assert.ok(test.includes(page), `${where(block)}: ${name} does not read ${page}`);
            return;
          }
          if (block.marker?.kind === "check" && name.startsWith("file ")) {
            const file = await Deno.readTextFile(join(ROOT, name.slice("file ".length)));
            assert.equal(block.text, file, `${where(block)}: the block is not ${name.slice(5)}`);
            return;
          }
          if (block.marker?.kind === "output") {
            assert.equal(block.lang, "text", `${where(block)}: an output block is tagged text`);
            const command = block.marker.value;
            const shown = block.text.replace(/\n$/, "").split("\n");
            if (shown[0] === `$ ${command}`) shown.shift();
            const result = await run(command);
            assert.equal(result.code, 0, `${where(block)}: ${command}\n${result.stderr}`);
            const actual = comparableLines(`${result.stdout}\n${result.stderr}`, [
              [Deno.execPath(), "/usr/local/bin/deno"],
              [`${clone}/`, "/path/to/ragbench/"],
            ]);
            const missing = missingLine(comparableLines(shown.join("\n")), actual);
            assert.equal(
              missing,
              null,
              `${
                where(block)
              }: \`${command}\` no longer prints this line:\n${missing}\n\nIt printed:\n${
                actual.join("\n")
              }`,
            );
            ran++;
            return;
          }
          if (block.lang === "sh") {
            const skipped = block.marker?.kind === "check"
              ? /^skip-line "(.+)" \(.+\)$/.exec(block.marker.value)
              : null;
            assert.ok(block.marker === null || skipped, `${where(block)}: unknown marker ${name}`);
            for (const line of commandLines(block.text)) {
              if (skipped && line.startsWith(skipped[1])) continue;
              const exported = /^export (\w+)=(.*)$/.exec(line);
              if (exported) {
                env[exported[1]] = exported[2];
                continue;
              }
              const result = await run(line);
              assert.equal(
                result.code,
                0,
                `${where(block)}: ${line}\n${result.stdout}\n${result.stderr}`,
              );
              ran++;
            }
            return;
          }
          if (block.lang === "yaml" || block.lang === "jsonl") {
            if (name === "config") {
              await validate(block, parse(block.text));
            } else if (name === "fragment") {
              const fragment = parse(block.text) as Record<string, unknown>;
              const systems = [...BASE.systems, ...((fragment.systems as unknown[]) ?? [])];
              await validate(block, { ...BASE, ...fragment, systems });
            } else if (name === "questions") {
              await validate(block, { ...BASE, questions: await extraFile(block, block.lang) });
            } else if (name === "mock_script") {
              const script = await extraFile(block, "yaml");
              await validate(block, {
                ...BASE,
                mock_script: script,
                systems: [...BASE.systems, ...MOCK_SYSTEMS],
              });
            } else {
              assert.fail(
                `${
                  where(block)
                }: mark the block (<!-- check: config|fragment|questions|mock_script|skip (why) -->)`,
              );
            }
            ran++;
            return;
          }
          assert.equal(block.lang, "text", `${where(block)}: a ${block.lang} block needs a marker`);
          assert.ok(
            !block.text.startsWith("$ "),
            `${where(block)}: a command's output needs <!-- output: COMMAND -->`,
          );
        },
      );
    }
  }
  assert.ok(ran >= 20, `only ${ran} examples ran`);
  assert.ok(server.requests.length > 0, "no live example reached the stand-in model");
});
