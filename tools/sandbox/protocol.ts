/**
 * Messages between a tool host (main thread) and the sandbox running the
 * tools (the built-ins' worker, or a custom tool's subprocess). Plain JSON,
 * so the same shapes travel over `postMessage` and over a pipe.
 *
 * Over a custom tool's pipe every request carries a `nonce` (random, new for
 * each request) and its reply must carry the same one: the tool's code shares
 * the process's stdout, and a line it writes there cannot know the nonce, so
 * it is never taken for a reply.
 *
 * @module
 */

import type { Corpus } from "../../lib/types.ts";
import type { RawToolResult } from "../invoke.ts";

/** Host → sandbox. */
export type HostMessage =
  /** A custom tool's first message; answered by `ready` or `failed` once its module is loaded. */
  | { type: "hello"; nonce: string }
  /**
   * What tools read, what "today" is, and which tools to prepare (build
   * their indexes) now; answered by `prepared`.
   */
  | { type: "init"; corpus: Corpus; now: string; prepare: string[]; nonce?: string }
  /**
   * Run one call; answered by a `result` with the same id. `ended` names
   * questions that have ended since the previous call, whose state is
   * forgotten first (the worker host sends them so instead of one `end`
   * message each: a message to a thread costs a wake-up).
   */
  | {
    type: "call";
    id: number;
    tool: string;
    args: unknown;
    options: Record<string, unknown>;
    questionKey: string;
    ended?: string[];
    nonce?: string;
  }
  /** Forget the state kept for a question. */
  | { type: "end"; questionKey: string }
  /** The host gave up on a call that has not run yet: skip it. */
  | { type: "cancel"; id: number };

/** Sandbox → host. */
export type SandboxMessage =
  /** A custom tool's process has loaded its module: what the model is told. */
  | {
    type: "ready";
    nonce: string;
    name: string;
    description: string;
    parameters: Record<string, unknown>;
  }
  /** A custom tool's module could not be loaded. */
  | { type: "failed"; nonce: string; message: string }
  /** The tools named in `init.prepare` are ready. */
  | { type: "prepared"; nonce?: string }
  | { type: "result"; id: number; result: RawToolResult; nonce?: string };
