/**
 * The runner: every system on every question, `repeats` times, with bounded
 * concurrency. Each finished question is scored and handed to the sink at
 * once (the sink appends it to the JSONL) and not kept: a run's memory does
 * not grow with its results. A failure inside one question
 * (model API error, timeout, a bug) is recorded in that question's result and
 * never stops the run. Cancelling the run (the first Ctrl-C) stops starting
 * questions; the ones in progress finish and are recorded, and `--resume`
 * runs the rest. A question during which, once cancelled, a child process
 * ended unasked (`child_exits.ts`) is not recorded either: the signal may
 * have reached the child too, its failure would not be the system's, and
 * `--resume` runs it again.
 *
 * @module
 */

import type { Question } from "../data/question_schema.ts";
import { type Model, ModelCallError } from "../llm/model.ts";
import { ReplayMissError } from "../llm/cached_model.ts";
import { scoreTrace } from "../score/score.ts";
import type { QuestionResult, StepError, Trace, TraceFlags } from "../types.ts";
import type { Retriever } from "../retrieval/types.ts";
import {
  modelCallsOf,
  type RetrievalDepth,
  type SystemDef,
  SystemFailedError,
} from "../../systems/system.ts";
import type { Toolbox } from "../../tools/toolbox.ts";
import { JobQueue } from "./job_queue.ts";
import { RetrievalFailedError, TraceRecorder } from "../trace/trace_recorder.ts";
import { childExitMark, interruptedSince } from "./child_exits.ts";

/** A system ready to run. */
export interface PlannedSystem {
  name: string;
  def: SystemDef;
  /** Its validated config entry. */
  options: Record<string, unknown>;
  toolbox: Toolbox;
  /** The system's retriever, built once for the run; null for a system that takes none. */
  retriever: Retriever | null;
  /** How deep its own retrieval goes (`SystemDef.retrievalDepth`); absent: not a retriever's. */
  depth?: RetrievalDepth | null;
  /** The model it talks to (shared by every system with the same model config). */
  model: Model;
  /**
   * Resolves when the system's tools can take calls (the sandbox worker has loaded and built its
   * indexes). The system's first question starts only then, so the wait is in no question's
   * latency or timeout, and the other systems start without it. A rejection stops the run like a
   * failed sink. Absent: ready at once.
   */
  ready?: Promise<void>;
  /**
   * Once ready: null when its next question may start, else a promise resolving when it may (a
   * framework's process replacing a killed one is loading; `SystemInstance.pending`). The
   * question's clock starts only then, so the wait is in no question's latency or timeout.
   */
  pending?: () => Promise<void> | null;
}

/** Receives progress; the CLI prints it. */
export interface RunReporter {
  /** Once, before the first question: how many questions (× repeats) each system will run. */
  onPlan?(jobs: ReadonlyMap<string, number>): void;
  /** A question of `system` starts. */
  onStart?(system: string): void;
  onResult(result: QuestionResult, progress: { done: number; total: number }): void;
}

/** Everything the runner needs. */
export interface RunOptions {
  systems: readonly PlannedSystem[];
  questions: readonly Question[];
  repeats: number;
  concurrency: number;
  questionTimeoutMs: number;
  /** Stop starting questions once the run has spent this much (US dollars). */
  maxCostUsd: number | null;
  /** Keys ({@link jobKey}) of results already recorded (for --resume). */
  done: ReadonlySet<string>;
  /** Called with each result as it finishes; awaited before the next is reported. */
  sink: (result: QuestionResult) => Promise<void>;
  reporter: RunReporter;
  /** Aborted to stop starting questions (questions in progress finish). */
  signal: AbortSignal;
  /** Cut-offs of the retrieval metrics (`evaluation.retrieval_k`; default [1, 5, 10, 100]). */
  retrievalK?: readonly number[];
  /** Runs only the jobs this accepts (`--shard`, lib/run/shard.ts); absent: every job. */
  include?: (system: string, questionId: string, repeat: number) => boolean;
}

/** How the run ended. */
export interface RunOutcome {
  /**
   * Results this invocation recorded (handed to the sink). The runner keeps no result: each is
   * in the results file once the sink has taken it, and the finish phase reads the file back.
   */
  recorded: number;
  /** Questions not run (cancelled or over the run's cost cap), or run but not recorded. */
  notRun: number;
  /**
   * Of `notRun`, questions that ran but were not recorded: the run was
   * cancelled, and a child process ended unasked while they ran.
   */
  interrupted: number;
  stoppedBy: "cancelled" | "max_cost_usd" | null;
}

/** Identifies one system × question × repeat. */
export function jobKey(system: string, questionId: string, repeat: number): string {
  return JSON.stringify([system, questionId, repeat]);
}

interface Job {
  system: PlannedSystem;
  question: Question;
  repeat: number;
}

/**
 * How long the runner may go without letting the event loop turn. Questions
 * whose every step resolves at once (the mock model, in-process tools) chain
 * on promises alone; without a turn, a Ctrl-C, a SIGTERM, a timer or a
 * worker's reply waits until the last of them is done. A turn costs a few
 * microseconds; a short interval also lets the sandbox's replies in while
 * other systems' questions run (docs/architecture.md, "Harness overhead").
 */
const YIELD_EVERY_MS = 2;

/**
 * A way to let the event loop turn once: a message to oneself on a port is an
 * operation the loop polls along with the others (signals, a worker's
 * replies), and costs a few microseconds (`setTimeout(0)` waits ~2 ms).
 */
function eventLoopTurns(): { next(): Promise<void>; close(): void } {
  const channel = new MessageChannel();
  const waiting: Array<() => void> = [];
  channel.port2.onmessage = () => waiting.shift()?.();
  return {
    next: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        channel.port1.postMessage(null);
      }),
    close() {
      channel.port1.close();
      channel.port2.close();
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/**
 * Runs the plan. Never rejects for a question's failure; rejects only if the sink fails or a
 * system's tools cannot get ready (`PlannedSystem.ready`).
 */
export async function runQuestions(options: RunOptions): Promise<RunOutcome> {
  const jobs: Job[] = [];
  for (let repeat = 1; repeat <= options.repeats; repeat++) {
    for (const question of options.questions) {
      for (const system of options.systems) {
        if (options.include && !options.include(system.name, question.id, repeat)) continue;
        if (!options.done.has(jobKey(system.name, question.id, repeat))) {
          jobs.push({ system, question, repeat });
        }
      }
    }
  }
  const perSystem = new Map(options.systems.map((s) => [s.name, 0]));
  for (const job of jobs) perSystem.set(job.system.name, perSystem.get(job.system.name)! + 1);
  options.reporter.onPlan?.(new Map([...perSystem].filter(([, n]) => n > 0)));
  let recorded = 0;
  const workers = Math.max(1, Math.min(options.concurrency, jobs.length));
  const queue = new JobQueue(jobs, { slots: workers });
  const aborted = new Promise<void>((resolve) => {
    options.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  let reported = 0;
  let spent = 0;
  let lastTurn = performance.now();
  const turns = eventLoopTurns();
  // Every slot waits for the same turn: the loop turns only once no slot has work queued as
  // promises, so one slot waiting alone would let the others run on for their whole share.
  let turn: Promise<void> | null = null;
  let stoppedBy: RunOutcome["stoppedBy"] = null;
  let sinkError: unknown = null;
  let interrupted = 0;
  const worker = async () => {
    while (stoppedBy === null && sinkError === null) {
      if (options.signal.aborted) {
        stoppedBy = "cancelled";
        break;
      }
      if (options.maxCostUsd !== null && spent >= options.maxCostUsd) {
        stoppedBy = "max_cost_usd";
        break;
      }
      const taken = queue.take();
      if (taken.kind === "done") break;
      if (taken.kind === "failed") {
        sinkError ??= taken.error;
        break;
      }
      if (taken.kind === "wait") {
        // For a system's tools or a free slot; a Ctrl-C meanwhile stops the wait too.
        await Promise.race([taken.until, aborted]);
        continue;
      }
      const { job } = taken;
      const mark = childExitMark();
      options.reporter.onStart?.(job.system.name);
      const trace = await runJob(job, options);
      queue.finished(job);
      // An unknown cost counts 0 here: a live run with this cap and an unknown price is refused
      // before it starts (lib/plan/price_checks.ts), and a --mock run passes no cap.
      spent += trace.cost_usd ?? 0;
      if (interruptedSince(mark, options.signal.aborted)) {
        interrupted++;
        continue;
      }
      const result = scoreTrace(trace, job.question, {
        retrievalK: options.retrievalK,
        canRetrieve: job.system.retriever !== null || job.system.toolbox.tools.length > 0,
      });
      try {
        await options.sink(result);
      } catch (error) {
        sinkError ??= error;
        break;
      }
      recorded++;
      options.reporter.onResult(result, { done: ++reported, total: jobs.length });
      if (turn === null && performance.now() - lastTurn >= YIELD_EVERY_MS) {
        turn = turns.next().then(() => {
          turn = null;
          lastTurn = performance.now();
        });
      }
      if (turn !== null) await turn;
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    turns.close();
  }
  if (sinkError !== null) throw sinkError;
  if (stoppedBy === null && options.signal.aborted && recorded < jobs.length) {
    stoppedBy = "cancelled";
  }
  return { recorded, notRun: jobs.length - recorded, interrupted, stoppedBy };
}

async function runJob(job: Job, options: RunOptions): Promise<Trace> {
  const started = performance.now();
  const recorder = new TraceRecorder(job.system.model, job.repeat);
  const key = `${job.system.name}/${job.question.id}/${job.repeat}`;
  const session = job.system.toolbox.session(key, { repeat: job.repeat });
  // A timer cleared when the question ends, not `AbortSignal.timeout`: that one lives (with its
  // signal and closures, ~1 KB) until it fires, so a fast run of a million questions held
  // hundreds of thousands of them (measured: the run's live heap grew ~0.9 KB a result).
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new DOMException("Signal timed out.", "TimeoutError")),
    options.questionTimeoutMs,
  );
  Deno.unrefTimer(timer);
  const signal = timeout.signal;
  let answer: string | null = null;
  let flags: TraceFlags = { best_effort: false, budget_exhausted: false, format_error: false };
  let error: StepError | null = null;
  let cited: string[] | undefined;
  try {
    const outcome = await abortable(
      job.system.def.run(job.system.options, {
        question: job.question,
        recorder,
        tools: session,
        retriever: job.system.retriever,
        depth: job.system.depth ?? null,
        signal,
      }),
      signal,
    );
    answer = outcome.answer;
    flags = outcome.flags;
    cited = outcome.cited;
  } catch (caught) {
    error = classify(caught, signal, options, job);
  } finally {
    clearTimeout(timer);
    // The trace is taken now: a system that goes on after a timeout changes nothing of it.
    recorder.close();
    session.close();
  }
  return {
    system: job.system.name,
    model: modelCallsOf(job.system.def, job.system.options).max === 0 ? null : job.system.model.id,
    question_id: job.question.id,
    repeat: job.repeat,
    steps: recorder.steps,
    answer,
    usage: recorder.usage,
    cost_usd: recorder.costUsd,
    latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
    flags,
    format_errors: recorder.formatErrors,
    error,
    ...(cited === undefined ? {} : { cited }),
  };
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (a system that ignores it cannot hang the run). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function classify(
  caught: unknown,
  signal: AbortSignal,
  options: RunOptions,
  job: Job,
): StepError {
  if (signal.aborted) {
    return {
      kind: "timeout",
      message: `the question took longer than ${
        options.questionTimeoutMs / 1000
      } s (evaluation.question_timeout_s)`,
    };
  }
  if (caught instanceof ReplayMissError) {
    const where = { system: job.system.name, question: job.question.id, repeat: job.repeat };
    return { kind: "model", message: caught.describe(where) };
  }
  if (caught instanceof ModelCallError) {
    return { kind: "model", message: caught.message, ...caught.attempts };
  }
  if (caught instanceof RetrievalFailedError) return { kind: "retrieval", message: caught.message };
  if (caught instanceof SystemFailedError) {
    return { kind: "system", message: caught.message, ...caught.attempts };
  }
  const error = caught instanceof Error ? caught : new Error(String(caught));
  return { kind: "internal", message: `${error.name}: ${error.message}` };
}
