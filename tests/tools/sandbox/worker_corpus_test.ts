import assert from "node:assert/strict";
import type { ToolHost } from "../../../tools/host.ts";
import { createWorkerHost } from "../../../tools/sandbox/worker_host.ts";
import { shareCorpus } from "../../../tools/sandbox/shared_corpus.ts";
import { corpusOf, toolboxOver } from "../../support/tool_context.ts";
import { syntheticCorpus } from "../../../scripts/synthetic_corpus.ts";

const signal = new AbortController().signal;

function session(host: ToolHost, names: string[], timeoutMs = 60_000) {
  return toolboxOver(host, names, timeoutMs).session("q");
}

/** Runs `body` with every message a Worker is posted recorded. */
async function recordingPosts(body: (posted: unknown[]) => Promise<void>): Promise<void> {
  const posted: unknown[] = [];
  const original = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
    posted.push(message);
    return (original as (...args: unknown[]) => void).call(this, message, ...rest);
  };
  try {
    await body(posted);
  } finally {
    Worker.prototype.postMessage = original;
  }
}

/** Every string reachable from `value` (through objects, arrays and maps). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (value instanceof Map) { for (const v of value.values()) strings(v, out); }
  else if (ArrayBuffer.isView(value)) return out;
  else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) strings(v, out);
  }
  return out;
}

Deno.test("worker corpus: the calculator's first reply comes before corpus_grep's index is ready", async () => {
  // Enough text that the index takes many slices to build.
  const corpus = syntheticCorpus({ documents: 3000 });
  const host = createWorkerHost({
    corpus,
    now: "2026-01-01",
    prepare: ["calculator", "corpus_grep", "read_document"],
  });
  const events: string[] = [];
  try {
    const grepReady = host.ready(["corpus_grep"]).then(() => events.push("corpus_grep ready"));
    const calcReady = host.ready(["calculator"]).then(() => events.push("calculator ready"));
    const tools = session(host, ["calculator", "corpus_grep"]);
    const calc = tools.execute("calculator", '{"expression": "6 * 7"}', signal).then((r) => {
      events.push("calculator reply");
      return r;
    });
    assert.equal((await calc).result.output, "42");
    await Promise.all([grepReady, calcReady]);
    assert.deepEqual(events, ["calculator ready", "calculator reply", "corpus_grep ready"]);
    const grep = await tools.execute("corpus_grep", '{"pattern": "Document"}', signal);
    assert.equal(grep.result.error, null, JSON.stringify(grep.result));
  } finally {
    await host.close();
  }
});

Deno.test("worker corpus: a corpus_grep call made before its index is ready waits for it and is answered", async () => {
  const corpus = corpusOf([{ id: "a", text: "The harbor opened in 1901.\nIt has two piers." }]);
  const host = createWorkerHost({ corpus, now: "2026-01-01", prepare: ["corpus_grep"] });
  try {
    const tools = session(host, ["corpus_grep", "read_document", "list_documents"]);
    const [grep, read, list] = await Promise.all([
      tools.execute("corpus_grep", '{"pattern": "piers"}', signal),
      tools.execute("read_document", '{"doc_id": "a"}', signal),
      tools.execute("list_documents", "{}", signal),
    ]);
    assert.match(grep.result.output, /a:2: It has two piers\./);
    assert.match(read.result.output, /The harbor opened in 1901\.\nIt has two piers\./);
    assert.match(list.result.output, /a \| a \| 44 chars/);
  } finally {
    await host.close();
  }
});

Deno.test("worker corpus: the documents' text reaches the worker as shared memory, never as strings", async () => {
  const text = "A line only the worker's tools should read: zephyrine.\nSecond line.";
  const corpus = corpusOf([{ id: "a", text }, { id: "b", text: "another document" }]);
  await recordingPosts(async (posted) => {
    const host = createWorkerHost({
      corpus,
      now: "2026-01-01",
      prepare: ["corpus_grep", "read_document"],
    });
    try {
      const tools = session(host, ["corpus_grep", "read_document"]);
      const grep = await tools.execute("corpus_grep", '{"pattern": "zephyrine"}', signal);
      assert.match(grep.result.output, /a:1: A line only/);
      const read = await tools.execute("read_document", '{"doc_id": "a"}', signal);
      assert.ok(read.result.output.includes(text));
    } finally {
      await host.close();
    }
    // What the worker was given to work with (calls carry only the model's arguments).
    const sent = posted.filter((m) => (m as { type: string }).type !== "call").flatMap((m) =>
      strings(m)
    );
    assert.ok(sent.includes("ab"), "the ids travel as one packed string");
    assert.deepEqual(sent.filter((s) => s.includes("zephyrine") || s.includes("another")), []);
    const corpusMessage = posted.find((m) => (m as { type: string }).type === "corpus") as {
      corpus: { text: { segments: { memory: WebAssembly.Memory }[] } };
    };
    for (const segment of corpusMessage.corpus.text.segments) {
      assert.ok(segment.memory.buffer instanceof SharedArrayBuffer);
    }
  });
});

Deno.test("worker corpus: a host with no corpus tool never writes the shared text", async () => {
  const corpus = corpusOf([{ id: "a", text: "x" }]);
  let shared = 0;
  const host = createWorkerHost({ corpus, now: "2026-01-01", prepare: ["calculator"] }, {
    share: (c, s) => {
      shared++;
      return shareCorpus(c, { signal: s });
    },
  });
  try {
    await host.ready();
    const calc = await session(host, ["calculator", "date_calc"]).execute(
      "calculator",
      '{"expression": "1 + 1"}',
      signal,
    );
    assert.equal(calc.result.output, "2");
    assert.equal(shared, 0);
  } finally {
    await host.close();
  }
});

Deno.test("worker corpus: a worker replaced after a timeout gets the same shared text and rebuilds its index", async () => {
  const corpus = corpusOf([{ id: "a", text: "The harbor opened in 1901.\nIt has two piers." }]);
  let shared = 0;
  const host = createWorkerHost({ corpus, now: "2026-01-01", prepare: ["corpus_grep"] }, {
    workerUrl: new URL("../../fixtures/tools/builtins_with_hang_worker.ts", import.meta.url),
    share: (c, s) => {
      shared++;
      return shareCorpus(c, { signal: s });
    },
  });
  try {
    await host.ready();
    const hung = await session(host, ["hang"], 200).execute("hang", "{}", signal);
    assert.equal(hung.result.error?.kind, "timeout");
    const grep = await session(host, ["corpus_grep"]).execute(
      "corpus_grep",
      '{"pattern": "piers"}',
      signal,
    );
    assert.match(grep.result.output, /a:2: It has two piers\./);
    assert.equal(shared, 1, "the text is written once for both workers");
  } finally {
    await host.close();
  }
});

Deno.test("worker corpus: when the text cannot be shared, corpus tools say so and the calculator still works", async () => {
  const corpus = corpusOf([{ id: "a", text: "x" }]);
  const host = createWorkerHost({
    corpus,
    now: "2026-01-01",
    prepare: ["calculator", "corpus_grep"],
  }, { share: () => Promise.reject(new RangeError("5000000000 bytes do not fit")) });
  try {
    await assert.rejects(host.ready(["corpus_grep"]), {
      name: "RagbenchError",
      message: "The corpus could not be handed to the tool sandbox: 5000000000 bytes do not fit",
    });
    await host.ready(["calculator"]);
    const tools = session(host, ["calculator", "corpus_grep"]);
    const grep = await tools.execute("corpus_grep", '{"pattern": "x"}', signal);
    assert.equal(grep.result.error?.kind, "unavailable");
    assert.equal(grep.result.error?.message, "The tool could not get the corpus.");
    const calc = await tools.execute("calculator", '{"expression": "2 * 3"}', signal);
    assert.equal(calc.result.output, "6");
  } finally {
    await host.close();
  }
});

Deno.test("worker corpus: the text is written only once the worker has answered init, after a calculator call made at once", async () => {
  const corpus = corpusOf([{ id: "a", text: "The harbor opened in 1901." }]);
  await recordingPosts(async (posted) => {
    const host = createWorkerHost({
      corpus,
      now: "2026-01-01",
      prepare: ["calculator", "corpus_grep"],
    }, {
      share: (c, s) => {
        posted.push({ type: "(share started)" });
        return shareCorpus(c, { signal: s });
      },
    });
    try {
      // As a run does: the worker is asked to get ready, then a question's first call comes.
      const ready = host.ready();
      const tools = session(host, ["calculator", "corpus_grep"]);
      const calc = await tools.execute("calculator", '{"expression": "6 * 7"}', signal);
      assert.equal(calc.result.output, "42");
      await ready;
      const grep = await tools.execute("corpus_grep", '{"pattern": "harbor"}', signal);
      assert.match(grep.result.output, /a:1: The harbor opened/);
    } finally {
      await host.close();
    }
    const order = posted.map((m) => (m as { type: string }).type);
    assert.deepEqual(order.slice(0, 4), ["init", "call", "(share started)", "corpus"]);
  });
});

Deno.test("worker corpus: no text is written while a call is in flight to the worker, and the writing goes on between calls", async () => {
  // Each time the writer reads a document's text is recorded (consecutive reads as one event).
  const events: string[] = [];
  const note = (event: string) => {
    if (events[events.length - 1] !== event) events.push(event);
  };
  const documents = syntheticCorpus({ documents: 3000 }).documents.map((d) => ({
    id: d.id,
    title: d.title,
    source: d.source,
    get text() {
      note("text written");
      return d.text;
    },
  }));
  const host = createWorkerHost({
    corpus: { documents, tables: [] },
    now: "2026-01-01",
    prepare: ["corpus_grep"],
  }, {
    workerUrl: new URL("../../fixtures/tools/builtins_with_hang_worker.ts", import.meta.url),
    // Slices of 32 documents (the least a slice writes), so the writing takes about 90 of them.
    share: (c, s, idle) => shareCorpus(c, { signal: s, sliceMs: 0, idle }),
  });
  try {
    const ready = host.ready();
    const tools = session(host, ["nap", "corpus_grep"]);
    // As a run does: the worker is asked to get ready, then a question's first calls come.
    for (let i = 0; i < 2; i++) {
      const nap = await tools.execute("nap", '{"ms": 150}', signal);
      assert.equal(nap.result.output, "rested");
      note("nap answered");
    }
    await ready;
    const grep = await tools.execute("corpus_grep", '{"pattern": "Document"}', signal);
    assert.equal(grep.result.error, null, JSON.stringify(grep.result));
    // The first call is answered before any text is written; one slice at least runs while
    // the second is in flight (it was sent before that slice), then none until it is answered.
    assert.deepEqual(events.slice(0, 4), [
      "nap answered",
      "text written",
      "nap answered",
      "text written",
    ]);
  } finally {
    await host.close();
  }
});
