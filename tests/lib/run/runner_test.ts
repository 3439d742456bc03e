import assert from "node:assert/strict";
import type { Model } from "../../../lib/llm/model.ts";
import { ModelCallError } from "../../../lib/llm/model.ts";
import {
  jobKey,
  type PlannedSystem,
  type RunOptions,
  runQuestions,
} from "../../../lib/run/runner.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { agentSearch } from "../../../systems/agent_search.ts";
import { closedBook } from "../../../systems/closed_book.ts";
import { rag } from "../../../systems/rag.ts";
import type { Retriever } from "../../../lib/retrieval/types.ts";
import { defineSystem, NO_FLAGS } from "../../../systems/system.ts";
import { systemBaseSchema } from "../../../lib/config/schema.ts";
import {
  fakeSearch,
  hangingModel,
  modelOf,
  question,
  toolboxOf,
  unreachableModel,
} from "../../support/fixtures.ts";
import { waitUntil } from "../../support/wait.ts";
import { evalUnderHeap } from "../../support/small_heap.ts";

const answering = modelOf(() => ({ content: "It is 330 metres." }));

const QUESTIONS = [question("q1", "How tall is it?"), question("q2", "And the other?")];

function system(name: string, def = closedBook): PlannedSystem {
  return {
    name,
    def,
    options: def.options.parse({ type: def.type }) as Record<string, unknown>,
    toolbox: toolboxOf(def === agentSearch ? [fakeSearch] : []),
    retriever: null,
    model: answering,
  };
}

function options(
  model: Model,
  overrides: Partial<RunOptions> = {},
): RunOptions & { lines: QuestionResult[] } {
  const lines: QuestionResult[] = [];
  const { systems = [system("a"), system("b")], ...rest } = overrides;
  return {
    lines,
    questions: QUESTIONS,
    repeats: 1,
    concurrency: 2,
    questionTimeoutMs: 5000,
    maxCostUsd: null,
    done: new Set(),
    sink: (r) => {
      lines.push(r);
      return Promise.resolve();
    },
    reporter: { onResult() {} },
    signal: new AbortController().signal,
    ...rest,
    systems: systems.map((s) => ({ ...s, model })),
  };
}

Deno.test("runner: every system × question × repeat is run, scored and sunk once", async () => {
  const o = options(answering, { repeats: 2 });
  const outcome = await runQuestions(o);
  assert.equal(outcome.recorded, 8);
  assert.equal(outcome.notRun, 0);
  assert.equal(outcome.stoppedBy, null);
  const keys = o.lines.map((r) => jobKey(r.system, r.question_id, r.repeat)).sort();
  assert.equal(new Set(keys).size, 8);
  assert.ok(o.lines.every((r) => r.passed && r.answer_score === 1 && r.error === null));
});

Deno.test("runner: a model error is recorded in that question's line and the run goes on", async () => {
  const flaky = modelOf((request) => {
    if (request.messages[1].content?.startsWith("And")) {
      throw new ModelCallError("Model API returned HTTP 500");
    }
    return { content: "330" };
  });
  const o = options(flaky);
  await runQuestions(o);
  const q2 = o.lines.filter((r) => r.question_id === "q2");
  assert.equal(q2.length, 2);
  for (const line of q2) {
    assert.deepEqual(line.error, { kind: "model", message: "Model API returned HTTP 500" });
    assert.equal(line.answer_score, 0);
    assert.equal(line.passed, false);
    assert.deepEqual(line.checks, [{ type: "contains", passed: false, detail: "no answer" }]);
  }
  assert.ok(o.lines.filter((r) => r.question_id === "q1").every((r) => r.passed));
});

Deno.test("runner: an unreachable model gives an error line per question, not a crash", async () => {
  const o = options(unreachableModel);
  const outcome = await runQuestions(o);
  assert.equal(outcome.recorded, 4);
  assert.ok(
    o.lines.every((r) => r.error?.kind === "model" && /could not be reached/.test(r.error.message)),
  );
});

Deno.test("runner: a bug inside a system is recorded as an internal error", async () => {
  const buggy = defineSystem({
    type: "buggy",
    description: "throws",
    acceptsTools: false,
    alwaysTools: [],
    options: systemBaseSchema,
    run() {
      return Promise.reject(new TypeError("cannot read properties of undefined"));
    },
  });
  const o = options(answering, { systems: [system("x", buggy as typeof closedBook)] });
  await runQuestions(o);
  assert.deepEqual(o.lines[0].error, {
    kind: "internal",
    message: "TypeError: cannot read properties of undefined",
  });
});

Deno.test("runner: a question past its timeout is an error and the steps so far are kept", async () => {
  let calls = 0;
  const slowSecond = modelOf((request, signal) => {
    calls++;
    if (request.messages.some((m) => m.role === "tool")) return hangingModel.chat(request, signal);
    return { tool_calls: [{ id: "1", name: "search", arguments: '{"query":"eiffel"}' }] };
  });
  const o = options(slowSecond, {
    systems: [system("agent", agentSearch)],
    questions: [QUESTIONS[0]],
    questionTimeoutMs: 50,
  });
  await runQuestions(o);
  const line = o.lines[0];
  assert.equal(line.error?.kind, "timeout");
  assert.match(line.error!.message, /longer than 0\.05 s \(evaluation\.question_timeout_s\)/);
  assert.deepEqual(line.steps.map((s) => s.type), ["model", "tool"]);
  assert.equal(calls, 2);
});

Deno.test("runner: a system that goes on after its question timed out changes nothing of the written result", async () => {
  // The system ignores the question's signal: it records a model call once the runner has
  // recorded the question as timed out and handed the result to the sink.
  let release!: () => void;
  const late = new Promise<void>((resolve) => release = resolve);
  let finished!: Promise<unknown>;
  const stubborn = defineSystem({
    type: "stubborn",
    description: "goes on after its timeout",
    acceptsTools: false,
    alwaysTools: [],
    options: systemBaseSchema,
    run(_options, ctx) {
      finished = late.then(() =>
        ctx.recorder.chat({ messages: [], tools: [] }, AbortSignal.any([]))
      );
      return finished.then(() => ({ answer: "330", flags: NO_FLAGS }));
    },
  });
  const written: string[] = [];
  const o = options(answering, {
    systems: [system("s", stubborn as typeof closedBook)],
    questions: [QUESTIONS[0]],
    questionTimeoutMs: 1,
    sink: (r) => {
      o.lines.push(r);
      written.push(JSON.stringify(r));
      return Promise.resolve();
    },
  });
  await runQuestions(o);
  assert.equal(o.lines[0].error?.kind, "timeout");
  release();
  // Its model call is refused: it stops spending on a question that is over.
  await assert.rejects(finished, /the question is over: nothing more is recorded/);
  // What the run holds (its summaries and report) is what the file has.
  assert.equal(JSON.stringify(o.lines[0]), written[0]);
  assert.deepEqual(o.lines[0].steps, []);
  assert.deepEqual(o.lines[0].usage, { input_tokens: 0, output_tokens: 0 });
});

Deno.test("runner: cancelling stops starting questions; the one in progress finishes and is recorded", async () => {
  const controller = new AbortController();
  let started = 0;
  const model = modelOf(async () => {
    started++;
    if (started === 2) {
      controller.abort(new Error("Ctrl-C"));
      await new Promise((r) => setTimeout(r, 20)); // still working after the cancel
    }
    return { content: "330" };
  });
  const o = options(model, { concurrency: 1, signal: controller.signal });
  const outcome = await runQuestions(o);
  assert.equal(outcome.stoppedBy, "cancelled");
  assert.equal(o.lines.length, 2);
  assert.ok(o.lines.every((l) => l.error === null && l.passed));
  assert.equal(outcome.notRun, 2);
});

Deno.test("runner: the run's cost cap stops starting questions", async () => {
  const o = options(answering, { concurrency: 1, maxCostUsd: 1e-9 });
  const outcome = await runQuestions(o);
  assert.equal(outcome.stoppedBy, "max_cost_usd");
  assert.equal(o.lines.length, 1);
  assert.equal(outcome.notRun, 3);
});

Deno.test("runner: results already done (resume) are skipped", async () => {
  const o = options(answering, { done: new Set([jobKey("a", "q1", 1), jobKey("b", "q2", 1)]) });
  await runQuestions(o);
  assert.deepEqual(o.lines.map((r) => `${r.system}/${r.question_id}`).sort(), ["a/q2", "b/q1"]);
});

Deno.test("runner: never more questions in flight than the concurrency", async () => {
  let inFlight = 0;
  let peak = 0;
  const model = modelOf(async () => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    return { content: "330" };
  });
  const many = Array.from({ length: 12 }, (_, i) => question(`q${i}`, `Q${i}?`));
  await runQuestions(options(model, { questions: many, concurrency: 3 }));
  assert.equal(peak, 3);
});

Deno.test("runner: a failing sink rejects the run (results must not be lost silently)", async () => {
  const o = options(answering, { sink: () => Promise.reject(new Error("disk full")) });
  await assert.rejects(runQuestions(o), /disk full/);
});

Deno.test("runner: flags and costs of the system reach the line", async () => {
  const o = options(answering, { systems: [system("a")], questions: [QUESTIONS[0]] });
  await runQuestions(o);
  assert.deepEqual(o.lines[0].flags, NO_FLAGS);
  assert.equal(o.lines[0].cost_usd, 15 / 1e6);
  assert.deepEqual(o.lines[0].usage, { input_tokens: 10, output_tokens: 5 });
});

Deno.test("runner: a failed retrieval is that question's retrieval error and the run goes on", async () => {
  const down: Retriever = {
    name: "dense",
    kind: "vector",
    topK: 3,
    passages: [],
    search: () => Promise.reject(new Error("embedding endpoint is down")),
  };
  const ragSystem: PlannedSystem = {
    ...system("rag", rag as unknown as typeof closedBook),
    retriever: down,
  };
  const o = options(answering, { systems: [ragSystem, system("closed")] });
  const outcome = await runQuestions(o);
  assert.equal(outcome.recorded, 4);
  for (const r of o.lines.filter((l) => l.system === "rag")) {
    assert.deepEqual(r.error, {
      kind: "retrieval",
      message: 'retriever "dense" failed: embedding endpoint is down',
    });
    assert.equal(r.steps[0].type, "retrieval");
  }
  assert.ok(o.lines.filter((l) => l.system === "closed").every((l) => l.error === null));
});

Deno.test("runner: a system waits for its tools to be ready; the others start at once, and the wait is in no latency", async () => {
  let open = () => {};
  const ready = new Promise<void>((resolve) => open = resolve);
  const order: string[] = [];
  const arrived = new Map<string, number>();
  const got: QuestionResult[] = [];
  const o = options(answering, {
    systems: [{ ...system("waits"), ready }, system("ready")],
    sink: (r) => {
      got.push(r);
      order.push(`${r.system}/${r.question_id}`);
      arrived.set(`${r.system}/${r.question_id}`, performance.now());
      return Promise.resolve();
    },
  });
  const run = runQuestions(o);
  // The system with no wait answers both questions while the other is still waiting.
  await waitUntil(() => order.length >= 2);
  assert.deepEqual(order, ["ready/q1", "ready/q2"]);
  await new Promise((r) => setTimeout(r, 150));
  const opened = performance.now();
  open();
  const outcome = await run;
  assert.equal(outcome.recorded, 4);
  assert.deepEqual(order.slice(2).sort(), ["waits/q1", "waits/q2"]);
  // A waiting question's clock starts once its tools are ready: its latency fits between the
  // opening and its result's arrival, however slow the machine (with the wait in it, it would
  // not: the wait came before the opening).
  for (const line of got.filter((l) => l.system === "waits")) {
    const window = arrived.get(`waits/${line.question_id}`)! - opened;
    assert.ok(line.latency_ms <= window + 0.01, `latency ${line.latency_ms}, window ${window}`);
  }
});

Deno.test("runner: tools that fail to get ready stop the run with their error; finished results are kept", async () => {
  const failed = Promise.reject(new Error("The tool sandbox (a worker) could not start"));
  failed.catch(() => {});
  const o = options(answering, {
    systems: [system("ready"), { ...system("broken"), ready: failed }],
    concurrency: 1,
  });
  await assert.rejects(runQuestions(o), /could not start/);
  assert.deepEqual(o.lines.map((l) => `${l.system}/${l.question_id}`), ["ready/q1"]);
});

Deno.test("runner: cancelling while a system's tools are still loading stops the wait", async () => {
  const controller = new AbortController();
  const never = new Promise<void>(() => {});
  const o = options(answering, {
    systems: [{ ...system("stuck"), ready: never }],
    signal: controller.signal,
  });
  const run = runQuestions(o);
  setTimeout(() => controller.abort(), 20);
  const outcome = await run;
  assert.equal(outcome.stoppedBy, "cancelled");
  assert.equal(outcome.notRun, 2);
});

Deno.test("runner: questions that never wait still let the event loop turn, so a Ctrl-C is seen mid-run", async () => {
  const controller = new AbortController();
  const questions = Array.from({ length: 20_000 }, (_, i) => question(`q${i}`, `Question ${i}?`));
  const o = options(answering, { questions, signal: controller.signal, concurrency: 4 });
  // A timer, as a signal listener is: it runs only when the event loop gets a turn.
  setTimeout(() => controller.abort(), 30);
  const outcome = await runQuestions(o);
  assert.equal(outcome.stoppedBy, "cancelled");
  assert.ok(
    outcome.notRun > 0,
    `all ${outcome.recorded} questions ran before the abort was seen`,
  );
});

Deno.test({
  name:
    "runner: a signal sent mid-run (how Ctrl-C arrives) is seen while questions that never wait run",
  ignore: Deno.build.os === "windows",
  async fn() {
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    // SIGUSR1 is delivered like SIGINT, through an operation the event loop polls (a timer alone
    // would fire from the loop's timer phase, which some ways of yielding reach and this does not).
    Deno.addSignalListener("SIGUSR1", onSignal);
    try {
      const questions = Array.from(
        { length: 20_000 },
        (_, i) => question(`q${i}`, `Question ${i}?`),
      );
      const o = options(answering, { questions, signal: controller.signal, concurrency: 4 });
      setTimeout(() => Deno.kill(Deno.pid, "SIGUSR1"), 30);
      const outcome = await runQuestions(o);
      assert.equal(outcome.stoppedBy, "cancelled");
      assert.ok(
        outcome.notRun > 0,
        `all ${outcome.recorded} questions ran before the signal`,
      );
    } finally {
      Deno.removeSignalListener("SIGUSR1", onSignal);
    }
  },
});

Deno.test("runner: a result handed to the sink is not kept (2,000 answers of 100 KB run under a 64 MB heap)", async () => {
  // Each result holds a 100 KB answer (and a model step with it): 2,000 of them are ~400 MB of
  // strings. A runner that kept its results could not finish in the heap; one that keeps none
  // does, and its outcome is only counts.
  const url = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const printed = await evalUnderHeap(
    64,
    `const { runQuestions } = await import(${url("../../../lib/run/runner.ts")});
const { closedBook } = await import(${url("../../../systems/closed_book.ts")});
const { modelOf, question, toolboxOf } = await import(${url("../../support/fixtures.ts")});
const model = modelOf(() => ({ content: "330 " + "x".repeat(100_000) + String(Math.random()) }));
let sunk = 0;
const outcome = await runQuestions({
  systems: [{
    name: "big",
    def: closedBook,
    options: closedBook.options.parse({ type: "closed_book" }),
    toolbox: toolboxOf([]),
    retriever: null,
    model,
  }],
  questions: Array.from({ length: 2000 }, (_, i) => question("q" + i, "How tall?")),
  repeats: 1,
  concurrency: 4,
  questionTimeoutMs: 60_000,
  maxCostUsd: null,
  done: new Set(),
  sink: (r) => { if (r.answer.length > 100_000) sunk++; return Promise.resolve(); },
  reporter: { onResult() {} },
  signal: new AbortController().signal,
});
console.log(JSON.stringify({ sunk, outcome }));`,
  );
  assert.deepEqual(JSON.parse(printed), {
    sunk: 2000,
    outcome: { recorded: 2000, notRun: 0, interrupted: 0, stoppedBy: null },
  });
});

Deno.test("runner: a finished question leaves nothing behind (its timeout's timer is cleared: heap per question after 20,000)", async () => {
  // With an hour's question timeout, a timer that lived until it fired (AbortSignal.timeout)
  // held ~0.9 KB a question long after the question ended.
  const url = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--v8-flags=--expose-gc",
      `const { runQuestions } = await import(${url("../../../lib/run/runner.ts")});
const { closedBook } = await import(${url("../../../systems/closed_book.ts")});
const { modelOf, question, toolboxOf } = await import(${url("../../support/fixtures.ts")});
const run = (n) => runQuestions({
  systems: [{
    name: "s",
    def: closedBook,
    options: closedBook.options.parse({ type: "closed_book" }),
    toolbox: toolboxOf([]),
    retriever: null,
    model: modelOf(() => ({ content: "330" })),
  }],
  questions: Array.from({ length: n }, (_, i) => question("q" + i, "How tall?")),
  repeats: 1,
  concurrency: 4,
  questionTimeoutMs: 3_600_000,
  maxCostUsd: null,
  done: new Set(),
  sink: () => Promise.resolve(),
  reporter: { onResult() {} },
  signal: new AbortController().signal,
});
await run(100);
globalThis.gc();
const before = Deno.memoryUsage().heapUsed;
await run(20000);
globalThis.gc();
console.log(Math.round((Deno.memoryUsage().heapUsed - before) / 20000));`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr).slice(0, 2_000));
  const perQuestion = Number(new TextDecoder().decode(out.stdout).trim());
  assert.ok(perQuestion < 200, `${perQuestion} bytes of heap kept a question`);
});
