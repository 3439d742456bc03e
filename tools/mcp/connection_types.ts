/**
 * The shapes shared by an MCP connection (`connection.ts`) and the sessions
 * it runs (`session.ts`): what a server's tool looks like, what a call comes
 * to (and comes to when its signal stopped it), and how a connection is
 * opened. Nothing here loads the MCP SDK.
 *
 * @module
 */

import type { ToolErrorKind } from "../../lib/types.ts";
import type { McpCallResult } from "./result.ts";

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

/** Options of `openMcpConnection`. */
export interface OpenOptions {
  /** Where `${VAR}` values come from (default: this process's environment). */
  getEnv?: (name: string) => string | undefined;
  startupTimeoutMs?: number;
  /** Stops a start in progress (the run's Ctrl-C): the server is killed and the open rejects. */
  signal?: AbortSignal;
}

/** The outcome of a call its signal stopped: the toolbox's timeout, or the question's end. */
export function stopped(signal: AbortSignal): CallOutcome {
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
