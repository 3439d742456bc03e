/**
 * One start of one MCP server: the SDK's `Client` over our stdio transport
 * (command servers) or the SDK's Streamable HTTP transport (url servers),
 * the handshake and the tool list within the start-up limit, and calls with
 * their output checked. A connection (`connection.ts`) runs one session,
 * and a second after the first died. This module loads the SDK: the
 * connection imports it only when a server starts.
 *
 * The SDK's `Client` is given no tool metadata: tools are listed with a
 * plain `tools/list` request, not `Client.listTools`, which would have the
 * client check every result against the tool's output schema itself and
 * refuse one without structured content by an error told apart from a
 * server's only by its words. Both checks are ours ({@link Session.call}),
 * bounded (see output_schema.ts), and made only for the tools called.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { RagbenchError } from "../../lib/errors.ts";
import type { McpServerDef } from "../../lib/config/mcp_ref.ts";
import { serverLabel } from "../../lib/config/mcp_ref.ts";
import { VERSION } from "../../lib/version.ts";
import type { McpCallResult } from "./result.ts";
import { fillTemplates, readEnv, type Secrets } from "./secrets.ts";
import type { OutputCheck } from "./output_schema.ts";
import { DenoStdioTransport } from "./stdio_transport.ts";
import {
  type CallOutcome,
  type McpToolInfo,
  type OpenOptions,
  stopped,
} from "./connection_types.ts";
import {
  callFailure,
  describeHttpFailure,
  type FailureContext,
  isConnectionClosed,
  startFailure,
  stderrLines,
} from "./call_failure.ts";

/** How long starting a server and its handshake may take. */
export const STARTUP_TIMEOUT_MS = 30_000;
/** Why a start failed when {@link OpenOptions.signal} (the run's Ctrl-C) stopped it. */
const CANCELLED = "its start-up was cancelled";
/** Tool descriptions longer than this are cut before the model sees them. */
export const MAX_DESCRIPTION_CHARS = 4000;
const MAX_TOOL_PAGES = 50;

/** A started server, its tools listed. */
export class Session {
  /** The server's tools, secrets masked. */
  readonly tools: McpToolInfo[] = [];
  readonly #client: Client;
  readonly #stdio: DenoStdioTransport | null;
  readonly #failure: FailureContext;
  /** Each tool by name (the first listed of a name wins). */
  #byName: Map<string, McpToolInfo> | null = null;
  /** Output-schema checks of the tools called so far (only allowed tools are ever called). */
  readonly #checks = new Map<string, OutputCheck>();
  /**
   * `died`: the server went away without being asked to (the session is
   * over; its connection starts another); `closed`: ragbench ended it, so its
   * end is no death.
   */
  #state: "live" | "died" | "closed" = "live";

  constructor(
    client: Client,
    stdio: DenoStdioTransport | null,
    failure: Omit<FailureContext, "stopReason" | "stderr">,
  ) {
    this.#client = client;
    this.#stdio = stdio;
    this.#failure = {
      ...failure,
      stopReason: () =>
        stdio?.breakReason ?? (stdio ? "its process exited" : "the connection closed"),
      stderr: () => stdio ? stderrLines(stdio.stderr) : "",
    };
    client.onclose = () => this.#die();
    client.onerror = () => {};
  }

  /** Whether the server went away without being asked to (it needs a restart). */
  get died(): boolean {
    return this.#state === "died";
  }

  /** The server's process id (command servers). */
  get pid(): number | null {
    return this.#stdio?.pid ?? null;
  }

  /** Calls a tool; never throws. `timeoutMs` is a total limit, progress notwithstanding. */
  async call(
    tool: string,
    args: unknown,
    { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallOutcome> {
    const deadline = performance.now() + timeoutMs;
    try {
      const result = await this.#client.callTool(
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
      return await this.#checkOutput(tool, result as McpCallResult, deadline);
    } catch (error) {
      if (signal.aborted) return stopped(signal);
      if (isConnectionClosed(error)) this.#die();
      return callFailure(error, this.died, this.#failure);
    }
  }

  /** Ends the session: the client, then the server (its process group, after a grace). */
  async close(): Promise<void> {
    this.#state = "closed";
    await this.#client.close().catch(() => {});
    await this.#stdio?.close().catch(() => {});
  }

  /**
   * Ends a start that failed: the server first, at once (the client's close
   * would give it the grace of a normal end), then the client.
   */
  async abandon(): Promise<void> {
    this.#state = "closed";
    await this.#stdio?.close(0).catch(() => {});
    await this.#client.close().catch(() => {});
  }

  #die(): void {
    if (this.#state === "live") this.#state = "died";
  }

  /**
   * `result` when it fits the tool's output schema: its `structuredContent`
   * matches it (or there is nothing to check), and a tool that declares one
   * sent structured content (unless it reported an error). Else why not.
   * Bounded: see output_schema.ts.
   */
  async #checkOutput(
    tool: string,
    result: McpCallResult,
    deadline: number,
  ): Promise<CallOutcome> {
    if (result.isError === true) return { ok: true, result };
    const schema = this.#tool(tool)?.outputSchema;
    if (schema === undefined) return { ok: true, result };
    const detail = (problem: string) =>
      `MCP server "${this.#failure.label}", tool "${tool}": ${problem}`;
    if (result.structuredContent === undefined) {
      return mismatch(detail("it declares an output schema but sent no structured content"));
    }
    let check = this.#checks.get(tool);
    if (check === undefined) {
      // Loaded here: a run whose tools declare no output schema never loads the checker (or RE2).
      check = (await import("./output_schema.ts")).compileOutputSchema(schema);
      this.#checks.set(tool, check);
    }
    const checked = await check.check(result.structuredContent, deadline);
    if (checked.ok) return { ok: true, result };
    if (checked.reason === "mismatch") return mismatch(detail(checked.message));
    return {
      ok: false,
      kind: checked.reason === "timeout" ? "timeout" : "output_limit",
      message: checked.reason === "timeout"
        ? "The MCP tool's result could not be checked against its output schema within the call's time limit; it was not used."
        : "The MCP tool's result is too large, or its output schema too complex, to check within ragbench's limits; it was not used.",
      detail: detail(checked.message),
    };
  }

  #tool(name: string): McpToolInfo | undefined {
    if (this.#byName === null) {
      this.#byName = new Map();
      for (const tool of this.tools) {
        if (!this.#byName.has(tool.name)) this.#byName.set(tool.name, tool);
      }
    }
    return this.#byName.get(name);
  }

  /** Reads the server's tools (all pages, up to {@link MAX_TOOL_PAGES}), masking secrets. */
  async listTools(signal: AbortSignal, secrets: Secrets): Promise<void> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await this.#client.request(
        { method: "tools/list", params: cursor ? { cursor } : undefined },
        ListToolsResultSchema,
        { signal },
      );
      for (const tool of listed.tools) {
        // Masked before the cut, so that a secret across the cut leaves no part of itself.
        const description = secrets.redact(
          tool.description ?? tool.title ?? `MCP tool ${tool.name}`,
        );
        this.tools.push({
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
  }
}

function mismatch(detail: string): CallOutcome {
  return {
    ok: false,
    kind: "execution",
    message: "The MCP server sent a result that does not match the tool's own output schema.",
    detail,
  };
}

/**
 * Starts or reaches the server, does the handshake and reads its tools.
 *
 * @throws {RagbenchError} (code "config") naming the server, and for a
 *   command server the first lines of its stderr, when it cannot start,
 *   exits during the handshake, or a url server cannot be reached or refuses.
 */
export async function startSession(
  server: McpServerDef,
  secrets: Secrets,
  options: OpenOptions,
): Promise<Session> {
  const label = serverLabel(server);
  const getEnv = options.getEnv ?? readEnv;
  const client = new Client({ name: "ragbench", version: VERSION }, {
    capabilities: {},
    // Never asked for a validator (no tool metadata reaches the client, see above); given one
    // anyway so that the client does not build its default (Ajv) checker.
    jsonSchemaValidator: UNCHECKED,
  });
  let stdio: DenoStdioTransport | null = null;
  let transportCode: (error: unknown) => number | null = () => null;
  const what = `MCP server "${label}"`;
  let transport;
  if (server.kind === "command") {
    const env = fillTemplates(server.env, getEnv, secrets, what);
    stdio = new DenoStdioTransport({ command: server.command, env, cwd: server.cwd });
    transport = stdio;
  } else {
    const headers = fillTemplates(server.headers, getEnv, secrets, what);
    // Loaded only for url servers (~17 ms).
    const { StreamableHTTPClientTransport, StreamableHTTPError } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    transportCode = (error) => {
      const code = error instanceof StreamableHTTPError ? (error as { code?: unknown }).code : null;
      return typeof code === "number" ? code : null;
    };
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
  const session = new Session(client, stdio, {
    label,
    redact: (text) => secrets.redact(text),
    transportCode,
  });
  const timeoutMs = options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;
  const fail = async (why: string): Promise<never> => {
    await session.abandon();
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
    if (stdio === null) {
      return await fail(signal.aborted ? late : describeHttpFailure(error, transportCode(error)));
    }
    return await fail(
      stdio.breakReason ??
        (signal.aborted
          ? late
          : startFailure(error, server.kind === "command" ? server.command[0] : "")),
    );
  }
  try {
    await session.listTools(signal, secrets);
  } catch (error) {
    if (options.signal?.aborted) return await fail(CANCELLED);
    return await fail(
      `it did not list its tools (${describeHttpFailure(error, transportCode(error))})`,
    );
  }
  return session;
}

/** A checker that accepts everything, for the client's constructor (see `startSession`). */
const UNCHECKED = {
  getValidator: () => (input: unknown) => ({
    valid: true as const,
    data: input as never,
    errorMessage: undefined,
  }),
};
