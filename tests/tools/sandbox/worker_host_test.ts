import assert from "node:assert/strict";
import { createWorkerHost } from "../../../tools/sandbox/worker_host.ts";
import type { Toolbox } from "../../../tools/toolbox.ts";
import { corpusOf, toolboxOver } from "../../support/tool_context.ts";

const CORPUS = corpusOf([{ id: "a", text: "The harbor opened in 1901.\nIt has two piers." }]);
const PROBES = new URL("../../fixtures/tools/probe_worker.ts", import.meta.url);

const signal = new AbortController().signal;

Deno.test("worker host: built-ins answer from the worker with the corpus it was given", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" });
  try {
    const session = toolboxOver(host, ["calculator", "corpus_grep", "date_calc"]).session("q");
    const calc = await session.execute("calculator", '{"expression": "0.1 + 0.2"}', signal);
    assert.equal(calc.result.output, "0.3");
    const grep = await session.execute("corpus_grep", '{"pattern": "piers"}', signal);
    assert.match(grep.result.output, /a:2: It has two piers\./);
    const date = await session.execute("date_calc", '{"operation": "today"}', signal);
    assert.match(date.result.output, /2026-01-01/);
  } finally {
    await host.close();
  }
});

Deno.test("worker host: a regex grep runs in the permission-less worker, which loads the engine on first use", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" });
  try {
    const session = toolboxOver(host, ["corpus_grep"]).session("q");
    const grep = await session.execute(
      "corpus_grep",
      '{"pattern": "opened in [0-9]{4}", "regex": true}',
      signal,
    );
    assert.equal(grep.result.error, null, JSON.stringify(grep.result));
    assert.match(grep.result.output, /a:1: The harbor opened in 1901\./);
  } finally {
    await host.close();
  }
});

Deno.test("worker host: a tool in the worker has no read, net or env permission", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" }, { workerUrl: PROBES });
  try {
    const session = toolboxOver(host, ["read_file", "fetch_url", "read_env"]).session("q");
    for (
      const [tool, args] of [
        ["read_file", { path: "/etc/hostname" }],
        ["fetch_url", { url: "http://127.0.0.1:8/" }],
        ["read_env", {}],
      ] as const
    ) {
      const { result } = await session.execute(tool, JSON.stringify(args), signal);
      assert.equal(result.error?.kind, "permission", `${tool}: ${JSON.stringify(result)}`);
      assert.match(result.error!.detail!, /NotCapable: Requires (read|net|env) access/);
    }
  } finally {
    await host.close();
  }
});

Deno.test("worker host: state is per question, and forgotten when the question ends", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" }, { workerUrl: PROBES });
  try {
    const box = toolboxOver(host, ["shout"]);
    const a = box.session("a");
    const b = box.session("b");
    const calls = async (s: typeof a) =>
      ((await s.execute("shout", '{"text": "x"}', signal)).result.data as { calls: number }).calls;
    assert.deepEqual([await calls(a), await calls(a), await calls(b)], [1, 2, 1]);
    a.close();
    const again = box.session("a");
    assert.equal(await calls(again), 1);
  } finally {
    await host.close();
  }
});

Deno.test("worker host: an ended question costs the worker no message of its own; its state goes with the next call", async () => {
  const COUNTING = new URL("../../fixtures/tools/counting_worker.ts", import.meta.url);
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" }, { workerUrl: COUNTING });
  try {
    const box = toolboxOver(host, ["shout", "messages"]);
    const calls = async (s: ReturnType<Toolbox["session"]>) =>
      ((await s.execute("shout", '{"text": "x"}', signal)).result.data as { calls: number }).calls;
    for (const key of ["a", "b", "c"]) {
      const session = box.session(key);
      assert.equal(await calls(session), 1);
      assert.equal(await calls(session), 2);
      session.close();
    }
    // The three ended questions ride on this call; their state is gone before a reused key runs.
    const again = box.session("a");
    assert.equal(await calls(again), 1);
    const counted = (await again.execute("messages", "{}", signal)).result.data;
    assert.deepEqual(counted, { init: 1, call: 8 });
  } finally {
    await host.close();
  }
});

Deno.test("worker host: search is not served in the worker (runs serve it in the main process)", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" });
  try {
    const session = toolboxOver(host, ["search"]).session("q");
    const { result } = await session.execute("search", '{"query": "harbor"}', signal);
    assert.equal(result.error?.kind, "unknown_tool");
    assert.equal(result.error?.message, 'No tool named "search".');
  } finally {
    await host.close();
  }
});

Deno.test("worker host: a call past its timeout returns a timeout error, and the next call works", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" }, { workerUrl: PROBES });
  try {
    const session = toolboxOver(host, ["hang", "shout"], 200).session("q");
    // The tool never returns: only its 0.2 s limit can end the call.
    const { result } = await session.execute("hang", "{}", signal);
    assert.equal(result.error?.kind, "timeout");
    assert.equal(
      result.error?.message,
      "The tool did not finish within 0.2 s and was stopped. Try simpler arguments.",
    );
    // The next call goes to a new worker, which must start first: a session with a generous limit,
    // so a loaded machine's slow start is not taken for a second timeout.
    const next = await toolboxOver(host, ["shout"], 30_000).session("q").execute(
      "shout",
      '{"text": "ok"}',
      signal,
    );
    assert.equal(next.result.error, null, JSON.stringify(next.result));
    assert.equal(next.result.output, "OK");
  } finally {
    await host.close();
  }
});

Deno.test("worker host: calls queued behind a timed-out call are run by the new worker, not failed", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" }, { workerUrl: PROBES });
  try {
    const stuck = toolboxOver(host, ["hang"], 200).session("a");
    const patient = toolboxOver(host, ["shout"], 30_000).session("b");
    const hung = stuck.execute("hang", "{}", signal);
    const queued = patient.execute("shout", '{"text": "still here"}', signal);
    assert.equal((await hung).result.error?.kind, "timeout");
    const { result } = await queued;
    assert.equal(result.error, null, JSON.stringify(result));
    assert.equal(result.output, "STILL HERE");
  } finally {
    await host.close();
  }
});

Deno.test("worker host: a queued call that is abandoned is skipped, and the worker is kept", async () => {
  const host = createWorkerHost({ corpus: CORPUS, now: "2026-01-01" }, { workerUrl: PROBES });
  try {
    const box = toolboxOver(host, ["shout", "nap"], 30_000);
    const q = box.session("q");
    const calls = async () =>
      ((await q.execute("shout", '{"text": "x"}', signal)).result.data as { calls: number }).calls;
    assert.equal(await calls(), 1);
    const napping = box.session("other").execute("nap", '{"ms": 150}', signal);
    const controller = new AbortController();
    const abandoned = q.execute("shout", '{"text": "y"}', controller.signal);
    controller.abort();
    assert.equal((await abandoned).result.error?.kind, "timeout");
    assert.equal((await napping).result.output, "rested");
    // The same worker (the question's state is kept), and the abandoned call never ran.
    assert.equal(await calls(), 2);
  } finally {
    await host.close();
  }
});

Deno.test("worker host: ready() builds the prepared tools' indexes before any call", async () => {
  const host = createWorkerHost({
    corpus: CORPUS,
    now: "2026-01-01",
    prepare: ["corpus_grep", "read_document"],
  });
  try {
    await host.ready();
    const session = toolboxOver(host, ["corpus_grep"]).session("q");
    const { result } = await session.execute("corpus_grep", '{"pattern": "harbor"}', signal);
    assert.match(result.output, /a:1: The harbor opened in 1901\./);
  } finally {
    await host.close();
  }
});

Deno.test('worker host: a "__proto__" key in model JSON reaches the tool in the worker', async () => {
  const corpus = corpusOf([{ id: "a", text: "x" }], [{
    source: "t.csv",
    title: "t",
    columns: ["name"],
    rows: [{ name: "one" }, { name: "two" }],
  }]);
  const host = createWorkerHost({ corpus, now: "2026-01-01" });
  try {
    const session = toolboxOver(host, ["lookup_table"]).session("q");
    const call = await session.execute("lookup_table", '{"where": {"__proto__": "x"}}', signal);
    assert.equal(call.result.error?.kind, "invalid_args");
    assert.match(call.result.error!.message, /no table has a column "__proto__"/);
  } finally {
    await host.close();
  }
});
