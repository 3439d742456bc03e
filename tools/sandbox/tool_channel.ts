/**
 * The request/reply protocol over a custom tool process's pipes, seen from
 * the host. Every request carries a fresh nonce, and the one reply accepted
 * is the line that answers the request in progress with that nonce. The
 * host reads the process's stdout all the time, line by line in linear
 * time, and caps a line at `MAX_REPLY_BYTES`; any other line — a tool
 * writing to stdout, a reply too large, a reply out of turn — breaks the
 * channel for good (the protocol cannot be trusted after it): the request
 * in progress, and every later one, ends with that fault, and the owner is
 * told so that it kills the process.
 *
 * A custom system's process (`systems/custom/`) also asks the host things
 * while a `run` is in progress: a line carrying the run's nonce whose
 * `type` is `ask` goes to the owner's `onAsk` and the request goes on
 * waiting for its reply.
 *
 * @module
 */

import type { TrackedChild } from "../../lib/util/child_registry.ts";
import { pipeLines } from "./child_pipes.ts";
import type { HostMessage, SandboxMessage, SystemHostMessage } from "./protocol.ts";
import { type Fault, MAX_REPLY_BYTES, type Reply } from "./tool_reply.ts";

/** Where the protocol stands. Changed only by `ToolChannel.#to`. */
type ChannelState =
  /** No request is waiting for its reply. */
  | { s: "idle" }
  /** A request waits for the reply that carries `nonce`. */
  | { s: "awaiting"; nonce: string; resolve(reply: Reply): void }
  /** No reply can come any more: every request ends with `fault`. */
  | { s: "broken"; fault: Fault };

/** One process's channel: requests in, replies out, one request at a time. */
export class ToolChannel {
  #state: ChannelState = { s: "idle" };
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  #writes: Promise<void> = Promise.resolve();
  readonly #onBreach: () => void;
  readonly #onAsk: ((message: Record<string, unknown>) => void) | null;

  /**
   * Starts reading `child`'s stdout. `onBreach` runs once when the process
   * breaks the protocol (not when its stdout merely ends); `onAsk` hears the
   * `ask` lines of the request in progress (none: an `ask` is a breach).
   */
  constructor(
    child: TrackedChild,
    onBreach: () => void,
    onAsk: ((message: Record<string, unknown>) => void) | null = null,
  ) {
    this.#stdin = child.stdin.getWriter();
    this.#onBreach = onBreach;
    this.#onAsk = onAsk;
    void this.#read(child.stdout);
  }

  /** Sends a message that has no reply. Never throws: a write to a dead process is dropped. */
  send(message: HostMessage | SystemHostMessage): void {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    this.#writes = this.#writes.then(() => this.#stdin.write(bytes)).catch(() => {});
  }

  /**
   * Sends `message` with a fresh nonce and waits for the reply carrying it;
   * never rejects.
   *
   * @throws {TypeError} when another request is still waiting (a bug in the host).
   */
  request(message: HostMessage | SystemHostMessage): Promise<Reply> {
    const state = this.#state;
    if (state.s === "broken") return Promise.resolve(state.fault);
    if (state.s === "awaiting") throw new TypeError("a tool process serves one request at a time");
    const nonce = crypto.randomUUID();
    return new Promise<Reply>((resolve) => {
      this.#to({ s: "awaiting", nonce, resolve });
      this.send({ ...message, nonce } as HostMessage | SystemHostMessage);
    });
  }

  /** Closes the process's stdin (its watchdog then ends it). Never rejects. */
  async closeInput(): Promise<void> {
    await this.#stdin.close().catch(() => {});
  }

  /** Moves to `next`, settling the request that was waiting (if any) with `reply`. */
  #to(next: ChannelState, reply: Reply | null = null): void {
    const previous = this.#state;
    this.#state = next;
    if (previous.s === "awaiting" && reply !== null) previous.resolve(reply);
  }

  #breach(fault: Fault): void {
    if (this.#state.s === "broken") return;
    this.#to({ s: "broken", fault }, fault);
    this.#onBreach();
  }

  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const lines = pipeLines(stdout, MAX_REPLY_BYTES, "bytes");
    for (let event = await lines.next(); event !== null; event = await lines.next()) {
      if (event.type === "too_long") {
        this.#breach({ kind: "too_big" });
        continue;
      }
      if (event.text.trim() === "") continue;
      let message: unknown;
      try {
        message = JSON.parse(event.text);
      } catch {
        this.#breach({ kind: "stray" });
        continue;
      }
      const nonce = typeof message === "object" && message !== null &&
        (message as { nonce?: unknown }).nonce;
      const state = this.#state;
      if (
        state.s === "awaiting" && nonce === state.nonce && this.#onAsk !== null &&
        (message as { type?: unknown }).type === "ask"
      ) {
        this.#onAsk(message as Record<string, unknown>);
      } else if (state.s === "awaiting" && nonce === state.nonce) {
        this.#to({ s: "idle" }, { kind: "message", message: message as SandboxMessage });
      } else {
        this.#breach({ kind: "stray" });
      }
    }
    // The process is gone (or closed its stdout): no reply can come any more.
    if (this.#state.s !== "broken") {
      this.#to({ s: "broken", fault: { kind: "exited" } }, { kind: "exited" });
    }
  }
}
