/**
 * Runs the commands of the README's "Your own documents in five minutes"
 * section, in order, on a folder of documents: `init`, the `--mock` run,
 * `validate`, then the section's `model:` block put into the config (its
 * base_url pointed at a stand-in OpenAI-compatible server on 127.0.0.1) and
 * the live run with the key variable the section exports. Each
 * `deno task ragbench ARGS` runs as the launcher runs it: `deno run` of
 * main.ts with the least permissions the command needs, and nothing more.
 */

import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { initNeeds } from "../../lib/plan/init_needs.ts";
import { permissionFlags } from "../../lib/plan/permissions.ts";
import { execCli, ROOT } from "../support/cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { makePdf } from "../support/pdf_fixture.ts";
import { tempTree } from "../support/temp.ts";

const HEADING = "## Your own documents in five minutes";

/** The section's fenced blocks, in order, with their language. */
function sectionBlocks(): Array<{ lang: string; text: string }> {
  const readme = Deno.readTextFileSync(`${ROOT}README.md`);
  const start = readme.indexOf(`\n${HEADING}\n`);
  assert.ok(start >= 0, "the README has the section");
  const end = readme.indexOf("\n## ", start + HEADING.length + 2);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks: Array<{ lang: string; text: string }> = [];
  const fence = /```(\w*)\n([\s\S]*?)```/g;
  for (let m = fence.exec(section); m !== null; m = fence.exec(section)) {
    blocks.push({ lang: m[1], text: m[2] });
  }
  return blocks;
}

/** Shell lines of a block: continuations joined, comments dropped, `~/` made `home`. */
function shellLines(text: string, home: string): string[] {
  return text.replace(/\\\n\s*/g, " ").split("\n").map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.replaceAll("~/", `${home}/`));
}

/** The least permission flags of one command, as the launcher computes them. */
async function flagsFor(argv: string[], cwd: string): Promise<string[]> {
  if (argv[0] === "init") {
    const dir = argv[argv.indexOf("--dir") + 1];
    return permissionFlags(initNeeds(argv[1], dir), cwd);
  }
  const printed = await execCli(
    ["--allow-read", "--allow-env"],
    ["permissions", ...argv.slice(1)],
    {
      cwd,
    },
  );
  assert.equal(printed.code, 0, printed.stderr);
  const flags = printed.stdout.split("\n")[1].split(" ").filter((f) => f.startsWith("--allow"));
  // validate reads what a --mock run reads.
  return argv[0] === "validate" ? flags.filter((f) => !f.startsWith("--allow-write")) : flags;
}

Deno.test("README: your own documents in five minutes, from init to a live run against an OpenAI-compatible endpoint", async () => {
  await using t = await tempTree({
    "home/handbook/setup.md":
      "# Setup\n\nInstall the harbor tools with the package manager before the first tide.\n",
    "home/handbook/policies/leave.rst":
      "Leave policy\n============\n\nEvery employee has 25 days of paid leave each calendar year.\n",
    "home/handbook/welcome.html":
      "<title>Welcome</title><p>New staff meet the harbor master on their first Monday.</p>",
  });
  await Deno.writeFile(
    t.path("home/handbook/tides.pdf"),
    makePdf({ pages: [["High tide at the north pier is at 06:10 in January."]] }),
  );
  const home = t.path("home");
  const cwd = t.path("work");
  await Deno.mkdir(cwd);
  const blocks = sectionBlocks();
  assert.deepEqual(blocks.map((b) => b.lang), ["sh", "sh", "yaml", "sh"]);
  const [initBlock, mockBlock, modelBlock, liveBlock] = blocks;

  const run = async (line: string, env: Record<string, string> = {}) => {
    const prefix = "deno task ragbench ";
    assert.ok(line.startsWith(prefix), line);
    const argv = line.slice(prefix.length).split(/\s+/);
    const result = await execCli(await flagsFor(argv, cwd), argv, { cwd, env });
    assert.equal(result.code, 0, `${line}\n${result.stderr}`);
    return result;
  };

  // init, then the --mock run.
  const [init] = shellLines(initBlock.text, home);
  const made = await run(init);
  assert.match(made.stdout, /ragbench\.yaml: OK/);
  const config = `${home}/handbook-bench/ragbench.yaml`;
  const questions = parse(await Deno.readTextFile(`${home}/handbook-bench/questions.yaml`)).length;
  assert.ok(questions >= 4, `${questions} questions`);
  const [mockRun] = shellLines(mockBlock.text, home);
  const mocked = await run(mockRun);
  assert.match(mocked.stdout, new RegExp(`^agent_search +${questions} `, "m"));
  assert.match(mocked.stdout, /Measured with --mock and no mock script/);

  // The validate command the text names.
  const readme = Deno.readTextFileSync(`${ROOT}README.md`);
  const validate = /`(deno task ragbench validate [^`]+)`/.exec(
    readme.slice(readme.indexOf(HEADING)),
  )![1].replaceAll("~/", `${home}/`);
  await run(validate);

  // The live run: the section's model block, its endpoint replaced by the stand-in server.
  await using server = startFakeOpenAIServer(() => ({
    json: chatCompletion({
      content: "I cannot find that in the documents.",
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    }),
  }));
  const model = parse(modelBlock.text).model;
  assert.equal(typeof model.name, "string");
  const written = parse(await Deno.readTextFile(config));
  written.model = { ...model, base_url: server.baseUrl };
  await Deno.writeTextFile(config, stringify(written));
  const live = shellLines(liveBlock.text, home);
  const exported = live.filter((l) => l.startsWith("export ")).map((l) => l.slice(7).split("="));
  assert.deepEqual(exported.map(([name]) => name), [model.api_key_env]);
  const env = Object.fromEntries(exported.map(([name]) => [name, "test-key"]));
  const liveRun = live.filter((l) => !l.startsWith("export "));
  assert.equal(liveRun.length, 1);
  const result = await run(liveRun[0], env);
  assert.doesNotMatch(result.stdout, /simulated/);
  // Every question × 4 systems, one model call each (the stand-in never calls a tool).
  assert.equal(server.requests.length, questions * 4);
  for (const request of server.requests) {
    assert.equal(request.headers.authorization, "Bearer test-key");
    assert.equal((request.body as { model: string }).model, model.name);
  }
  const prompts = server.requests.map((r) => JSON.stringify(r.body));
  assert.ok(prompts.some((p) => p.includes("doc_id: tides | passage: tides#0 | page: 1")));
  assert.ok(prompts.some((p) => p.includes("doc_id: policies/leave")));
});
