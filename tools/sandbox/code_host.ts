/**
 * The parent side of the code agent's sandbox: starts a `deno run` process
 * with no permissions for a question, runs the model's programs in it one at
 * a time, executes their tool calls, and kills it when a program runs too
 * long, uses too much memory, writes too much or breaks the protocol.
 *
 * The process (see `code_child.ts`):
 * - `deno run` with no `--allow-*` flag, `--no-prompt`, `--no-remote`,
 *   `--no-npm`, `--cached-only`, `--no-config`, `--no-lock`, and an import map
 *   that sends every `file:` URL to a blocked remote host, so a program cannot
 *   read a file by importing it; its main module is a `data:` URL;
 * - `--v8-flags=--max-old-space-size=N` bounds the JavaScript heap, and a
 *   watchdog thread in the child reports resident memory past the same limit
 *   (ArrayBuffers live outside the heap), on which the parent kills it;
 * - a cleared environment (only Deno's cache settings, as for custom tools);
 * - started through the child registry (`lib/util/child_registry.ts`): in a
 *   session of its own, and killed by its exit hook, so it never outlives
 *   ragbench.
 *
 * A program's time limit is CPU time: the child's process, from the
 * program's first instruction until it settles, measured by the child's
 * watchdog (`code_child.ts`); tool calls run here, in the parent, and have
 * their own timeout in the toolbox. A wall-clock backstop, paused while a
 * tool call runs, stops a program that waits without using the CPU
 * (`code_process.ts`). Neither counts the process's start, which happens
 * before `ready`. Everything the child sends is validated
 * (`code_messages.ts`); a message that does not fit its schema, or a line
 * longer than `MAX_LINE_CHARS`, kills the process. One process and a
 * program's run in it: `code_process.ts`.
 *
 * A killed process is replaced by a fresh one at the question's next program.
 *
 * @module
 */

import { type CodeProcess, startCodeProcess } from "./code_process.ts";
import { type CodeLimits, failed, type ProgramOutcome, type ProgramRun } from "./code_outcome.ts";

export { MAX_ANSWER_CHARS } from "./code_messages.ts";
export type { CodeLimits, ProgramErrorKind, ProgramOutcome, ProgramRun } from "./code_outcome.ts";

/** One question's sandbox: a process started on demand and replaced after a kill. */
export interface CodeSandbox {
  /** Starts the process now (so the first program does not wait for it). */
  warm(): void;
  /** Runs a program. Never rejects. */
  run(run: ProgramRun): Promise<ProgramOutcome>;
  /** Kills the process. */
  close(): Promise<void>;
  /** Process id of the last process started (for tests that check it is gone); null before any. */
  readonly pid: number | null;
}

/** Where a question's sandbox stands. */
type SandboxState =
  /** No process: none started yet, or the last one died or failed to start. */
  | { s: "empty" }
  /** A process, started or starting. */
  | { s: "process"; process: Promise<CodeProcess> }
  /** Closed: no program runs any more. */
  | { s: "closed" };

/** Creates the sandbox of one question. */
export function createCodeSandbox(limits: CodeLimits): CodeSandbox {
  let state: SandboxState = { s: "empty" };
  let pid: number | null = null;
  /** The process, started if there is none; null once closed. */
  const current = (): Promise<CodeProcess> | null => {
    if (state.s === "closed") return null;
    if (state.s === "empty") {
      state = { s: "process", process: startCodeProcess(limits, (id) => pid = id) };
    }
    return state.process;
  };
  /** Forgets `process` (dead, or it failed to start) unless it was replaced or closed already. */
  const forget = (process: Promise<CodeProcess>) => {
    if (state.s === "process" && state.process === process) state = { s: "empty" };
  };
  return {
    get pid() {
      return pid;
    },
    warm() {
      void current()?.catch(() => {});
    },
    async run(run) {
      let starting = current();
      if (starting === null) return failed("unavailable", "The sandbox is closed.");
      let process: CodeProcess;
      try {
        process = await starting;
        if (!process.alive) {
          forget(starting);
          starting = current();
          if (starting === null) return failed("unavailable", "The sandbox is closed.");
          process = await starting;
        }
      } catch (error) {
        forget(starting!);
        return failed("unavailable", `The sandbox could not start: ${(error as Error).message}`);
      }
      const outcome = await process.run(run, limits);
      if (!process.alive) forget(starting);
      return outcome;
    },
    async close() {
      const started = state.s === "process" ? state.process : null;
      state = { s: "closed" };
      if (started) await started.then((p) => p.kill(), () => {});
    },
  };
}
