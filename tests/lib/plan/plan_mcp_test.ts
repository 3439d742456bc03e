import assert from "node:assert/strict";
import { join } from "node:path";
import { type PlanOptions, planSystems } from "../../../lib/plan/plan.ts";
import type { Config } from "../../../lib/config/types.ts";
import { createMockModel } from "../../../lib/llm/mock_model.ts";
import { EMPTY_SCRIPT } from "../../../lib/llm/mock_script.ts";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import { ROOT } from "../../support/cli.ts";
import { unusedPort } from "../../support/fake_openai_server.ts";
import { denoChildEnv, everythingCommand, startHttpServer, waitGone } from "../../support/mcp.ts";

const CORPUS = { documents: [], tables: [] };

/** planSystems with the scripted mock as every system's model (these tests exercise tools only). */
function planWithMocks(cfg: Config, corpus: typeof CORPUS, options: Omit<PlanOptions, "models">) {
  const models = new Map(
    cfg.systems.map((s) => [
      s.name,
      createMockModel(EMPTY_SCRIPT, s.model.name, { input_per_mtok: 0, output_per_mtok: 0 }),
    ]),
  );
  return planSystems(cfg, corpus, { ...options, models });
}
const signal = new AbortController().signal;

function config(systems: string, rules = "") {
  return parseConfig(
    `name: t\ncorpus: c.json\nquestions: q.yaml\n${rules}systems:\n${systems}`,
    { file: "t.yaml", absolute: join(ROOT, "t.yaml") },
    REGISTRIES,
  );
}

const faulty = `{command: [${JSON.stringify(Deno.execPath())}, run, --quiet, --allow-env, ${
  join(ROOT, "tests/fixtures/mcp/faulty_server.ts")
}, ok]}`;

Deno.test("two systems naming the same server share one connection, closed with the plan", async () => {
  const plan = await planWithMocks(
    config(`  - {type: agent_search, name: a, tools: [{type: mcp, server: ${faulty}, allow: [pid]}]}
  - {type: agent_search, name: b, tools: [{type: mcp, server: ${faulty}, allow: [pid], prefix: b_}]}
`),
    CORPUS,
    { concurrency: 2 },
  );
  let pid: number;
  try {
    const [a, b] = plan.systems.map((s) => s.toolbox.session("q1"));
    const fromA = await a.execute("pid", "{}", signal);
    const fromB = await b.execute("b_pid", "{}", signal);
    assert.equal(fromA.result.error, null);
    assert.equal(fromA.result.output, fromB.result.output, "the same server process answered");
    pid = Number(fromA.result.output);
    assert.deepEqual(plan.summary.map((s) => s.tools), [["search", "pid"], ["search", "b_pid"]]);
  } finally {
    await plan.close();
  }
  assert.ok(await waitGone(pid), "the server is gone after the plan closed");
});

Deno.test("server-everything over Streamable HTTP: prefix, price, its own description and schema", async () => {
  const port = unusedPort();
  const [command, ...args] = everythingCommand("streamableHttp");
  await using server = await startHttpServer(command, args, {
    env: { PORT: String(port) },
    urlPattern: /listening on port (\d+)/,
    path: "/mcp",
  });
  const plan = await planWithMocks(
    config(
      `  - type: agent_search
    tools: [{type: mcp, server: {url: "${server.url}"}, allow: [get-sum, echo], prefix: ev_, cost_usd: 0.25}]
`,
      "tools: {allow_network: true}\n",
    ),
    CORPUS,
    { concurrency: 1 },
  );
  try {
    const toolbox = plan.systems[0].toolbox;
    const sum = toolbox.tools.find((t) => t.name === "ev_get-sum")!;
    assert.equal(sum.sideEffects, "network");
    assert.ok(sum.description.length > 0);
    assert.deepEqual(Object.keys(sum.parameters.properties as object).sort(), ["a", "b"]);
    const { result } = await toolbox.session("q").execute(
      "ev_get-sum",
      '{"a": 2, "b": 40}',
      signal,
    );
    assert.equal(result.error, null);
    assert.match(result.output, /42/);
    assert.equal(result.cost_usd, 0.25);
  } finally {
    await plan.close();
  }
});

Deno.test("server-everything over stdio: an allow-list typo fails with a did-you-mean", async () => {
  await assert.rejects(
    planWithMocks(
      config(`  - type: agent_search
    tools: [{type: mcp, server: {command: ${JSON.stringify(everythingCommand("stdio"))}, env: ${
        JSON.stringify(denoChildEnv())
      }}, allow: [ech]}]
`),
      CORPUS,
      { concurrency: 1 },
    ),
    /MCP server "deno run --quiet .*everything\.ts stdio" does not offer a tool "ech" \(under allow in system "agent_search"\) — did you mean "echo"\?/,
  );
});

Deno.test("a mock plan offers MCP tools with a free-form schema and starts nothing", async () => {
  const plan = await planWithMocks(
    config(`  - type: agent_search
    tools: [{type: mcp, server: {command: [/no/such/server]}, allow: [lookup], cost_usd: {lookup: 0.5}}]
`),
    CORPUS,
    { concurrency: 1, mock: true },
  );
  try {
    const tool = plan.systems[0].toolbox.tools.find((t) => t.name === "lookup")!;
    assert.deepEqual(tool.parameters, { type: "object", additionalProperties: true });
    const { result } = await plan.systems[0].toolbox.session("q").execute(
      "lookup",
      '{"id": 7}',
      signal,
    );
    assert.deepEqual([result.output, result.cost_usd], ['[mock mcp] lookup({"id":7})', 0.5]);
  } finally {
    await plan.close();
  }
});
