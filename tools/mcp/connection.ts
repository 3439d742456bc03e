/**
 * One connection to one MCP server: starts it (command servers) or reaches
 * it (url servers), reads its tool list, and makes calls with a total time
 * limit and cancellation. The SDK's `Client` speaks the protocol; it is
 * loaded on first use only, so runs without MCP never load it.
 *
 * Faults become data: a call that fails returns an error outcome, never
 * throws. A server that dies (or breaks the protocol) fails the calls in
 * flight; the next call restarts it once; after a second death every call
 * fails at once. Every text shown or kept (errors, stderr) is passed through
 * the server's {@link Secrets} first.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { RagbenchError } from "../../lib/errors.ts";
import type { ToolErrorKind } from "../../lib/types.ts";
import type { McpServerDef } from "../../lib/config/mcp_ref.ts";
import { serverLabel } from "../../lib/config/mcp_ref.ts";
import type { McpCallResult } from "./result.ts";
import { fillTemplates, readEnv, Secrets } from "./secrets.ts";
import type { OutputCheck } from "./output_schema.ts";
import type { DenoStdioTransport } from "./stdio_transport.ts";
import { VERSION } from "../../lib/version.ts";

/** A tool as the server describes it (description and input schema with secrets masked). */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The schema its `structuredContent` must fit (as sent: it is only checked, never shown). */
  outputSchema?: Record<string, unknown>;
}

/** What a call came to: the server's result, or why there is none. */
export type CallOutcome =
  | { ok: true; result: McpCallResult }
  | { ok: false; kind: ToolErrorKind; message: string; detail?: string };

/** An open connection. */
export interface McpConnection {
  /** The server's command line or URL, for messages (holds no secret). */
  readonly label: string;
  readonly tools: readonly McpToolInfo[];
  /** Masks the server's secrets in `text`. */
  redact(text: string): string;
  /** Calls a tool; never throws. `timeoutMs` is a total limit, progress notwithstanding. */
  call(
    tool: string,
    args: unknown,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallOutcome>;
  /** The server's process id (command servers), for tests and diagnostics. */
  readonly pid: number | null;
  close(): Promise<void>;
}

/** How long starting a server and its handshake may take. */
export const STARTUP_TIMEOUT_MS = 30_000;
/** Why a start failed when {@link OpenOptions.signal} (the run's Ctrl-C) stopped it. */
const CANCELLED = "its start-up was cancelled";
/** Tool descriptions longer than this are cut before the model sees them. */
export const MAX_DESCRIPTION_CHARS = 4000;
const MAX_TOOL_PAGES = 50;

/** Options of {@link openMcpConnection}. */
export interface OpenOptions {
  /** Where `${VAR}` values come from (default: this process's environment). */
  getEnv?: (name: string) => string | undefined;
  startupTimeoutMs?: number;
  /** Stops a start in progress (the run's Ctrl-C): the server is killed and the open rejects. */
  signal?: AbortSignal;
}

interface Session {
  client: Client;
  stdio: DenoStdioTransport | null;
  tools: McpToolInfo[];
  /** Output-schema checks of the tools called so far (only allowed tools are ever called). */
  checks: Map<string, OutputCheck | null>;
  /** Set when the server went away without being asked to. */
  died: boolean;
}

/**
 * Starts or reaches the server and reads its tools.
 *
 * @throws {RagbenchError} (code "config") naming the server, and for a
 *   command server the first lines of its stderr, when it cannot start,
 *   exits during the handshake, or a url server cannot be reached or refuses.
 */
export async function openMcpConnection(
  server: McpServerDef,
  options: OpenOptions = {},
): Promise<McpConnection> {
  const label = serverLabel(server);
  const secrets = new Secrets();
  const redact = (text: string) => secrets.redact(text);
  let session = await startSession(server, secrets, options);
  const { signal: _startOnly, ...restartOptions } = options;
  let restarts = 0;
  let closing = false;
  let restarting: Promise<Session | null> | null = null;
  let deadReason: string | null = null;

  const current = async (): Promise<Session | null> => {
    if (closing) return null;
    // Calls that arrive while the one restart is under way wait for it.
    if (restarting) return await restarting;
    if (!session.died) return session;
    if (restarts >= 1) return null;
    restarts++;
    restarting = (async () => {
      try {
        // Not with the start-up's signal: after a first Ctrl-C the questions in progress go on.
        session = await startSession(server, secrets, restartOptions);
        return session;
      } catch (error) {
        deadReason = redact((error as Error).message);
        return null;
      } finally {
        restarting = null;
      }
    })();
    return await restarting;
  };

  return {
    label,
    get tools() {
      return session.tools;
    },
    get pid() {
      return session.stdio?.pid ?? null;
    },
    redact,
    async call(tool, args, { signal, timeoutMs }) {
      if (signal.aborted) return stopped(signal);
      const live = await current();
      if (!live && closing) {
        return {
          ok: false,
          kind: "unavailable",
          message: "The run is ending; the MCP server was closed.",
        };
      }
      if (!live) {
        return {
          ok: false,
          kind: "unavailable",
          message: "The MCP server is not available (it stopped twice); this tool cannot be used.",
          detail: `MCP server "${label}" stopped again after its restart${
            deadReason ? `; restarting failed: ${deadReason}` : ""
          }`,
        };
      }
      const deadline = performance.now() + timeoutMs;
      try {
        const result = await live.client.callTool(
          { name: tool, arguments: args as Record<string, unknown> },
          undefined,
          {
            signal,
            // The toolbox's own timer fires first; these are the backstop, and
            // a total limit: progress notifications never extend it.
            timeout: timeoutMs + 1000,
            maxTotalTimeout: timeoutMs + 1000,
            resetTimeoutOnProgress: false,
            onprogress: () => {},
          },
        );
        return await checkOutput(live, tool, result as McpCallResult, deadline, label);
      } catch (error) {
        if (signal.aborted) return stopped(signal);
        return failure(error, live, label, redact);
      }
    },
    async close() {
      closing = true;
      await restarting?.catch(() => null);
      await closeSession(session);
    },
  };
}

async function startSession(
  server: McpServerDef,
  secrets: Secrets,
  options: OpenOptions,
): Promise<Session> {
  const label = serverLabel(server);
  const getEnv = options.getEnv ?? readEnv;
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "ragbench", version: VERSION }, {
    capabilities: {},
    // The SDK's checker compiles every listed tool's output schema with Ajv and matches patterns
    // with RegExp on this thread; ours (checkOutput) is bounded and runs only for called tools.
    jsonSchemaValidator: UNCHECKED,
  });
  let stdio: DenoStdioTransport | null = null;
  const what = `MCP server "${label}"`;
  let transport;
  if (server.kind === "command") {
    const env = fillTemplates(server.env, getEnv, secrets, what);
    const { DenoStdioTransport } = await import("./stdio_transport.ts");
    stdio = new DenoStdioTransport({ command: server.command, env, cwd: server.cwd });
    transport = stdio;
  } else {
    const headers = fillTemplates(server.headers, getEnv, secrets, what);
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers },
      reconnectionOptions: {
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 2000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 1,
      },
    });
  }
  const session: Session = { client, stdio, tools: [], checks: new Map(), died: false };
  let closedByUs = false;
  client.onclose = () => {
    if (!closedByUs) session.died = true;
  };
  client.onerror = () => {};
  const timeoutMs = options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;
  const fail = async (why: string): Promise<never> => {
    closedByUs = true;
    // The process first, at once: the client's close would give it the grace of a normal end.
    await stdio?.close(0).catch(() => {});
    await client.close().catch(() => {});
    const stderr = stdio ? stderrLines(stdio.stderr) : "";
    // No `cause`: the SDK's error text may quote a response body holding a secret.
    throw new RagbenchError(
      "config",
      secrets.redact(
        `Cannot start ${what}: ${why}.${stderr ? ` Its stderr began:\n${stderr}` : ""}`,
      ),
    );
  };
  const signal = options.signal
    ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)])
    : AbortSignal.timeout(timeoutMs);
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
  } catch (error) {
    if (options.signal?.aborted) return await fail(CANCELLED);
    const late = `it did not answer the handshake within ${timeoutMs / 1000} s`;
    if (stdio === null) return await fail(signal.aborted ? late : describeHttpFailure(error));
    return await fail(
      stdio.breakReason ??
        (signal.aborted
          ? late
          : startFailure(error, server.kind === "command" ? server.command[0] : "")),
    );
  }
  try {
    session.tools = await listAllTools(client, signal, secrets);
  } catch (error) {
    if (options.signal?.aborted) return await fail(CANCELLED);
    return await fail(
      `it did not list its tools (${describeHttpFailure(error)})`,
    );
  }
  const originalClose = session.client.close.bind(session.client);
  session.client.close = async () => {
    closedByUs = true;
    await originalClose();
  };
  return session;
}

async function listAllTools(
  client: Client,
  signal: AbortSignal,
  secrets: Secrets,
): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const listed = await client.listTools(cursor ? { cursor } : undefined, { signal });
    for (const tool of listed.tools) {
      // Masked before the cut, so that a secret across the cut leaves no part of itself.
      const description = secrets.redact(
        tool.description ?? tool.title ?? `MCP tool ${tool.name}`,
      );
      tools.push({
        name: tool.name,
        description: description.length > MAX_DESCRIPTION_CHARS
          ? `${description.slice(0, MAX_DESCRIPTION_CHARS)}…`
          : description,
        inputSchema: secrets.redactJson(tool.inputSchema) as Record<string, unknown>,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      });
    }
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** An SDK checker that accepts everything: {@link checkOutput} does the checking. */
const UNCHECKED = {
  getValidator: () => (input: unknown) => ({
    valid: true as const,
    data: input as never,
    errorMessage: undefined,
  }),
};

/**
 * `result` when its `structuredContent` fits the tool's output schema (or
 * there is nothing to check); else why not. Bounded: see output_schema.ts.
 */
async function checkOutput(
  session: Session,
  tool: string,
  result: McpCallResult,
  deadline: number,
  label: string,
): Promise<CallOutcome> {
  if (result.isError === true || result.structuredContent === undefined) {
    return { ok: true, result };
  }
  let check = session.checks.get(tool);
  if (check === undefined) {
    const schema = session.tools.find((t) => t.name === tool)?.outputSchema;
    // Loaded here: a run whose tools declare no output schema never loads the checker (or RE2).
    check = schema === undefined
      ? null
      : (await import("./output_schema.ts")).compileOutputSchema(schema);
    session.checks.set(tool, check);
  }
  if (check === null) return { ok: true, result };
  const checked = await check.check(result.structuredContent, deadline);
  if (checked.ok) return { ok: true, result };
  const detail = `MCP server "${label}", tool "${tool}": ${checked.message}`;
  if (checked.reason === "mismatch") {
    return {
      ok: false,
      kind: "execution",
      message: "The MCP server sent a result that does not match the tool's own output schema.",
      detail,
    };
  }
  return {
    ok: false,
    kind: checked.reason === "timeout" ? "timeout" : "output_limit",
    message: checked.reason === "timeout"
      ? "The MCP tool's result could not be checked against its output schema within the call's time limit; it was not used."
      : "The MCP tool's result is too large, or its output schema too complex, to check within ragbench's limits; it was not used.",
    detail,
  };
}

async function closeSession(session: Session): Promise<void> {
  await session.client.close().catch(() => {});
  await session.stdio?.close().catch(() => {});
}

function stopped(signal: AbortSignal): CallOutcome {
  const reason = signal.reason;
  const timedOut = reason instanceof DOMException && reason.name === "TimeoutError";
  return {
    ok: false,
    kind: "timeout",
    message: timedOut
      ? "The MCP tool call took too long and was cancelled."
      : "The call was cancelled.",
  };
}

/** The outcome for an error thrown by the SDK during a call. */
function failure(
  error: unknown,
  session: Session,
  label: string,
  redact: (text: string) => string,
): CallOutcome {
  const code = (error as { code?: unknown })?.code;
  const message = redact(String((error as Error)?.message ?? error)).slice(0, 500);
  if (session.died || code === -32000) {
    session.died = true;
    const why = session.stdio?.breakReason ??
      (session.stdio ? "its process exited" : "the connection closed");
    const stderr = session.stdio ? stderrLines(session.stdio.stderr) : "";
    return {
      ok: false,
      kind: "unavailable",
      message: "The MCP server stopped while handling the call; it will be restarted once.",
      detail: redact(`MCP server "${label}": ${why}${stderr ? `; stderr: ${stderr}` : ""}`),
    };
  }
  if (/structured content|output schema/i.test(message)) {
    // The SDK checks a result against the tool's declared output schema itself.
    return {
      ok: false,
      kind: "execution",
      message: "The MCP server sent a result that does not match the tool's own output schema.",
      detail: `MCP server "${label}": ${message}`,
    };
  }
  if (code === -32001) {
    return { ok: false, kind: "timeout", message: "The MCP tool call took too long." };
  }
  if (code === -32602) {
    return {
      ok: false,
      kind: "invalid_args",
      message: `The MCP server refused the arguments: ${message}`,
    };
  }
  if (code === -32601) {
    return {
      ok: false,
      kind: "unknown_tool",
      message: `The MCP server does not know this tool: ${message}`,
    };
  }
  if (typeof code === "number" && code >= 100 && code < 600) {
    return {
      ok: false,
      kind: "unavailable",
      message: `The MCP server answered HTTP ${code}.`,
      detail: `MCP server "${label}": ${message}`,
    };
  }
  if (error instanceof TypeError) {
    return {
      ok: false,
      kind: "unavailable",
      message: "The MCP server could not be reached.",
      detail: `MCP server "${label}": ${message}`,
    };
  }
  if (typeof code !== "number") {
    return {
      ok: false,
      kind: "execution",
      message: "The MCP server sent a reply that is not a valid tool result.",
      detail: `MCP server "${label}": ${message}`,
    };
  }
  return {
    ok: false,
    kind: "execution",
    message: `The MCP server reported an error: ${message}`,
  };
}

function describeHttpFailure(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = String((error as Error)?.message ?? error).slice(0, 300);
  if (typeof code === "number" && code >= 100 && code < 600) {
    return `it answered HTTP ${code}${code === 401 || code === 403 ? " (check its headers)" : ""}`;
  }
  if (error instanceof TypeError) return `it could not be reached (${message})`;
  return message;
}

function startFailure(error: unknown, command: string): string {
  if (error instanceof Deno.errors.NotFound) return `"${command}" was not found`;
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return `ragbench may not run "${command}" (allow it with --allow-run=${command})`;
  }
  const code = (error as { code?: unknown })?.code;
  if (code === -32000) return "it exited during the handshake";
  return `the handshake failed (${String((error as Error)?.message ?? error).slice(0, 300)})`;
}

/** The first lines of a server's stderr, indented, without terminal control characters. */
function stderrLines(stderr: string): string {
  const lines = stderr.trim().split("\n").slice(0, 5).map((l) =>
    // deno-lint-ignore no-control-regex
    `  ${l.slice(0, 200).replace(/[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g, "?")}`
  );
  return lines.join("\n").trim() === "" ? "" : lines.join("\n");
}
