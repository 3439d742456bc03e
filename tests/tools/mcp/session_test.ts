import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Session } from "../../../tools/mcp/session.ts";
import { Secrets } from "../../../tools/mcp/secrets.ts";

const call = { signal: new AbortController().signal, timeoutMs: 10_000 };

/** What the server's handler throws to answer with a JSON-RPC error of `code`. */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** What each tool of the in-process server does when called. */
const BEHAVIOUR: Record<string, () => unknown> = {
  typed: () => ({ content: [{ type: "text", text: "no structured content" }] }),
  typed_error: () => ({ content: [{ type: "text", text: "it failed" }], isError: true }),
  typed_ok: () => ({ content: [], structuredContent: { n: 1 } }),
  refuses: () => {
    throw rpcError(ErrorCode.InvalidParams, "n must be a number");
  },
  unknown: () => {
    throw rpcError(ErrorCode.MethodNotFound, "no such tool");
  },
  words: () => {
    throw rpcError(ErrorCode.InternalError, "the structured content broke the output schema");
  },
  status: () => {
    throw rpcError(503, "busy");
  },
  slow: () => new Promise(() => {}),
};
const OUTPUT = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };

/** A session over an in-process server (no process, no pipe): the outcome mapping alone. */
async function session(): Promise<{ session: Session; server: Server }> {
  const server = new Server({ name: "in-memory", version: "0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.keys(BEHAVIOUR).map((name) => ({
      name,
      description: `Test tool ${name}.`,
      inputSchema: { type: "object" },
      ...(name.startsWith("typed") ? { outputSchema: OUTPUT } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request: { params: { name: string } }) => {
    return BEHAVIOUR[request.params.name]() as never;
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" }, { capabilities: {} });
  await client.connect(clientSide);
  const s = new Session(client, null, {
    label: "in-memory",
    redact: (text) => text,
    transportCode: () => null,
  });
  await s.listTools(AbortSignal.timeout(10_000), new Secrets());
  return { session: s, server };
}

Deno.test("session: a tool that declares an output schema and sends no structured content is refused; an error result is not", async () => {
  const { session: s } = await session();
  try {
    const refused = await s.call("typed", {}, call);
    assert.deepEqual(refused, {
      ok: false,
      kind: "execution",
      message: "The MCP server sent a result that does not match the tool's own output schema.",
      detail:
        'MCP server "in-memory", tool "typed": it declares an output schema but sent no structured content',
    });
    assert.equal((await s.call("typed_error", {}, call)).ok, true);
    assert.equal((await s.call("typed_ok", {}, call)).ok, true);
  } finally {
    await s.close();
  }
});

Deno.test("session: the SDK's error codes decide the outcome, never the error's words", async () => {
  const { session: s } = await session();
  try {
    const outcome = async (tool: string, timeoutMs = 10_000) => {
      const o = await s.call(tool, {}, { ...call, timeoutMs });
      assert.ok(!o.ok);
      return { kind: o.kind, message: o.message };
    };
    assert.deepEqual(await outcome("refuses"), {
      kind: "invalid_args",
      message: "The MCP server refused the arguments: MCP error -32602: n must be a number",
    });
    assert.deepEqual(await outcome("unknown"), {
      kind: "unknown_tool",
      message: "The MCP server does not know this tool: MCP error -32601: no such tool",
    });
    // An error whose words speak of output schemas is the server's error all the same …
    assert.deepEqual(await outcome("words"), {
      kind: "execution",
      message:
        "The MCP server reported an error: MCP error -32603: the structured content broke the output schema",
    });
    // … and a JSON-RPC error code that looks like an HTTP status is no HTTP answer.
    assert.deepEqual(await outcome("status"), {
      kind: "execution",
      message: "The MCP server reported an error: MCP error 503: busy",
    });
    // The SDK's backstop timer (timeoutMs + 1 s): RequestTimeout.
    assert.deepEqual(await outcome("slow", 1), {
      kind: "timeout",
      message: "The MCP tool call took too long.",
    });
    assert.equal(s.died, false);
  } finally {
    await s.close();
  }
});

Deno.test("session: a server that goes away (ConnectionClosed) ends the session: it needs a restart", async () => {
  const { session: s, server } = await session();
  try {
    const pending = s.call("slow", {}, call);
    await server.close();
    const outcome = await pending;
    assert.ok(!outcome.ok);
    assert.equal(outcome.kind, "unavailable");
    assert.equal(
      outcome.message,
      "The MCP server stopped while handling the call; it will be restarted once.",
    );
    assert.equal(outcome.detail, 'MCP server "in-memory": the connection closed');
    assert.equal(s.died, true);
  } finally {
    await s.close();
  }
});
