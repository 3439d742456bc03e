import assert from "node:assert/strict";
import { join } from "node:path";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

Deno.test("tools --json lists every built-in with description, side effects, parameter and option schemas", async () => {
  const result = await runCli(["tools", "--json"]);
  assert.equal(result.code, 0);
  const tools = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(tools.map((t) => t.name), [
    "calculator",
    "list_documents",
    "read_document",
    "corpus_grep",
    "lookup_table",
    "date_calc",
    "search",
  ]);
  for (const tool of tools) {
    assert.equal(tool.side_effects, "none");
    assert.ok(String(tool.description).length > 20);
    const schema = tool.parameters as { properties: Record<string, { description?: string }> };
    for (const [name, p] of Object.entries(schema.properties)) {
      assert.ok(p.description, `${tool.name}.${name} has a description`);
    }
  }
  const grep = tools.find((t) => t.name === "corpus_grep")!;
  assert.deepEqual((grep.options as { properties: object }).properties, {
    max_results: {
      type: "integer",
      default: 50,
      minimum: 1,
      maximum: 9007199254740991,
      description: "Hard cap on matching lines per call, whatever the model asks for.",
    },
  });
  assert.equal(tools.find((t) => t.name === "search")!.options, null);
});

Deno.test("tools prints a readable list", async () => {
  const result = await runCli(["tools"]);
  assert.equal(result.code, 0);
  for (const name of BUILTIN_TOOLS.keys()) {
    assert.match(result.stdout, new RegExp(`^${name}  \\(side effects: none\\)$`, "m"));
  }
  assert.match(result.stdout, /^ {4}expression: string, required — /m);
  assert.match(result.stdout, /^ {4}top_k: integer, default 5 — /m);
});

Deno.test("tool makes one call in the sandbox and prints the ToolResult as JSON (exit 0)", async () => {
  const result = await execCli(["--allow-read"], [
    "tool",
    "calculator",
    "--args",
    '{"expression": "0.1 + 0.2"}',
  ]);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout);
  assert.equal(parsed.output, "0.3");
  assert.equal(parsed.error, null);
  assert.equal(parsed.truncated, false);
  assert.equal(typeof parsed.latency_ms, "number");
});

Deno.test("tool exits 0 with the error in the result when the call itself fails", async () => {
  const result = await runCli(["tool", "calculator", "--args", '{"expression": "9**9**9"}']);
  assert.equal(result.code, 0);
  const parsed = JSON.parse(result.stdout);
  assert.equal(parsed.error.kind, "invalid_args");
  assert.equal(parsed.output, "");
});

Deno.test("tool uses --config's corpus, tool options and date, or --corpus and --today", async () => {
  const config = join(ROOT, "configs/all.yaml");
  const grep = await runCli([
    "tool",
    "corpus_grep",
    "--config",
    config,
    "--args",
    '{"pattern": "HW-7731-X"}',
  ]);
  assert.equal(grep.code, 0, grep.stderr);
  assert.match(
    JSON.parse(grep.stdout).output,
    /harbor_works\/support_policy:4: Escalation code HW-7731-X/,
  );
  const table = await runCli([
    "tool",
    "lookup_table",
    "--corpus",
    join(ROOT, "arenas/tools/corpus"),
    "--args",
    '{"where": {"product": " tidegauge "}, "select": ["price_usd"]}',
  ]);
  assert.match(JSON.parse(table.stdout).output, /price_usd=389\.99/);
  const today = await runCli([
    "tool",
    "date_calc",
    "--today",
    "2027-02-28",
    "--args",
    '{"operation": "add", "days": 1}',
  ]);
  assert.equal(JSON.parse(today.stdout).data.date, "2027-03-01");
});

Deno.test("tool: output longer than max_output_chars is cut and flagged truncated", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
tools: {max_output_chars: 100}
systems: [{type: agent_search}]
`,
  });
  const result = await runCli(["tool", "list_documents", "--config", t.path("c.yaml")]);
  const parsed = JSON.parse(result.stdout);
  assert.equal(parsed.truncated, true);
  assert.ok(parsed.output.length <= 100 + 50);
  assert.match(parsed.output, /\[output cut at 100 characters\]$/);
});

const usage: Array<[string, string[], RegExp]> = [
  [
    "an unknown tool",
    ["tool", "serch"],
    /^Unknown tool "serch" — did you mean "search"\? See ragbench tools\.$/,
  ],
  ["--args that are not JSON", ["tool", "calculator", "--args", "{x"], /^--args must be JSON: /],
  [
    "--config with --corpus",
    ["tool", "search", "--config", "a", "--corpus", "b"],
    /^Give either --config or --corpus, not both\.$/,
  ],
  [
    "a bad --today",
    ["tool", "date_calc", "--today", "2026-13-01"],
    /^--today must be a date written YYYY-MM-DD \(got "2026-13-01"\)\.$/,
  ],
  ["no tool name", ["tool"], /^Missing NAME — usage: ragbench tool NAME \[options\]$/],
];

for (const [name, argv, message] of usage) {
  Deno.test(`tool: ${name} is a usage error (exit 2)`, async () => {
    const result = await runCli(argv);
    assert.equal(result.code, 2);
    assert.match(result.stderr, message);
  });
}
