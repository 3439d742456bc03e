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

import type { ToolSpec } from "../../lib/llm/model.ts";
import type { Corpus } from "../../lib/types.ts";
import type { RawToolResult } from "../invoke.ts";
import type { SharedCorpus } from "./shared_corpus.ts";

/** Host → sandbox. */
export type HostMessage =
  /** A custom tool's first message; answered by `ready` or `failed` once its module is loaded. */
  | { type: "hello"; nonce: string }
  /**
   * What "today" is and which tools to prepare (build their indexes). With
   * `corpus` (a custom tool's process), the tools are prepared at once and
   * the answer is one `prepared` without `tools`. Without (the built-ins'
   * worker), the answer is a `prepared` naming the tools of `prepare` that do
   * not read the corpus (maybe none: it then says only that the worker has
   * loaded); the others wait for the `corpus` message.
   */
  | { type: "init"; corpus?: Corpus; now: string; prepare: string[]; nonce?: string }
  /**
   * The built-ins' worker's corpus, its text in shared memory. The worker
   * prepares the tools of `init.prepare` that read the corpus in the
   * background (calls keep being served meanwhile), answering a `prepared`
   * naming the tools as they get ready, then one without `tools`.
   */
  | { type: "corpus"; corpus: SharedCorpus }
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
  /** `tools` are ready; without `tools`, every tool of `init.prepare` is (and the corpus is in). */
  | { type: "prepared"; tools?: string[]; nonce?: string }
  | { type: "result"; id: number; result: RawToolResult; nonce?: string };

/**
 * Host → a custom system's process (`systems/custom/`), besides `hello`
 * (answered there by `loaded` or `failed`). A `run` is answered by the
 * process's `answered` or `failed`, after any number of `ask`s (a model
 * call, a tool call or a retrieval the system makes), each answered by the
 * host's `answer` with the same id. The process's messages are not trusted:
 * the host parses them with strict schemas (`systems/custom/system_messages.ts`).
 */
export type SystemHostMessage =
  | {
    type: "run";
    question: { id: string; question: string };
    /** The system's tools as the model may be offered them. */
    tools: ToolSpec[];
    /** The system's retriever; null when it has none. */
    retriever: { name: string; top_k: number } | null;
    nonce?: string;
  }
  | { type: "answer"; id: number; value: unknown }
  | { type: "answer"; id: number; error: string };
