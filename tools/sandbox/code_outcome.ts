/**
 * What the code agent's sandbox is asked to do and what comes of it: one
 * program to run under its limits, and how it ended (an answer, no answer,
 * or an error of a fixed kind), with its printed output.
 *
 * @module
 */

/** Limits of one program. */
export interface CodeLimits {
  /**
   * CPU time of one program (milliseconds): the sandbox process's user + system time from the
   * program's first instruction until it settles (see `code_child.ts`). Tool calls run in the
   * parent and are never in it.
   */
  cpuMs: number;
  /**
   * The backstop for a program that waits without using the CPU (a sleep, a promise that never
   * settles): time on the parent's clock from sending the program until its end, tool calls
   * excluded (milliseconds). Far above `cpuMs`, so that a loaded machine does not reach it.
   */
  wallMs: number;
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
    /** `answerCut`: the answer was longer than `MAX_ANSWER_CHARS` and was cut to it. */
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

/** The outcome of a program that ended in an error of `kind`, before printing anything else. */
export function failed(kind: ProgramErrorKind, message: string, printed = ""): ProgramOutcome {
  return { status: "error", kind, message, printed, printedCut: false };
}
