import assert from "node:assert/strict";
import { RagbenchError } from "../../../lib/errors.ts";
import { startWorker } from "../../../tools/sandbox/early_worker.ts";
import { createWorkerHost } from "../../../tools/sandbox/worker_host.ts";
import { createToolbox } from "../../../tools/toolbox.ts";
import { corpusOf } from "../../support/tool_context.ts";

const CORPUS = corpusOf([{ id: "a", text: "The harbor opened in 1901." }]);
const BROKEN = new URL("../../fixtures/tools/broken_worker.ts", import.meta.url);
const signal = new AbortController().signal;

/** Runs `body` with every `new Worker` recorded (still a real worker). */
async function recordingWorkers(body: (made: Worker[]) => Promise<void>): Promise<void> {
  const made: Worker[] = [];
  const original = globalThis.Worker;
  globalThis.Worker = class extends original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      made.push(this);
    }
  };
  try {
    await body(made);
  } finally {
    globalThis.Worker = original;
  }
}

function grepSession(host: ReturnType<typeof createWorkerHost>) {
  return createToolbox([{
    name: "corpus_grep",
    description: "grep",
    sideEffects: "none",
    parameters: {},
    options: { max_results: 50 },
    timeoutMs: 5000,
    host,
  }], { max_output_chars: 4000 }).session("q");
}

Deno.test("early worker: a host given a started worker runs its calls there and starts none of its own", async () => {
  await recordingWorkers(async (made) => {
    const started = startWorker();
    assert.equal(made.length, 1);
    const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01", prepare: ["corpus_grep"] }, {
      started,
    });
    try {
      await host.ready();
      const { result } = await grepSession(host).execute(
        "corpus_grep",
        '{"pattern": "harbor"}',
        signal,
      );
      assert.match(result.output, /a:1: The harbor opened in 1901\./);
      assert.equal(made.length, 1);
    } finally {
      await host.close();
    }
  });
});

Deno.test("early worker: one that failed to load before its host took it over is reported as the host's start-up failure", async () => {
  await recordingWorkers(async (made) => {
    const started = startWorker(BROKEN);
    // Wait until the failure has reached this thread, before any host exists.
    await new Promise((resolve) => made[0].addEventListener("error", resolve, { once: true }));
    const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01", prepare: ["corpus_grep"] }, {
      started,
      workerUrl: BROKEN,
    });
    try {
      const failure = await host.ready().then(() => null, (error) => error);
      assert.ok(failure instanceof RagbenchError && failure.code === "permission");
      assert.match(
        failure.message,
        /^The tool sandbox \(a worker\) could not start: .*this worker is broken on purpose.*\. Grant read access to ragbench's own tools\/ and lib\/ folders/,
      );
    } finally {
      await host.close();
    }
  });
});

Deno.test("early worker: disposed of without a host, it is terminated; adopted, the host owns it", async () => {
  await recordingWorkers(async (made) => {
    {
      using _unused = startWorker();
    }
    const started = startWorker();
    const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" }, { started });
    try {
      const { result } = await grepSession(host).execute(
        "corpus_grep",
        '{"pattern": "harbor"}',
        signal,
      );
      assert.equal(result.error, null, JSON.stringify(result));
      // Disposing of it after the host took it over leaves the host's worker running.
      started[Symbol.dispose]();
      const again = await grepSession(host).execute("corpus_grep", '{"pattern": "1901"}', signal);
      assert.equal(again.result.error, null, JSON.stringify(again.result));
      assert.equal(made.length, 2);
      assert.throws(() => started.adopt(), /adopted once/);
    } finally {
      await host.close();
    }
  });
});
