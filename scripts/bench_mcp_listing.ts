// deno-lint-ignore-file no-console
/**
 * Start-up of an MCP server that lists many tools, each declaring an output
 * schema with a pattern: ragbench's connection (`openMcpConnection`: the tool
 * list is read, secrets masked, nothing compiled) against the MCP SDK's own
 * `Client` with its default checker (Ajv, which compiles every listed tool's
 * output schema in `listTools`), both over the same stdio transport and the
 * same server (tests/fixtures/mcp/lying_server.ts `--fillers N`).
 *
 *   deno run --unstable-raw-imports --allow-read --allow-run --allow-env \
 *     scripts/bench_mcp_listing.ts [--tools N] [--runs N]
 *
 * Prints the seconds of each side (best of the runs) and their ratio.
 * Measured here (shared 2-core machine, one run, 100,000 tools): ragbench
 * 2.87 s, the SDK's Client 74.7 s (0.038x). Before the change ragbench used
 * the SDK's checker too, so its start-up was the SDK's.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { openMcpConnection } from "../tools/mcp/connection.ts";
import { DenoStdioTransport } from "../tools/mcp/stdio_transport.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { tools: { type: "string", default: "100000" }, runs: { type: "string", default: "2" } },
});
const tools = Number(values.tools);
const runs = Number(values.runs);
const server = new URL("../tests/fixtures/mcp/lying_server.ts", import.meta.url).pathname;
const command = [
  Deno.execPath(),
  "run",
  "--quiet",
  "--allow-env",
  server,
  "--fillers",
  String(tools),
];

async function ours(): Promise<number> {
  const started = performance.now();
  const connection = await openMcpConnection(
    { kind: "command", command, env: {}, cwd: "." },
    { startupTimeoutMs: 600_000 },
  );
  const seconds = (performance.now() - started) / 1000;
  if (connection.tools.length < tools) throw new Error("not every tool was listed");
  await connection.close();
  return seconds;
}

async function sdk(): Promise<number> {
  const started = performance.now();
  const transport = new DenoStdioTransport({ command, env: {}, cwd: "." });
  const client = new Client({ name: "bench", version: "0" }, { capabilities: {} });
  await client.connect(transport, { timeout: 600_000 });
  const listed = await client.listTools(undefined, { timeout: 600_000 });
  const seconds = (performance.now() - started) / 1000;
  if (listed.tools.length < tools) throw new Error("not every tool was listed");
  await client.close();
  return seconds;
}

const best = { ours: Infinity, sdk: Infinity };
for (let run = 0; run < runs; run++) {
  best.ours = Math.min(best.ours, await ours());
  best.sdk = Math.min(best.sdk, await sdk());
}
console.log(
  `${tools} listed tools, each with an output schema holding a pattern (best of ${runs}):`,
);
console.log(`  ragbench connection (lists, masks, compiles nothing): ${best.ours.toFixed(2)} s`);
console.log(`  SDK Client, default Ajv checker (compiles each):      ${best.sdk.toFixed(2)} s`);
console.log(`  ratio ragbench / SDK: ${(best.ours / best.sdk).toFixed(3)}`);
// The start-up limit's timer (STARTUP_TIMEOUT_MS, raised above) would keep the process alive.
Deno.exit(0);
