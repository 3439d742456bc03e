import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

/** A fake model that uses the example server's tools when they are offered. */
function exampleModel() {
  return startFakeOpenAIServer((request) => {
    const body = request.body as {
      messages: Array<{ role: string; content: string | null }>;
      tools?: Array<{ function: { name: string } }>;
    };
    const question = body.messages.find((m) => m.role === "user")?.content ?? "";
    const toolResult = body.messages.find((m) => m.role === "tool")?.content;
    const offered = new Set((body.tools ?? []).map((t) => t.function.name));
    const usage = { prompt_tokens: 20, completion_tokens: 10 };
    const eiffel = question.includes("Eiffel");
    if (toolResult !== undefined && toolResult !== null) {
      const number = toolResult.match(/(\d+(\.\d+)?) ft$/)?.[1] ?? toolResult;
      return { json: chatCompletion({ content: `The answer is ${number}.`, usage }) };
    }
    const tool = eiffel ? "ex_convert_units" : "ex_days_between";
    if (!offered.has(tool)) {
      return { json: chatCompletion({ content: "I cannot compute that exactly.", usage }) };
    }
    const args = eiffel
      ? { value: 330, from: "m", to: "ft" }
      : { start: "1886-10-28", end: "1914-08-15" };
    return {
      json: chatCompletion({
        tool_calls: [{ id: "call_1", name: tool, arguments: JSON.stringify(args) }],
        usage,
      }),
    };
  });
}

Deno.test("configs/mcp_example.yaml runs live against the example server with the flags ragbench permissions prints", async () => {
  await using t = await tempTree();
  await using model = exampleModel();
  const text = (await Deno.readTextFile(join(ROOT, "configs/mcp_example.yaml")))
    .replaceAll("../", ROOT);
  await Deno.writeTextFile(
    t.path("mcp_example.yaml"),
    `${text}model: {base_url: "${model.baseUrl}", api_key_env: MCP_TEST_API_KEY, name: fake-model,\n` +
      `        price: {input_per_mtok: 0, output_per_mtok: 0}, max_retries: 0}\n`,
  );
  const out = t.path("run");
  const printed = await runCli([
    "permissions",
    t.path("mcp_example.yaml"),
    "--out",
    out,
    "--cache-dir",
    t.path("cache"),
  ]);
  assert.equal(printed.code, 0, printed.stderr);
  const flags = printed.stdout.split("\n")[1].split(" ").filter((f) => f.startsWith("--allow"));
  assert.ok(flags.includes("--allow-run"), flags.join(" "));
  // `deno` on PATH is the one running these tests.
  const path = `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`;
  const result = await execCli(flags, [
    "run",
    t.path("mcp_example.yaml"),
    "--out",
    out,
    "--cache-dir",
    t.path("cache"),
  ], {
    env: { MCP_TEST_API_KEY: "sk-test", PATH: path },
  });
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const withMcp = lines.filter((l) => l.system === "agent_with_mcp");
  assert.deepEqual(withMcp.map((l) => l.passed), [true, true]);
  const days = withMcp[1].steps.find((s): s is ToolStep => s.type === "tool")!;
  assert.equal(days.tool, "ex_days_between");
  assert.equal(days.result.output, "10152");
  assert.equal(days.result.cost_usd, 0.001);
  assert.deepEqual(
    lines.filter((l) => l.system === "agent_search_only").map((l) => l.passed),
    [false, false],
  );
});
