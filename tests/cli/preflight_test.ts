import assert from "node:assert/strict";
import { join } from "node:path";
import { CUSTOM_SCHEMA_CHARS, estimateSystems } from "../../lib/cli/preflight.ts";
import { priceRun } from "../../lib/plan/price_checks.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { REGISTRIES } from "../../lib/plan/setup.ts";
import { parseConfig } from "../../lib/config/load.ts";
import { AGENT_SEARCH_PROMPT } from "../../systems/agent_search.ts";
import { CLOSED_BOOK_PROMPT } from "../../systems/closed_book.ts";
import { parametersJsonSchema } from "../../tools/define_tool.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { execCli, ROOT, runCli, withoutLoadNotes } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const INPUTS = [
  "configs/all.yaml",
  "arenas/rag/corpus.json",
  "arenas/tools/corpus",
  "arenas/rag/questions.yaml",
  "arenas/tools/questions.yaml",
].join(",");

Deno.test("run --dry-run prints the plan and a cost range, runs nothing, and needs only read of the inputs", async () => {
  const result = await execCli([`--allow-read=${INPUTS}`], [
    "run",
    "configs/all.yaml",
    "--dry-run",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split("\n");
  assert.equal(lines[0], "plan: 9 systems × 21 questions × 1 repeat = 189 runs");
  const line = (system: string) => lines.find((l) => l.startsWith(`  ${system} (`)) ?? "";
  assert.match(
    line("closed_book"),
    /^ {2}closed_book \(openai:gpt-4o-mini\): 1 model call a question, \$[0-9.]+–\$[0-9.]+$/,
  );
  assert.match(
    line("agent_search_only"),
    /^ {2}agent_search_only \(openai:gpt-4o-mini\): 1–8 model calls a question, /,
  );
  assert.match(lines.at(-1)!, /^estimated cost: \$[0-9.]+–\$[0-9.]+ \(list prices; /);
});

Deno.test("every run starts with the estimate line", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    join(ROOT, "configs/rag.yaml"),
    "--mock",
    "--out",
    out,
  ]);
  assert.equal(result.code, 0, result.stderr);
  // On a loaded machine, loading may take over a second and say so first.
  assert.match(
    withoutLoadNotes(result.stderr),
    /^plan: 2 systems × 15 questions × 1 repeat = 30 runs\n/,
  );
  assert.match(result.stderr, /\nestimated cost, simulated \(--mock spends nothing\): \$/);
});

function cappedConfig(cap: number, model = ""): string {
  return Deno.readTextFileSync(join(ROOT, "configs/rag.yaml"))
    .replaceAll("../arenas/", `${ROOT}arenas/`)
    .replace(/^evaluation:.*$/m, "")
    .replace(/^model:.*$/m, model)
    .concat(`\nevaluation: {max_cost_usd: ${cap}, concurrency: 1}\n`);
}

Deno.test("a live run whose lower estimate is over evaluation.max_cost_usd stops before the first question; --force starts it", async () => {
  await using server = startFakeOpenAIServer(() => ({
    json: chatCompletion({
      content: "It is 330.",
      usage: { prompt_tokens: 100, completion_tokens: 5 },
    }),
  }));
  await using t = await tempTree({
    "c.yaml": cappedConfig(
      0.0000001,
      `model: {name: test-model, base_url: "${server.baseUrl}", api_key_env: null, max_retries: 0,` +
        " price: {input_per_mtok: 1, output_per_mtok: 2}}",
    ),
  });
  const out = join(t.dir, "run");
  const stopped = await runCli(["run", t.path("c.yaml"), "--cache", "off", "--out", out]);
  assert.equal(stopped.code, 1);
  assert.match(
    stopped.stderr,
    /Not starting the run: its lower cost estimate, \$[0-9.e-]+, is over evaluation\.max_cost_usd \(\$1\.0e-7\)\. Raise the cap, run less \(--limit, --systems\), or pass --force to start anyway\.$/,
  );
  assert.throws(() => Deno.statSync(out), Deno.errors.NotFound, "no run directory, no question");
  assert.equal(server.requests.length, 0);
  const forced = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--out",
    out,
    "--force",
  ]);
  assert.equal(forced.code, 1, "the run's own cap then stops it after the first questions");
  assert.match(forced.stderr, /stopped: evaluation\.max_cost_usd/);
  assert.equal(server.requests.length, 1, "one question, then the cap");
  const roomy = await runCli(["run", t.path("c.yaml"), "--dry-run"]);
  assert.equal(roomy.code, 0, "--dry-run never stops on the cap");
});

Deno.test("a --mock run is never refused or stopped over evaluation.max_cost_usd: its dollars are simulated", async () => {
  await using t = await tempTree({ "c.yaml": cappedConfig(0.0000001) });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /Not starting the run|stopped: evaluation\.max_cost_usd/);
  assert.match(
    result.stderr,
    /\n--mock: evaluation\.max_cost_usd is not applied \(the mock's dollars are simulated\)\n/,
  );
  assert.match(result.stderr, /\nestimated cost, simulated \(--mock spends nothing\): \$/);
  const lines = Deno.readTextFileSync(join(out, "per_question_results.jsonl")).trim().split("\n");
  assert.equal(lines.length, 30, "every question ran");
});

Deno.test("estimateSystems counts the prompt, built-in schemas, and a fixed allowance per custom and MCP tool", async () => {
  const config = parseConfig(
    `name: t
corpus: c.json
questions: q.yaml
tools: {allow: [web]}
systems:
  - {type: closed_book}
  - {type: agent_search, name: plain}
  - type: agent_search
    name: extra
    max_steps: 3
    model: {name: gpt-4o}
    tools:
      - {name: web, path: "./web.ts#web", side_effects: none, description: "Fetch."}
      - {type: mcp, server: {command: [srv]}, allow: [a, bb], prefix: x_}
`,
    { file: "t.yaml", absolute: join(ROOT, "t.yaml") },
    REGISTRIES,
  );
  const [closed, plain, extra] = estimateSystems(
    config,
    true,
    await priceRun(config, { mock: true }),
  );
  assert.deepEqual(closed.calls, { min: 1, max: 1 });
  assert.equal(closed.fixedChars, CLOSED_BOOK_PROMPT.length);
  assert.deepEqual(plain.calls, { min: 1, max: 8 });
  const search = BUILTIN_TOOLS.get("search")!;
  const searchChars = "search".length + search.description.length +
    JSON.stringify(parametersJsonSchema(search)).length;
  assert.equal(plain.fixedChars, AGENT_SEARCH_PROMPT.length + searchChars);
  assert.deepEqual(extra.calls, { min: 1, max: 3 });
  assert.equal(
    extra.fixedChars,
    AGENT_SEARCH_PROMPT.length + searchChars +
      ("web".length + "Fetch.".length + CUSTOM_SCHEMA_CHARS) +
      ("x_a".length + CUSTOM_SCHEMA_CHARS) + ("x_bb".length + CUSTOM_SCHEMA_CHARS),
  );
  assert.equal(extra.modelId, "mock:gpt-4o");
  assert.deepEqual(extra.pricing, { input_per_mtok: 2.5, output_per_mtok: 10 });
});

Deno.test("--cache replay is never stopped by the estimate: it sends nothing", async () => {
  await using t = await tempTree({ "c.yaml": cappedConfig(0.0000001) });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--cache",
    "replay",
    "--cache-dir",
    t.path("cache"),
    "--out",
    t.path("run"),
  ]);
  assert.doesNotMatch(result.stderr, /Not starting the run/);
});
