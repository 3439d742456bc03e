import assert from "node:assert/strict";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import type { Config } from "../../../lib/config/types.ts";
import { runNeeds } from "../../../lib/plan/permissions.ts";

const WHERE = { file: "mcp.yaml", absolute: "/project/configs/mcp.yaml" };

function load(tools: string, rules = ""): Config {
  return parseConfig(
    `name: t
corpus: c.json
questions: q.yaml
${rules}systems:
  - type: agent_search
    tools:
${tools}`,
    WHERE,
    REGISTRIES,
  );
}

function loadError(tools: string, rules = ""): string {
  try {
    load(tools, rules);
  } catch (error) {
    return (error as Error).message;
  }
  return assert.fail("expected a config error");
}

Deno.test("config: an mcp entry becomes a ref with its server, allow list, prefix and prices", () => {
  const config = load(`      - type: mcp
        server: {command: [deno, run, ../examples/mcp_server.ts], env: {TOKEN: "\${MY_TOKEN}"}}
        allow: [convert_units, days_between]
        prefix: ex_
        cost_usd: {days_between: 0.001}
        timeout_s: 5
`);
  const ref = config.systems[0].tools[0];
  assert.equal(ref.kind, "mcp");
  assert.deepEqual(ref, {
    kind: "mcp",
    name: "mcp deno run ../examples/mcp_server.ts",
    server: {
      kind: "command",
      command: ["deno", "run", "../examples/mcp_server.ts"],
      env: { TOKEN: "${MY_TOKEN}" },
      cwd: "/project/configs",
    },
    allow: ["convert_units", "days_between"],
    prefix: "ex_",
    cost_usd: { days_between: 0.001 },
    timeout_s: 5,
  });
});

Deno.test("config: an unknown key in an mcp entry or its server gets a did-you-mean", () => {
  assert.match(
    loadError(`      - {type: mcp, server: {command: [x]}, allow: [a], prefx: p_}\n`),
    /line 7.*unknown key "prefx" in systems\[0\]\.tools\[0\] — did you mean "prefix"\?/,
  );
  assert.match(
    loadError(`      - {type: mcp, server: {command: [x], evn: {}}, allow: [a]}\n`),
    /unknown key "evn" in systems\[0\]\.tools\[0\]\.server — did you mean "env"\?/,
  );
});

Deno.test("config: allow is required, and a url server needs tools.allow_network", () => {
  assert.match(loadError(`      - {type: mcp, server: {command: [x]}}\n`), /allow/);
  assert.match(
    loadError(`      - {type: mcp, server: {url: "http://127.0.0.1:8765/mcp"}, allow: [a]}\n`),
    /an MCP url server is a network tool, which tools.allow_network forbids — set tools.allow_network: true/,
  );
  const config = load(
    `      - {type: mcp, server: {url: "https://mcp.example.com/mcp", headers: {Authorization: "Bearer \${TOK}"}}, allow: [a]}\n`,
    "tools: {allow_network: true}\n",
  );
  const needs = runNeeds(config, { mock: false, runDir: "runs" });
  assert.ok(needs.some((n) => n.name === "net" && n.value === "mcp.example.com:443"));
  assert.ok(needs.some((n) => n.name === "env" && n.value === "TOK"));
  assert.ok(!needs.some((n) => n.name === "run"));
  assert.ok(!runNeeds(config, { mock: true, runDir: "runs" }).some((n) => n.value === "TOK"));
});

Deno.test("config: a command server needs --allow-run for every program (to stop its process group), plus its variables", () => {
  const config = load(
    `      - {type: mcp, server: {command: [/usr/bin/node, s.js], env: {K: "\${SERVER_KEY}"}}, allow: [a]}\n`,
  );
  const needs = runNeeds(config, { mock: false, runDir: "runs" });
  assert.deepEqual(needs.filter((n) => n.name === "run").map((n) => n.value), [""]);
  assert.match(needs.find((n) => n.name === "run")!.why, /filesystem side effects/);
  assert.match(needs.find((n) => n.name === "run")!.why, /process group/);
  assert.ok(needs.some((n) => n.name === "env" && n.value === "SERVER_KEY"));
  assert.ok(needs.some((n) => n.name === "env" && n.value === "PATH"));
  assert.ok(!runNeeds(config, { mock: true, runDir: "runs" }).some((n) => n.name === "run"));
});

Deno.test("config: MCP names may not shadow a built-in, repeat, or price a tool not allowed", () => {
  assert.match(
    loadError(`      - {type: mcp, server: {command: [x]}, allow: [search]}\n`),
    /MCP tool "search" would shadow the ragbench tool of that name — set a prefix/,
  );
  assert.match(
    loadError(
      `      - {type: mcp, server: {command: [x]}, allow: [a]}\n      - {type: mcp, server: {command: [y]}, allow: [a]}\n`,
    ),
    /tool "a" is offered twice by this system/,
  );
  assert.match(
    loadError(`      - {type: mcp, server: {command: [x]}, allow: [days], cost_usd: {dayz: 1}}\n`),
    /cost_usd prices "dayz", which is not under allow — did you mean "days"\?/,
  );
});

Deno.test("config: a malformed \${VAR} is refused", () => {
  assert.match(
    loadError(`      - {type: mcp, server: {command: [x], env: {K: "\${1BAD}"}}, allow: [a]}\n`),
    /env\.K: "\$\{1BAD\}" is not a valid \$\{VAR\} reference/,
  );
  assert.match(
    loadError(`      - {type: mcp, server: {command: [x], env: {K: "abc\${OPEN"}}, allow: [a]}\n`),
    /is not a valid \$\{VAR\} reference/,
  );
});
