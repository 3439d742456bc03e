// deno-lint-ignore-file no-console
/**
 * A big corpus in a run: peak memory against one copy of the text and the
 * index, and how soon a tool that does not read the corpus answers.
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=loadavg \
 *     scripts/bench_big_corpus.ts [--documents 100000] [--questions 40] [--rounds 3] \
 *       [--root DIR] [--skip-run]
 *
 * It writes the synthetic corpus (scripts/synthetic_corpus.ts) as a JSON
 * file into a temporary folder, then measures, each in a fresh process under
 * GNU time (`/usr/bin/time`, peak RSS; Deno refuses `/proc/self` without
 * `--allow-all`), median of `--rounds`:
 *
 * 1. **The run**: `ragbench run --mock` of a config with an agent offered
 *    `calculator` (and `search`, which `agent_search` always has, so the run
 *    builds the default BM25 index) and `grep_agent` (`corpus_grep`,
 *    `read_document`, `list_documents`), every question making one call of
 *    each tool the system offers.
 * 2. **The same run on one thread** (the peer): the same command, config
 *    and flags in a process whose `Worker` is replaced by one that serves the
 *    built-ins on the main thread and hands messages over by reference (so
 *    nothing of the corpus is copied, and nothing is sandboxed: for measuring
 *    only). It holds one copy of the text and of each index, and all the
 *    rest a run holds. Target: run / this ≤ 1.2×.
 * 3. **One copy, bare**: a process that loads the same corpus with the same
 *    loader and builds, once, on its one thread, what the run builds — the
 *    default BM25 index and `corpus_grep`'s line store in the form it scans
 *    (`prepareGrep` of tools/corpus_grep_engine.ts) — and holds them to the
 *    end, without running anything: the floor, printed with its ratio.
 * 4. **The text alone**: a process that only loads the corpus (for scale).
 * 5. **First call**: in a fresh process as a run starts it — the sandbox
 *    worker started before the corpus loads (`startWorker`), then the
 *    built-ins' host made with `corpus_grep`, `read_document` and
 *    `list_documents` to prepare — a `calculator` call sent at once: the time
 *    from sending it to its reply, and from making the host to `corpus_grep`
 *    being ready. The peer is the same call, in a fresh process of its own
 *    (alternating with the first), on a host with nothing to prepare: both
 *    are the first call after the same load, so both meet the main thread's
 *    first major garbage collection after it. Target: the first
 *    `calculator` reply within 50 ms.
 *
 * `--root DIR` measures another checkout of ragbench (e.g. main, for a
 * before/after); the children import their modules from there.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { syntheticCorpus } from "./synthetic_corpus.ts";

const RATIO_TARGET = 1.2;
const FIRST_CALL_TARGET_MS = 50;

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Deno.args[i + 1];
}

const ROOT = join(flag("root", fileURLToPath(new URL("../", import.meta.url))), "/");
const documents = Number(flag("documents", "100000"));
const questions = Number(flag("questions", "40"));
const rounds = Number(flag("rounds", "3"));
const skipRun = Deno.args.includes("--skip-run");

const MOCK_SCRIPT = `"of the corpus list":
  - { call: calculator, args: { expression: "6 * 7" } }
  - { call: corpus_grep, args: { pattern: kalomine } }
  - { call: read_document, args: { doc_id: doc000042 } }
  - { call: list_documents, args: { limit: 5 } }
  - { call: search, args: { query: kalomine ruvo } }
  - { answer: "It is 42." }
`;

/** The children's code: each imports ragbench from ROOT and holds what it built until it exits. */
function childSource(): string {
  return `
const ROOT = ${JSON.stringify(ROOT)};
const [mode, corpusPath, prepared] = Deno.args;
const { loadCorpus } = await import(ROOT + "lib/data/corpus.ts");
if (mode === "first-call") {
  const { startWorker } = await import(ROOT + "tools/sandbox/early_worker.ts");
  const { createWorkerHost } = await import(ROOT + "tools/sandbox/worker_host.ts");
  const measure = async (prepare) => {
    const started = startWorker();
    const { corpus } = await loadCorpus(corpusPath);
    const t0 = performance.now();
    const host = createWorkerHost({ corpus, now: "2026-01-01", prepare }, { started });
    const ready = host.ready().then(() => performance.now() - t0);
    const sent = performance.now();
    const result = await host.call(
      { tool: "calculator", args: { expression: "6 * 7" }, options: {}, questionKey: "q", timeoutMs: 60000 },
      new AbortController().signal,
    );
    const reply = performance.now() - sent;
    if (result.error || !String(result.output).includes("42")) throw new Error("calculator failed: " + JSON.stringify(result));
    const readyMs = await ready;
    await host.close();
    return { reply, ready: readyMs };
  };
  const tools = prepared === "corpus-tools"
    ? ["calculator", "corpus_grep", "read_document", "list_documents"]
    : ["calculator"];
  console.log(JSON.stringify(await measure(tools)));
} else if (mode === "run-in-thread") {
  // The built-ins served on this thread: messages by reference, replies on the next turn.
  const { callServer, inOrder } = await import(ROOT + "tools/sandbox/serve_calls.ts");
  const { WORKER_TOOLS } = await import(ROOT + "tools/worker_registry.ts");
  let fromShared;
  try {
    fromShared = (await import(ROOT + "tools/sandbox/shared_corpus.ts")).corpusFromShared;
  } catch {
    // A checkout from before the shared corpus: its init message carries the corpus itself.
  }
  globalThis.Worker = class {
    onmessage = null;
    onerror = null;
    constructor() {
      const reply = (message) => setTimeout(() => this.onmessage?.({ data: message }), 0);
      this.handle = inOrder(callServer(WORKER_TOOLS, reply, fromShared));
      for (const def of WORKER_TOOLS.values()) def.load?.().catch(() => {});
    }
    postMessage(message) {
      setTimeout(() => this.handle(message), 0);
    }
    terminate() {}
  };
  const { main } = await import(ROOT + "main.ts");
  const io = { out: () => {}, progress: () => {}, signal: new AbortController().signal };
  const code = await main(Deno.args.slice(2), io);
  if (code !== 0) throw new Error("the run in one thread exited with " + code);
  console.log(JSON.stringify({ code }));
} else {
  const { corpus } = await loadCorpus(corpusPath);
  const kept = [corpus];
  if (mode === "one-copy") {
    const { retrieverFor } = await import(ROOT + "lib/retrieval/retriever.ts");
    kept.push(retrieverFor(corpus));
    const { prepareGrep } = await import(ROOT + "tools/corpus_grep_engine.ts");
    kept.push(await prepareGrep(corpus));
  }
  console.log(JSON.stringify({ documents: kept[0].documents.length }));
}
`;
}

interface Timed {
  peakMb: number;
  seconds: number;
  stdout: string;
}

/** Runs a command under GNU time; its peak RSS (MB) and wall time. */
async function underTime(args: string[], cwd: string): Promise<Timed> {
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%M %e", ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr).trim().split("\n");
  if (!out.success) throw new Error(`${args.join(" ")} failed:\n${stderr.join("\n")}`);
  const [kb, seconds] = stderr[stderr.length - 1].split(" ").map(Number);
  return { peakMb: kb / 1024, seconds, stdout: new TextDecoder().decode(out.stdout) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function loadAverage(): string {
  return Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
}

const work = await Deno.makeTempDir({ prefix: "ragbench_bench_big_corpus_" });
try {
  const corpus = syntheticCorpus({ documents });
  const corpusPath = join(work, "corpus.json");
  await Deno.writeTextFile(corpusPath, JSON.stringify(corpus.documents));
  const textMb = corpus.documents.reduce((n, d) => n + d.text.length, 0) / 1e6;
  const fileMb = (await Deno.stat(corpusPath)).size / 1e6;
  await Deno.writeTextFile(
    join(work, "questions.jsonl"),
    Array.from({ length: questions }, (_, i) =>
      JSON.stringify({
        id: `q${i}`,
        question: `What is item ${i} of the corpus list?`,
        checks: [{ type: "contains", value: "42" }],
      })).join("\n") + "\n",
  );
  await Deno.writeTextFile(join(work, "mock.yaml"), MOCK_SCRIPT);
  await Deno.writeTextFile(
    join(work, "config.yaml"),
    `name: big_corpus
corpus: corpus.json
questions: questions.jsonl
mock_script: mock.yaml
tools: {timeout_s: 120}
systems:
  - {type: agent_search, name: calculator_agent, tools: [calculator]}
  - {type: grep_agent, name: grep_agent}
`,
  );
  const child = join(work, "child.js");
  await Deno.writeTextFile(child, childSource());
  const deno = Deno.execPath();
  const childArgs = (mode: string, ...rest: string[]) => [
    deno,
    "run",
    "--unstable-worker-options",
    "--unstable-raw-imports",
    `--allow-read=${ROOT},${work}`,
    `--config=${join(ROOT, "deno.json")}`,
    child,
    mode,
    corpusPath,
    ...rest,
  ];
  console.log(
    `# a big corpus in a run: ${documents} synthetic documents, ${textMb.toFixed(1)} MB of text ` +
      `(${fileMb.toFixed(1)} MB JSON); ragbench at ${ROOT}; median of ${rounds} fresh processes; ` +
      `load average ${loadAverage()}`,
  );
  const peaks = {
    run: [] as number[],
    inThread: [] as number[],
    oneCopy: [] as number[],
    text: [] as number[],
  };
  const runArgs = (out: string) => [
    "run",
    join(work, "config.yaml"),
    "--mock",
    "--quiet",
    "--out",
    join(work, out),
  ];
  const runSeconds: number[] = [];
  const calculatorCalls: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (!skipRun) {
      const run = await underTime([
        deno,
        "run",
        "--unstable-worker-options",
        "--unstable-raw-imports",
        `--allow-read=${ROOT},${work}`,
        `--allow-write=${work}`,
        join(ROOT, "main.ts"),
        ...runArgs(`run-${round}`),
      ], work);
      peaks.run.push(run.peakMb);
      runSeconds.push(run.seconds);
      calculatorCalls.push(...await checkRun(join(work, `run-${round}`)));
      const inThread = await underTime([
        deno,
        "run",
        "--unstable-worker-options",
        "--unstable-raw-imports",
        `--allow-read=${ROOT},${work}`,
        `--allow-write=${work}`,
        `--config=${join(ROOT, "deno.json")}`,
        child,
        "run-in-thread",
        corpusPath,
        ...runArgs(`in-thread-${round}`),
      ], work);
      peaks.inThread.push(inThread.peakMb);
      await checkRun(join(work, `in-thread-${round}`));
    }
    peaks.oneCopy.push((await underTime(childArgs("one-copy"), work)).peakMb);
    peaks.text.push((await underTime(childArgs("text"), work)).peakMb);
  }
  const what = "the BM25 index and the line store";
  console.log("process | peak RSS MB (median) | all rounds");
  const show = (name: string, values: number[]) =>
    console.log(
      `${name} | ${median(values).toFixed(0)} | ${values.map((v) => v.toFixed(0)).join(", ")}`,
    );
  if (!skipRun) {
    show(`ragbench run --mock (${median(runSeconds).toFixed(1)} s)`, peaks.run);
    show("the same run, built-ins on the main thread (peer)", peaks.inThread);
  }
  show(`one copy, bare: the corpus loaded, ${what} built once`, peaks.oneCopy);
  show("the corpus loaded, nothing built", peaks.text);
  if (!skipRun) {
    const ratio = median(peaks.run) / median(peaks.inThread);
    const bare = median(peaks.run) / median(peaks.oneCopy);
    console.log(
      `target: run / the same run on one thread = ${ratio.toFixed(2)}× (≤ ${RATIO_TARGET}×: ${
        ratio <= RATIO_TARGET ? "PASS" : "FAIL"
      }); run / one copy, bare = ${bare.toFixed(2)}× (${
        bare <= RATIO_TARGET ? "within" : "over"
      } ${RATIO_TARGET}×)`,
    );
  }

  if (!skipRun) {
    console.log(
      `calculator calls in the runs: ${calculatorCalls.length}, latency median ${
        median(calculatorCalls).toFixed(1)
      } ms, slowest ${Math.max(...calculatorCalls).toFixed(1)} ms`,
    );
  }
  const replies: number[] = [];
  const readies: number[] = [];
  const alone: number[] = [];
  const firstCall = async (prepared: string) => {
    const out = await underTime(childArgs("first-call", prepared), work);
    return JSON.parse(out.stdout.trim().split("\n").pop()!);
  };
  for (let round = 0; round < rounds; round++) {
    const measured = await firstCall("corpus-tools");
    replies.push(measured.reply);
    readies.push(measured.ready);
    alone.push((await firstCall("nothing")).reply);
  }
  const reply = median(replies);
  console.log(
    `first calculator call, corpus tools preparing: ${reply.toFixed(1)} ms (rounds ${
      replies.map((r) => r.toFixed(1)).join(", ")
    }); corpus_grep ready after ${median(readies).toFixed(0)} ms; the same call with nothing ` +
      `to prepare (peer, fresh processes): ${median(alone).toFixed(1)} ms (rounds ${
        alone.map((r) => r.toFixed(1)).join(", ")
      }); ratio ${(reply / median(alone)).toFixed(2)}×`,
  );
  console.log(
    `target: first calculator reply ≤ ${FIRST_CALL_TARGET_MS} ms: ${
      reply <= FIRST_CALL_TARGET_MS ? "PASS" : "FAIL"
    } (load average ${loadAverage()})`,
  );
} finally {
  await Deno.remove(work, { recursive: true });
}

/** Checks that no tool call of the run errored; returns the latencies of its calculator calls. */
async function checkRun(dir: string): Promise<number[]> {
  const text = await Deno.readTextFile(join(dir, "per_question_results.jsonl"));
  const calculator: number[] = [];
  for (const line of text.trim().split("\n")) {
    const result = JSON.parse(line);
    for (const step of result.steps ?? []) {
      if (step.type !== "tool") continue;
      if (step.result?.error) {
        throw new Error(`a tool call errored in the run: ${JSON.stringify(step.result.error)}`);
      }
      if (step.tool === "calculator") calculator.push(step.result.latency_ms);
    }
  }
  return calculator;
}
