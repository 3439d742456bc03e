import assert from "node:assert/strict";
import { RagbenchError } from "../../../../lib/errors.ts";
import { CHUNK_LINES, LineEmbedder } from "../../../../lib/report/html/question_data.ts";
import { StreamedEmbedder } from "../../../../lib/report/html/streamed_data.ts";
import { readResultLines, readRun } from "../../../../lib/report/read_run.ts";
import type { QuestionResult, Step } from "../../../../lib/types.ts";
import { resultLine } from "../../../support/result_line.ts";
import { tempTree } from "../../../support/temp.ts";

/** A model step whose reply and tool call are `chars` characters each. */
function bigStep(i: number, chars: number): Step {
  return {
    type: "model",
    usage: { input_tokens: 1, output_tokens: 1 },
    cost_usd: 0,
    latency_ms: 1,
    content: `${i} ${"reply ".repeat(chars / 6)}`,
    tool_calls: [{ id: `c${i}`, name: "search", arguments: `{"q":"${"w".repeat(chars)}"}` }],
    final: false,
  };
}

function line(system: string, q: number, overrides: Partial<QuestionResult> = {}) {
  return resultLine({
    system,
    question_id: `q${q}`,
    question: `Question ${q}? </script><!--`,
    answer: `answer ${q}`,
    retrieval: {
      retrieved: q % 3 !== 0,
      relevant: 1,
      recall: 1,
      mrr: 1,
      metrics: q % 3 === 0 ? null : { "ndcg@10": q / 7 },
      ranking: [],
      scores: [],
    },
    ...overrides,
  });
}

/** The data {@link LineEmbedder} gives `lines` kept and replaced as the reader keeps them. */
function inMemory(
  systems: string[],
  lines: QuestionResult[],
  keep: (l: QuestionResult) => boolean,
): LineEmbedder {
  const embedder = new LineEmbedder(systems, { ndcg: "ndcg@10" });
  const at = new Map<string, number>();
  for (const l of lines) {
    if (!keep(l)) continue;
    const key = `${l.system} ${l.question_id} ${l.repeat}`;
    const earlier = at.get(key);
    if (earlier === undefined) at.set(key, embedder.add(l));
    else embedder.replace(earlier, l);
  }
  return embedder;
}

Deno.test("streamed data: piece for piece the in-memory data, with repeats, blank and skipped lines", async () => {
  const lines: QuestionResult[] = [];
  for (let q = 0; q < CHUNK_LINES + 300; q++) {
    lines.push(line(q % 2 ? "b" : "a", q, q % 50 === 0 ? { steps: [bigStep(q, 30)] } : {}));
  }
  // A later result for an early job (every place after it waits for it), one for the last,
  // a system the run does not know, a line the caller does not keep.
  lines.push(line("a", 4, { answer: "replaced early" }));
  lines.push(line("b", CHUNK_LINES + 299, { answer: "replaced last" }));
  lines.push(line("c", 1));
  lines.push(line("a", 10, { repeat: 2, answer: "not kept" }));
  const keep = (l: QuestionResult) => l.repeat === 1;
  const text = lines.map((l) => JSON.stringify(l)).join("\n").replace("\n", "\n\n") + "\n";
  await using t = await tempTree({ "r.jsonl": text });
  const path = t.path("r.jsonl");
  const streamed = new StreamedEmbedder(path, ["b", "a"], { ndcg: "ndcg@10" });
  const read = readResultLines(path, { embedded: streamed, keep });
  assert.equal(read.duplicates, 2);
  const expected = inMemory(["b", "a"], lines, keep);
  assert.equal(streamed.size, expected.size);
  assert.equal(streamed.ndcg, "ndcg@10");
  const pieces = [...streamed.chunks()];
  assert.deepEqual(pieces, [...expected.chunks()]);
  const data = JSON.parse(pieces.join(""));
  assert.equal(data.lines[4].answer, "replaced early");
  assert.equal(data.lines.at(-2).answer, "replaced last");
  assert.deepEqual(data.systems, ["b", "a", "c"]);
  // Read again, the same pieces.
  assert.deepEqual([...streamed.chunks()], pieces);
});

Deno.test("streamed data: a results file that changed after the first pass is refused, saying what to do", async () => {
  const body = [line("a", 1), line("a", 2)].map((l) => JSON.stringify(l) + "\n").join("");
  await using t = await tempTree({ "run/per_question_results.jsonl": body });
  const path = t.path("run/per_question_results.jsonl");
  const streamed = new StreamedEmbedder(path, ["a"]);
  readResultLines(path, { embedded: streamed });
  await Deno.writeTextFile(path, JSON.stringify(line("a", 3)) + "\n", { append: true });
  const error = (() => {
    try {
      [...streamed.chunks()];
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof RagbenchError);
  assert.equal(error.code, "io");
  assert.match(error.message, /per_question_results\.jsonl" changed while the report was being/);
  assert.match(error.message, new RegExp(`ragbench report ${t.path("run")}$`));
  // Gone: a message naming the file.
  await Deno.remove(path);
  assert.throws(() => [...streamed.chunks()], /Cannot read ".*per_question_results\.jsonl"/);
});

Deno.test("readRun keeps no per-question data: the heap after reading big lines stays near the compact copies", async () => {
  // 500 lines of 40 steps of ~400-character replies and calls: the in-memory data held
  // ~16 MB of their trimmed text (up to FULL_DETAIL_CHARS), the compact copies far less.
  const lines: string[] = [];
  for (let q = 0; q < 500; q++) {
    const steps = Array.from({ length: 40 }, (_, i) => bigStep(q * 40 + i, 396));
    lines.push(JSON.stringify(line("a", q, { answer: `${q} ${"x".repeat(900)}`, steps })));
  }
  await using t = await tempTree({ "run/per_question_results.jsonl": lines.join("\n") + "\n" });
  const readRunUrl = new URL("../../../../lib/report/read_run.ts", import.meta.url).href;
  const code = `
    import { readRun } from ${JSON.stringify(readRunUrl)};
    gc(); gc();
    const before = Deno.memoryUsage().heapUsed;
    const run = await readRun(${JSON.stringify(t.path("run"))});
    gc(); gc();
    const after = Deno.memoryUsage().heapUsed;
    console.log(JSON.stringify({ lines: run.lines.length, mb: (after - before) / 2 ** 20 }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr).slice(0, 2_000));
  const { lines: read, mb } = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(read, 500);
  assert.ok(mb < 6, `the read run holds ${mb.toFixed(1)} MB more heap`);
});

Deno.test("readRun: held data (ragbench report's one pass) and streamed data (the default) give the same page data", async () => {
  const lines = [line("a", 1), line("b", 1), line("a", 2), line("a", 1, { answer: "again" })];
  await using t = await tempTree({
    "run/per_question_results.jsonl": lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
  });
  const held = await readRun(t.path("run"), { embed: "held" });
  const streamed = await readRun(t.path("run"));
  assert.ok(held.embedded instanceof LineEmbedder);
  assert.ok(streamed.embedded instanceof StreamedEmbedder);
  const heldText = [...held.embedded.chunks()].join("");
  assert.equal(heldText, [...streamed.embedded.chunks()].join(""));
  assert.match(heldText, /again/);
  assert.equal(held.duplicates, 1);
});
