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
 * - registered with the exit hook of `tool_process.ts`, so it never
 *   outlives ragbench.
 *
 * The program's time limit counts only the time the child runs: it pauses
 * while a tool call is being executed by the parent (tool calls have their
 * own timeout in the toolbox). Everything the child sends is validated here;
 * a message that does not fit its schema, or a line longer than
 * {@link MAX_LINE_CHARS}, kills the process.
 *
 * A killed process is replaced by a fresh one at the question's next program.
 *
 * @module
 */

import { z } from "zod";
import { codeChildMain, MEMORY_MARKER } from "./code_child.ts";
import { childEnv, collectTail, isDenoExecutable, trackProcess } from "./tool_process.ts";
import { ownSession } from "../../lib/util/process_group.ts";

/** Longest final answer kept (characters); the child cuts a longer one and says so. */
export const MAX_ANSWER_CHARS = 100_000;
/**
 * Longest line accepted from the child (characters); longer kills it. Above
 * what an honest child sends: the `done` message holds the answer and the
 * printed text (each at most 100,000 characters, and JSON escaping can make a
 * character six), so a long answer is never mistaken for a program writing
 * to stdout itself.
 */
export const MAX_LINE_CHARS = 2_000_000;
/** Longest arguments text of one tool call from a program (characters; the child refuses longer). */
export const MAX_ARGS_CHARS = 100_000;
/** How long a fresh process may take to start. */
const START_TIMEOUT_MS = 20_000;

/** Limits of one program. */
export interface CodeLimits {
  /** Run time of one program, tool calls excluded (milliseconds). */
  timeoutMs: number;
  /** Heap and resident-memory limit of the process (MiB). */
  memoryMb: number;
  /** Characters of printed output kept per program. */
  maxPrintChars: number;
}

/** Why a program ended without an answer, beside not calling `final_answer`. */
export type ProgramErrorKind =
  | "syntax"
  | "exception"
  /** `final_answer` got a value that cannot be turned into text, or none. */
  | "answer"
  | "timeout"
  | "memory"
  | "output_limit"
  | "crashed"
  | "protocol"
  | "cancelled"
  | "unavailable";

/** How a program ended. `printed` is its captured output, cut at the limit. */
export type ProgramOutcome =
  & { printed: string; printedCut: boolean }
  & (
    /** `answerCut`: the answer was longer than {@link MAX_ANSWER_CHARS} and was cut to it. */
    | { status: "answered"; answer: string; answerCut: boolean }
    | { status: "no_answer" }
    | { status: "error"; kind: ProgramErrorKind; message: string }
  );

/** One program to run. */
export interface ProgramRun {
  program: string;
  /** The tool functions the program gets (valid identifiers). */
  tools: readonly string[];
  /** Executes one call (`args`: JSON text from the program); returns the text the program gets. */
  call(tool: string, args: string, signal: AbortSignal): Promise<string>;
  /** Aborts the program (the question's timeout). */
  signal: AbortSignal;
}

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

const callSchema = z.strictObject({
  type: z.literal("call"),
  id: z.int().positive(),
  tool: z.string().min(1).max(100),
  args: z.string().max(MAX_ARGS_CHARS),
});
const doneSchema = z.discriminatedUnion("status", [
  z.strictObject({
    type: z.literal("done"),
    status: z.literal("answered"),
    answer: z.string().max(MAX_ANSWER_CHARS),
    answer_cut: z.boolean(),
    printed: z.string(),
    printed_cut: z.boolean(),
  }),
  z.strictObject({
    type: z.literal("done"),
    status: z.literal("no_answer"),
    printed: z.string(),
    printed_cut: z.boolean(),
  }),
  z.strictObject({
    type: z.literal("done"),
    status: z.literal("error"),
    error: z.strictObject({
      kind: z.enum(["syntax", "exception", "answer"]),
      message: z.string(),
    }),
    printed: z.string(),
    printed_cut: z.boolean(),
  }),
]);
const readySchema = z.strictObject({ type: z.literal("ready") });

/** Creates the sandbox of one question. */
export function createCodeSandbox(limits: CodeLimits): CodeSandbox {
  let child: Promise<CodeProcess> | null = null;
  let closed = false;
  let pid: number | null = null;
  const current = () => {
    child ??= startCodeProcess(limits, (id) => pid = id);
    return child;
  };
  return {
    get pid() {
      return pid;
    },
    warm() {
      if (!closed) void current().catch(() => {});
    },
    async run(run) {
      if (closed) return failed("unavailable", "The sandbox is closed.");
      let process: CodeProcess;
      try {
        process = await current();
        if (!process.alive) {
          child = null;
          process = await current();
        }
      } catch (error) {
        child = null;
        return failed("unavailable", `The sandbox could not start: ${(error as Error).message}`);
      }
      const outcome = await process.run(run, limits);
      if (!process.alive) child = null;
      return outcome;
    },
    async close() {
      closed = true;
      const started = child;
      child = null;
      if (started) await started.then((p) => p.kill(), () => {});
    },
  };
}

/** The child's command line under `deno run`. */
export function codeChildArgs(memoryMb: number): string[] {
  const importMap = {
    imports: { "file:///": "https://import.invalid/", "/": "https://import.invalid/" },
  };
  const source = `(${codeChildMain.toString()})();\n`;
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
  ];
}

function failed(kind: ProgramErrorKind, message: string, printed = ""): ProgramOutcome {
  return { status: "error", kind, message, printed, printedCut: false };
}

interface CodeProcess {
  readonly alive: boolean;
  run(run: ProgramRun, limits: CodeLimits): Promise<ProgramOutcome>;
  kill(): Promise<void>;
}

type Line = { line: string } | { overflow: true } | null;

async function startCodeProcess(
  limits: CodeLimits,
  onPid: (pid: number) => void,
): Promise<CodeProcess> {
  if (!isDenoExecutable(Deno.execPath())) {
    throw new Error(
      "the code agent runs its programs with the deno CLI; a compiled ragbench cannot start them",
    );
  }
  const process = new Deno.Command(Deno.execPath(), {
    args: codeChildArgs(limits.memoryMb),
    clearEnv: true,
    env: childEnv("none"),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // Its own session: a terminal's Ctrl-C reaches ragbench, not the program in the middle of a run.
    ...ownSession(),
  }).spawn();
  onPid(process.pid);
  let alive = true;
  let killed = false;
  const exited = trackProcess(process, () => killed).then(() => {
    alive = false;
  });
  let overMemory = false;
  const memoryWatchers = new Set<() => void>();
  const stderr = collectTail(process.stderr, (tail) => {
    if (!overMemory && tail.includes(MEMORY_MARKER)) {
      overMemory = true;
      for (const watch of memoryWatchers) watch();
    }
  });
  const stdin = process.stdin.getWriter();
  const encoder = new TextEncoder();
  let writes = Promise.resolve();
  const send = (message: unknown) => {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    writes = writes.then(() => stdin.write(bytes)).catch(() => {});
  };
  const lines = lineReader(process.stdout);
  const kill = async () => {
    alive = false;
    killed = true;
    try {
      process.kill("SIGKILL");
    } catch { /* already gone */ }
    await stdin.close().catch(() => {});
    await lines.cancel();
    await exited;
    await stderr.done;
  };
  const lastWords = () =>
    stderr.text().replaceAll(MEMORY_MARKER, "").trim().split("\n").slice(-3).join(" ") ||
    "no output on stderr";

  let startTimer: ReturnType<typeof setTimeout> | undefined;
  const first = await Promise.race([
    lines.next(),
    new Promise<"timeout">((r) => startTimer = setTimeout(() => r("timeout"), START_TIMEOUT_MS)),
  ]).finally(() => clearTimeout(startTimer));
  if (first === "timeout" || first === null || !("line" in first) || !isReady(first.line)) {
    await kill();
    throw new Error(
      first === "timeout" ? `it did not start within ${START_TIMEOUT_MS / 1000} s` : lastWords(),
    );
  }

  return {
    get alive() {
      return alive;
    },
    kill,
    async run(run, limits) {
      if (run.signal.aborted) return failed("cancelled", "The question was stopped.");
      // One interruption settles the run: timeout, memory, the question's signal.
      let interrupt!: (outcome: ProgramOutcome) => void;
      const interrupted = new Promise<ProgramOutcome>((resolve) => interrupt = resolve);
      let left = limits.timeoutMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let since = 0;
      const resume = () => {
        since = performance.now();
        timer = setTimeout(() =>
          interrupt(failed(
            "timeout",
            `The program ran longer than ${limits.timeoutMs / 1000} s and was stopped.`,
          )), left);
      };
      const pause = () => {
        clearTimeout(timer);
        left = Math.max(0, left - (performance.now() - since));
      };
      const onMemory = () =>
        interrupt(failed(
          "memory",
          `The program used more than ${limits.memoryMb} MiB of memory and was stopped.`,
        ));
      const onAbort = () => interrupt(failed("cancelled", "The question was stopped."));
      memoryWatchers.add(onMemory);
      run.signal.addEventListener("abort", onAbort, { once: true });
      const callController = new AbortController();
      try {
        send({
          type: "run",
          program: run.program,
          tools: run.tools,
          print_limit: limits.maxPrintChars,
          answer_limit: MAX_ANSWER_CHARS,
        });
        resume();
        for (;;) {
          const next = await Promise.race([lines.next(), interrupted]);
          if (next !== null && "status" in next) {
            callController.abort();
            await kill();
            return next;
          }
          const outcome = await handle(next);
          if (outcome !== "go on") return outcome;
        }
      } finally {
        clearTimeout(timer);
        memoryWatchers.delete(onMemory);
        run.signal.removeEventListener("abort", onAbort);
      }

      async function handle(next: Line): Promise<ProgramOutcome | "go on"> {
        if (next === null) {
          await exited;
          await stderr.done;
          await kill();
          const status = await process.status;
          if (overMemory || /out of memory|heap limit/i.test(stderr.text())) {
            return failed(
              "memory",
              `The program used more than ${limits.memoryMb} MiB of memory and was stopped.`,
            );
          }
          return failed(
            "crashed",
            `The program's process exited (code ${status.code}${
              status.signal ? `, ${status.signal}` : ""
            }): ${lastWords().slice(0, 300)}`,
          );
        }
        if ("overflow" in next) {
          await kill();
          return failed(
            "output_limit",
            `The program wrote more than ${MAX_LINE_CHARS} characters to stdout at once and was stopped; use print().`,
          );
        }
        let message: unknown;
        try {
          message = JSON.parse(next.line);
        } catch {
          message = undefined;
        }
        const call = callSchema.safeParse(message);
        if (call.success) {
          pause();
          const text = await Promise.race([
            run.call(call.data.tool, call.data.args, callController.signal),
            interrupted.then(() => ""),
          ]);
          send({ type: "result", id: call.data.id, text });
          resume();
          return "go on";
        }
        const done = doneSchema.safeParse(message);
        if (done.success) {
          const d = done.data;
          const printed = d.printed.slice(0, limits.maxPrintChars);
          const printedCut = d.printed_cut || d.printed.length > limits.maxPrintChars;
          if (d.status === "answered") {
            return {
              status: "answered",
              answer: d.answer,
              answerCut: d.answer_cut,
              printed,
              printedCut,
            };
          }
          if (d.status === "no_answer") return { status: "no_answer", printed, printedCut };
          return {
            status: "error",
            kind: d.error.kind,
            message: d.error.message.slice(0, 2000),
            printed,
            printedCut,
          };
        }
        await kill();
        return failed(
          "protocol",
          "The program wrote something to stdout that is not a sandbox message and was stopped; use print().",
        );
      }
    },
  };
}

function isReady(line: string): boolean {
  try {
    return readySchema.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

/** Lines of `stream`, each at most {@link MAX_LINE_CHARS}; a longer one ends the reader with `overflow`. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const ready: string[] = [];
  let rest = "";
  let ended: Line | undefined;
  return {
    async next(): Promise<Line> {
      for (;;) {
        const line = ready.shift();
        if (line !== undefined) return { line };
        if (ended !== undefined) return ended;
        const { value, done } = await reader.read().catch(() => ({ value: "", done: true }));
        if (done) {
          ended = null;
          continue;
        }
        let start = 0;
        let newline: number;
        while ((newline = value.indexOf("\n", start)) !== -1) {
          ready.push(rest + value.slice(start, newline));
          rest = "";
          start = newline + 1;
        }
        rest += value.slice(start);
        if (rest.length > MAX_LINE_CHARS || ready.some((l) => l.length > MAX_LINE_CHARS)) {
          ready.length = 0;
          ended = { overflow: true };
          await reader.cancel().catch(() => {});
        }
      }
    },
    async cancel() {
      await reader.cancel().catch(() => {});
    },
  };
}
