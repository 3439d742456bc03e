import assert from "node:assert/strict";
import { join } from "node:path";
import { DenoStdioTransport } from "../../../tools/mcp/stdio_transport.ts";
import { ROOT } from "../../support/cli.ts";
import { denoChildEnv, everythingCommand } from "../../support/mcp.ts";

const SERVERS: Array<[string, () => string[]]> = [
  [
    "our example server",
    () => [Deno.execPath(), "run", "--quiet", join(ROOT, "examples/mcp_server.ts")],
  ],
  ["server-everything", () => everythingCommand("stdio")],
];

for (const [name, command] of SERVERS) {
  Deno.test(`${name} exits by itself when its stdin closes (so a killed ragbench leaves no orphan)`, async () => {
    const transport = new DenoStdioTransport({
      command: command(),
      env: denoChildEnv(),
      cwd: ROOT,
    });
    const answered = Promise.withResolvers<void>();
    transport.onmessage = () => answered.resolve();
    await transport.start();
    await transport.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "0" },
      },
    });
    await answered.promise;
    await transport.close(15_000);
    const status = await transport.status;
    assert.equal(status.signal, null, "it exited on end of input, it was not killed");
  });
}

Deno.test("a server that ignores end of input is killed after the grace period", async () => {
  const transport = new DenoStdioTransport({
    command: [Deno.execPath(), "eval", "setInterval(() => {}, 1000)"],
    env: {},
    cwd: ROOT,
  });
  await transport.start();
  await transport.close(200);
  assert.equal((await transport.status).signal, "SIGKILL");
});
