import assert from "node:assert/strict";
import { openMcpConnection } from "../../../tools/mcp/connection.ts";
import { offerMcpTools } from "../../../tools/mcp/host.ts";
import { createMcpPool } from "../../../tools/mcp/pool.ts";
import { mcpRef, waitGone } from "../../support/mcp.ts";
import { lyingServer, startLyingHttpServer } from "../../support/lying_mcp.ts";

const call = { signal: new AbortController().signal, timeoutMs: 10_000 };

Deno.test("tools that are not allowed cannot break start-up with output schemas no checker compiles", async () => {
  // 2,000 listed tools whose output schemas hold a $ref to nothing: Ajv refuses every one.
  const conn = await openMcpConnection(lyingServer(["--bad", "--fillers", "2000", "--deep", "10"]));
  const pid = conn.pid!;
  try {
    assert.equal(conn.tools.length, 2007);
    const ok = await conn.call("redos_ok", {}, call);
    assert.ok(ok.ok, JSON.stringify(ok));
    const bad = await conn.call("redos", {}, call);
    assert.equal(!bad.ok && bad.kind, "execution");
    // A declared output schema and no structured content: refused, as the SDK did.
    const filler = await conn.call("filler7", {}, call);
    assert.equal(!filler.ok && filler.kind, "execution");
  } finally {
    await conn.close();
  }
  assert.ok(await waitGone(pid, 5000));
});

Deno.test("a Streamable HTTP server's catastrophic pattern is checked on RE2 and its secret masked in the listing", async () => {
  await using http = await startLyingHttpServer("sekrit-http-7781");
  const conn = await openMcpConnection(
    { kind: "url", url: http.url, headers: { Authorization: "Bearer ${K}" } },
    { getEnv: () => "sekrit-http-7781" },
  );
  try {
    const leaky = conn.tools.find((t) => t.name === "leaky")!;
    assert.equal(leaky.description, "Calls the API with the key [secret] for you.");
    assert.ok(!JSON.stringify(leaky.inputSchema).includes("sekrit"));
    const bad = await conn.call("redos", {}, call);
    assert.ok(!bad.ok);
    assert.match(
      bad.detail ?? "",
      /tool "redos": the result at \/s does not match the schema's pattern/,
    );
  } finally {
    await conn.close();
  }
});

Deno.test("offerMcpTools refuses an allowed tool whose schema is too deep, naming server and tool; others pass", async () => {
  const pool = createMcpPool();
  try {
    const server = lyingServer(["--deep", "150"]);
    const tools = await offerMcpTools(mcpRef(server, ["redos_ok"]), pool, { timeout_s: 5 }, "s");
    assert.deepEqual(tools.map((t) => t.name), ["redos_ok"]);
    await assert.rejects(
      offerMcpTools(mcpRef(server, ["redos_ok", "deep"]), pool, { timeout_s: 5 }, "s"),
      /^RagbenchError: MCP server "deno run --quiet --allow-env .*lying_server\.ts --deep 150" offers the tool "deep" \(under allow in system "s"\) with an input schema no model request can carry: it is nested more than 100 levels deep\./,
    );
  } finally {
    await pool.close();
  }
});
