/**
 * One process of the code agent's sandbox, seen from the parent: started
 * (`deno run`, no permissions, see `code_host.ts`), waited for until it says
 * `ready`, then given programs one at a time. While a program runs, the
 * parent executes its tool calls and watches for the one interruption that
 * ends it early: its CPU time or its memory (both watched in the child, which
 * reports and dies, see `code_child.ts`), the wall-clock backstop for a
 * program that waits (see {@link ProgramClock}), or the question's signal.
 * An interruption, a line that is not a message, a line too long, or the
 * process's death kills the process for good.
 *
 * @module
 */

import { spawnTracked, type TrackedChild } from "../../lib/util/child_registry.ts";
import { childEnv, isDenoExecutable } from "./child_env.ts";
import { keepText, type KeptText, type PipeLines, pipeLines } from "./child_pipes.ts";
import { codeChildMain, CPU_MARKER, MEMORY_MARKER } from "./code_child.ts";
import {
  isReady,
  MAX_ANSWER_CHARS,
  MAX_LINE_CHARS,
  outcomeOfDone,
  readChildLine,
} from "./code_messages.ts";
import { type CodeLimits, failed, type ProgramOutcome, type ProgramRun } from "./code_outcome.ts";
import { lineSplitter } from "./line_splitter.ts";

/** How long a fresh process may take to start. */
const START_TIMEOUT_MS = 20_000;
/** How much of the process's stderr is kept (its end), for messages and the memory marker. */
const STDERR_TAIL_CHARS = 4000;

/** The child's command line under `deno run`. */
export function codeChildArgs(memoryMb: number, cpuMs: number): string[] {
  const importMap = {
    imports: { "file:///": "https://import.invalid/", "/": "https://import.invalid/" },
  };
  // Both functions are self-contained: the child runs them from their source text.
  const source = `const lineSplitter = ${lineSplitter.toString()};\n` +
    `(${codeChildMain.toString()})(lineSplitter);\n`;
  return [
    "run",
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--no-remote",
    "--no-npm",
    "--cached-only",
    `--v8-flags=--max-old-space-size=${memoryMb}`,
    `--import-map=data:application/json,${encodeURIComponent(JSON.stringify(importMap))}`,
    `data:text/javascript;base64,${btoa(source)}`,
    String(memoryMb * 1024 * 1024),
    String(cpuMs),
  ];
}

/** A started process, ready for programs. */
export interface CodeProcess {
  /** False once it was killed or exited: the next program needs a fresh one. */
  readonly alive: boolean;
  /** Runs a program; never rejects. */
  run(run: ProgramRun, limits: CodeLimits): Promise<ProgramOutcome>;
  kill(): Promise<void>;
}

/**
 * Starts a process and waits for its `ready`. `onPid` hears its process id
 * as soon as it is spawned.
 *
 * @throws {Error} saying why when it cannot start (a compiled ragbench, no
 *   `ready` within {@link START_TIMEOUT_MS}, a crash).
 */
export async function startCodeProcess(
  limits: CodeLimits,
  onPid: (pid: number) => void,
): Promise<CodeProcess> {
  if (!isDenoExecutable(Deno.execPath())) {
    throw new Error(
      "the code agent runs its programs with the deno CLI; a compiled ragbench cannot start them",
    );
  }
  const process = new SandboxProcess(limits);
  onPid(process.pid);
  let startTimer: ReturnType<typeof setTimeout> | undefined;
  const first = await Promise.race([
    process.lines.next(),
    new Promise<"timeout">((r) => startTimer = setTimeout(() => r("timeout"), START_TIMEOUT_MS)),
  ]).finally(() => clearTimeout(startTimer));
  if (first === "timeout" || first === null || first.type !== "line" || !isReady(first.text)) {
    await process.kill();
    throw new Error(
      first === "timeout"
        ? `it did not start within ${START_TIMEOUT_MS / 1000} s`
        : process.lastWords(),
    );
  }
  return process;
}

/** The process, its pipes and what its watchdog reports (memory, CPU time). */
class SandboxProcess implements CodeProcess {
  readonly lines: PipeLines;
  readonly #child: TrackedChild;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stderr: KeptText;
  readonly #encoder = new TextEncoder();
  #writes: Promise<void> = Promise.resolve();
  /** Whether its watchdog reported memory past the limit. */
  #overMemory = false;
  /** Whether its watchdog reported a program past its CPU time. */
  #overCpu = false;
  /** Told when either happens (the program running then is interrupted). */
  #onWatchdog: ((outcome: ProgramOutcome) => void) | null = null;

  constructor(limits: CodeLimits) {
    // Its own session (the registry's): a terminal's Ctrl-C reaches ragbench, not the program in
    // the middle of a run.
    this.#child = spawnTracked(Deno.execPath(), {
      args: codeChildArgs(limits.memoryMb, limits.cpuMs),
      env: childEnv("none"),
      // Its watchdog's kill for memory or CPU time is ragbench's: known once stderr is read.
      endedByItsLimits: async () => {
        await this.#stderr.done;
        return this.#overMemory || this.#overCpu;
      },
    });
    this.#stdin = this.#child.stdin.getWriter();
    this.lines = pipeLines(this.#child.stdout, MAX_LINE_CHARS, "chars");
    this.#stderr = keepText(this.#child.stderr, {
      chars: STDERR_TAIL_CHARS,
      keep: "tail",
      onText: (tail) => {
        if (!this.#overMemory && tail.includes(MEMORY_MARKER)) {
          this.#overMemory = true;
          this.#onWatchdog?.(overMemory(limits));
        }
        if (!this.#overCpu && tail.includes(CPU_MARKER)) {
          this.#overCpu = true;
          this.#onWatchdog?.(overCpu(limits));
        }
      },
    });
  }

  get pid(): number {
    return this.#child.pid;
  }

  get alive(): boolean {
    return this.#child.running && !this.#child.stopping;
  }

  async kill(): Promise<void> {
    this.#child.kill();
    await this.#stdin.close().catch(() => {});
    await this.lines.cancel();
    await this.#child.exited;
    await this.#stderr.done;
  }

  /** The last lines of its stderr, without the watchdog's markers. */
  lastWords(): string {
    return this.#stderr.text().replaceAll(MEMORY_MARKER, "").replaceAll(CPU_MARKER, "").trim()
      .split("\n").slice(-3).join(" ") || "no output on stderr";
  }

  async run(run: ProgramRun, limits: CodeLimits): Promise<ProgramOutcome> {
    if (run.signal.aborted) return failed("cancelled", "The question was stopped.");
    const clock = new ProgramClock(limits.wallMs);
    const onAbort = () => clock.interrupt(failed("cancelled", "The question was stopped."));
    this.#onWatchdog = (outcome) => clock.interrupt(outcome);
    run.signal.addEventListener("abort", onAbort, { once: true });
    const calls = new AbortController();
    try {
      this.#send({
        type: "run",
        program: run.program,
        tools: run.tools,
        print_limit: limits.maxPrintChars,
        answer_limit: MAX_ANSWER_CHARS,
      });
      clock.resume();
      for (;;) {
        const next = await Promise.race([this.lines.next(), clock.interrupted]);
        if (next !== null && "status" in next) {
          calls.abort();
          await this.kill();
          return next;
        }
        if (next === null) return await this.#died(limits);
        if (next.type === "too_long") {
          await this.kill();
          return failed(
            "output_limit",
            `The program wrote more than ${MAX_LINE_CHARS} characters to stdout at once and was stopped; use print().`,
          );
        }
        const line = readChildLine(next.text);
        if (line.type === "done") return outcomeOfDone(line.done, limits);
        if (line.type === "invalid") {
          await this.kill();
          return failed(
            "protocol",
            "The program wrote something to stdout that is not a sandbox message and was stopped; use print().",
          );
        }
        clock.pause();
        const text = await Promise.race([
          run.call(line.call.tool, line.call.args, calls.signal),
          clock.interrupted.then(() => ""),
        ]);
        this.#send({ type: "result", id: line.call.id, text });
        clock.resume();
      }
    } finally {
      clock.stop();
      this.#onWatchdog = null;
      run.signal.removeEventListener("abort", onAbort);
    }
  }

  /** The outcome when its stdout ended in the middle of a program: memory, CPU, or a crash. */
  async #died(limits: CodeLimits): Promise<ProgramOutcome> {
    await this.#child.exited;
    await this.#stderr.done;
    await this.kill();
    const status = await this.#child.status;
    if (this.#overMemory || /out of memory|heap limit/i.test(this.#stderr.text())) {
      return overMemory(limits);
    }
    if (this.#overCpu) return overCpu(limits);
    return failed(
      "crashed",
      `The program's process exited (code ${status.code}${
        status.signal ? `, ${status.signal}` : ""
      }): ${this.lastWords().slice(0, 300)}`,
    );
  }

  #send(message: unknown): void {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    this.#writes = this.#writes.then(() => this.#stdin.write(bytes)).catch(() => {});
  }
}

function overCpu(limits: CodeLimits): ProgramOutcome {
  return failed(
    "timeout",
    `The program used more than ${limits.cpuMs / 1000} s of CPU time and was stopped.`,
  );
}

function overMemory(limits: CodeLimits): ProgramOutcome {
  return failed(
    "memory",
    `The program used more than ${limits.memoryMb} MiB of memory and was stopped.`,
  );
}

/** Where a program's wall-clock backstop stands. Changed only through the clock's methods. */
type ClockState =
  /** The child has the program: time counts, and the timer fires at the backstop. */
  | { s: "running"; since: number; timer: ReturnType<typeof setTimeout> }
  /** A tool call runs in the parent (or the program has not started): time does not count. */
  | { s: "paused" }
  /** The run was interrupted (the limit, memory, the question's signal), or is over. */
  | { s: "over" };

/**
 * A program's wall-clock backstop and the one interruption that ends the
 * program early: the first of the backstop, the watchdog's reports (CPU
 * time, memory) and the question's signal. The backstop counts from sending
 * the program until its end, except while the parent executes one of its tool
 * calls (from reading the call until sending its result). It is there for a
 * program that waits without using the CPU, which the CPU limit never
 * reaches, and is far above that limit: on a loaded machine a program gets
 * the cores only part of the time, so its clock time grows while its CPU time
 * does not.
 */
class ProgramClock {
  #state: ClockState = { s: "paused" };
  /** Time the program may still run (ms). */
  #left: number;
  readonly #limitMs: number;
  #interrupt!: (outcome: ProgramOutcome) => void;
  /** Settles with the outcome of the first interruption. */
  readonly interrupted: Promise<ProgramOutcome>;

  constructor(limitMs: number) {
    this.#limitMs = limitMs;
    this.#left = limitMs;
    this.interrupted = new Promise((resolve) => this.#interrupt = resolve);
  }

  /** The child runs: time counts again. */
  resume(): void {
    if (this.#state.s !== "paused") return;
    const timer = setTimeout(() =>
      this.interrupt(failed(
        "timeout",
        `The program did not finish within ${
          this.#limitMs / 1000
        } s (its tool calls not counted) and was stopped.`,
      )), this.#left);
    this.#state = { s: "running", since: performance.now(), timer };
  }

  /** A tool call runs in the parent: time stops counting. */
  pause(): void {
    const state = this.#state;
    if (state.s !== "running") return;
    clearTimeout(state.timer);
    this.#left = Math.max(0, this.#left - (performance.now() - state.since));
    this.#state = { s: "paused" };
  }

  /** Ends the run with `outcome`, unless something ended it already. */
  interrupt(outcome: ProgramOutcome): void {
    if (this.#state.s === "over") return;
    this.stop();
    this.#interrupt(outcome);
  }

  /** The run is over: no timer is left. */
  stop(): void {
    if (this.#state.s === "running") clearTimeout(this.#state.timer);
    this.#state = { s: "over" };
  }
}
