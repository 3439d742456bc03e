/**
 * One connection to one MCP server: starts it (command servers) or reaches
 * it (url servers), reads its tool list, and makes calls with a total time
 * limit and cancellation. Each start is a session (`session.ts`), which
 * holds the SDK's `Client`; it is loaded on first use only, so runs without
 * MCP never load the SDK.
 *
 * Faults become data: a call that fails returns an error outcome, never
 * throws (what an SDK error means: `call_failure.ts`). A server that dies
 * (or breaks the protocol) fails the calls in flight; the next call restarts
 * it once; after a second death every call fails at once. Every text shown
 * or kept (errors, stderr) is passed through the server's {@link Secrets}
 * first.
 *
 * @module
 */

import type { McpServerDef } from "../../lib/config/mcp_ref.ts";
import { serverLabel } from "../../lib/config/mcp_ref.ts";
import { Secrets } from "./secrets.ts";
import type { Session } from "./session.ts";
import {
  type CallOutcome,
  type McpToolInfo,
  type OpenOptions,
  stopped,
} from "./connection_types.ts";

export type { CallOutcome, McpToolInfo, OpenOptions };

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
  const { startSession } = await import("./session.ts");
  const secrets = new Secrets();
  const session = await startSession(server, secrets, options);
  // Not with the start-up's signal: after a first Ctrl-C the questions in progress go on.
  const { signal: _startOnly, ...restartOptions } = options;
  return new Connection(
    serverLabel(server),
    secrets,
    session,
    () => startSession(server, secrets, restartOptions),
  );
}

/**
 * Where a connection stands. Changed only by `Connection.#to`. `session` is
 * the one whose tools are shown: during and after a failed restart, the one
 * that died.
 */
type ConnectionState =
  /** A session serves calls (until it dies); `restarted`: it is the second. */
  | { s: "open"; session: Session; restarted: boolean }
  /** The first session died; calls wait for the second. */
  | { s: "restarting"; session: Session; next: Promise<Session | null> }
  /** No session can serve calls any more; `reason`: why the restart failed. */
  | { s: "dead"; session: Session; reason: string | null }
  /** Closed by ragbench (the run is ending). */
  | { s: "closed"; session: Session };

class Connection implements McpConnection {
  readonly label: string;
  #state: ConnectionState;
  readonly #secrets: Secrets;
  readonly #restart: () => Promise<Session>;

  constructor(label: string, secrets: Secrets, first: Session, restart: () => Promise<Session>) {
    this.label = label;
    this.#secrets = secrets;
    this.#state = { s: "open", session: first, restarted: false };
    this.#restart = restart;
  }

  get tools(): readonly McpToolInfo[] {
    return this.#state.session.tools;
  }

  get pid(): number | null {
    return this.#state.session.pid;
  }

  /** Masks the server's secrets (a bound function: hosts pass it on as a callback). */
  readonly redact = (text: string): string => this.#secrets.redact(text);

  async call(
    tool: string,
    args: unknown,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallOutcome> {
    if (options.signal.aborted) return stopped(options.signal);
    const live = await this.#current();
    if (live) return await live.call(tool, args, options);
    const state = this.#state;
    if (state.s === "closed") {
      return {
        ok: false,
        kind: "unavailable",
        message: "The run is ending; the MCP server was closed.",
      };
    }
    const reason = state.s === "dead" ? state.reason : null;
    return {
      ok: false,
      kind: "unavailable",
      message: "The MCP server is not available (it stopped twice); this tool cannot be used.",
      detail: `MCP server "${this.label}" stopped again after its restart${
        reason ? `; restarting failed: ${reason}` : ""
      }`,
    };
  }

  async close(): Promise<void> {
    const state = this.#state;
    this.#to({ s: "closed", session: state.session });
    if (state.s === "restarting") {
      // A restart under way finishes first; the session it started is the one to close.
      const restarted = await state.next;
      if (restarted) this.#to({ s: "closed", session: restarted });
    }
    await this.#state.session.close();
  }

  /** The session that serves calls now (restarting a dead one once); null when none can. */
  async #current(): Promise<Session | null> {
    const state = this.#state;
    switch (state.s) {
      case "closed":
      case "dead":
        return null;
      case "restarting":
        // Calls that arrive while the one restart is under way wait for it.
        return await state.next;
      case "open":
        if (!state.session.died) return state.session;
        if (state.restarted) {
          this.#to({ s: "dead", session: state.session, reason: null });
          return null;
        }
        return await this.#startAgain(state.session);
    }
  }

  /** Starts the one restart; settles (never rejects) with its session, or null when it failed. */
  #startAgain(dead: Session): Promise<Session | null> {
    const next = this.#restart().then(
      (session) => {
        if (this.#state.s === "restarting") {
          this.#to({ s: "open", session, restarted: true });
        }
        return session;
      },
      (error) => {
        if (this.#state.s === "restarting") {
          this.#to({ s: "dead", session: dead, reason: this.redact((error as Error).message) });
        }
        return null;
      },
    );
    this.#to({ s: "restarting", session: dead, next });
    return next;
  }

  #to(next: ConnectionState): void {
    this.#state = next;
  }
}
