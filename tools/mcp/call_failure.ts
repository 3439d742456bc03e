/**
 * What an error from the MCP SDK (or the transport under it) means, told by
 * its class and the SDK's `ErrorCode`, never by its message text: the
 * outcome of a tool call that threw, and the words for a start that failed.
 *
 * - `McpError` with `ErrorCode.ConnectionClosed`: the server went away (the
 *   SDK's own error when the transport closes); `RequestTimeout`: the SDK's
 *   backstop timer; `InvalidParams` and `MethodNotFound`: the server refused
 *   the arguments or does not know the tool; any other code: an error the
 *   server reported.
 * - `StreamableHTTPError` (a url server's transport) with an HTTP status:
 *   the server answered with that status (with another code, such as -1 for
 *   an unexpected content type: an error it reported). A `TypeError` from
 *   `fetch`: it could not be reached.
 * - Anything else (the SDK's zod error for a result of the wrong shape): not
 *   a valid tool result.
 *
 * Loaded with the SDK, when a server starts (see `connection.ts`).
 *
 * @module
 */

import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallOutcome } from "./connection_types.ts";

/** What the outcome of a failed call needs to know of its server. */
export interface FailureContext {
  /** The server's command line or URL. */
  label: string;
  /** Masks the server's secrets. */
  redact(text: string): string;
  /**
   * The code of a url server's transport error (`StreamableHTTPError`): an
   * HTTP status, or -1 for a reply it could not read; null for any other error.
   */
  transportCode(error: unknown): number | null;
  /** Why the server stopped, when it did: its process exited, or the connection closed. */
  stopReason(): string;
  /** The first lines of the server's stderr (command servers), or "". */
  stderr(): string;
}

/** The `ErrorCode` of an `McpError` (the SDK's own, or a JSON-RPC error the server sent); null for any other error. */
export function mcpErrorCode(error: unknown): number | null {
  // (The SDK's declarations do not reach the type checker here: its values are typed `any`.)
  return error instanceof McpError ? (error as { code: number }).code : null;
}

/** Whether `error` says the server went away (the SDK's error when its transport closes). */
export function isConnectionClosed(error: unknown): boolean {
  return mcpErrorCode(error) === ErrorCode.ConnectionClosed;
}

/**
 * The outcome for an error thrown by the SDK during a call. `died`: the
 * server is known to have gone away already.
 */
export function callFailure(error: unknown, died: boolean, ctx: FailureContext): CallOutcome {
  const { label, redact } = ctx;
  const message = redact(String((error as Error)?.message ?? error)).slice(0, 500);
  if (died || isConnectionClosed(error)) {
    const stderr = ctx.stderr();
    return {
      ok: false,
      kind: "unavailable",
      message: "The MCP server stopped while handling the call; it will be restarted once.",
      detail: redact(
        `MCP server "${label}": ${ctx.stopReason()}${stderr ? `; stderr: ${stderr}` : ""}`,
      ),
    };
  }
  const code = mcpErrorCode(error);
  if (code !== null) {
    switch (code) {
      case ErrorCode.RequestTimeout:
        return { ok: false, kind: "timeout", message: "The MCP tool call took too long." };
      case ErrorCode.InvalidParams:
        return {
          ok: false,
          kind: "invalid_args",
          message: `The MCP server refused the arguments: ${message}`,
        };
      case ErrorCode.MethodNotFound:
        return {
          ok: false,
          kind: "unknown_tool",
          message: `The MCP server does not know this tool: ${message}`,
        };
      default:
        return {
          ok: false,
          kind: "execution",
          message: `The MCP server reported an error: ${message}`,
        };
    }
  }
  const status = ctx.transportCode(error);
  if (status !== null && isHttpStatus(status)) {
    return {
      ok: false,
      kind: "unavailable",
      message: `The MCP server answered HTTP ${status}.`,
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
  if (status !== null) {
    return {
      ok: false,
      kind: "execution",
      message: `The MCP server reported an error: ${message}`,
    };
  }
  return {
    ok: false,
    kind: "execution",
    message: "The MCP server sent a reply that is not a valid tool result.",
    detail: `MCP server "${label}": ${message}`,
  };
}

/**
 * Why a start (or the tool listing) failed; `transportCode` as
 * {@link FailureContext.transportCode} gives it.
 */
export function describeHttpFailure(error: unknown, transportCode: number | null): string {
  const message = String((error as Error)?.message ?? error).slice(0, 300);
  if (transportCode !== null && isHttpStatus(transportCode)) {
    return `it answered HTTP ${transportCode}${
      transportCode === 401 || transportCode === 403 ? " (check its headers)" : ""
    }`;
  }
  if (error instanceof TypeError) return `it could not be reached (${message})`;
  return message;
}

/** Why a command server's handshake failed. */
export function startFailure(error: unknown, command: string): string {
  if (error instanceof Deno.errors.NotFound) return `"${command}" was not found`;
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return `ragbench may not run "${command}" (allow it with --allow-run=${command})`;
  }
  if (isConnectionClosed(error)) return "it exited during the handshake";
  return `the handshake failed (${String((error as Error)?.message ?? error).slice(0, 300)})`;
}

function isHttpStatus(code: number): boolean {
  return code >= 100 && code < 600;
}

/** The first lines of a server's stderr, indented, without terminal control characters. */
export function stderrLines(stderr: string): string {
  const lines = stderr.trim().split("\n").slice(0, 5).map((l) =>
    // deno-lint-ignore no-control-regex
    `  ${l.slice(0, 200).replace(/[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g, "?")}`
  );
  return lines.join("\n").trim() === "" ? "" : lines.join("\n");
}
