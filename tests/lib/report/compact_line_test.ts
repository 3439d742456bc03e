import assert from "node:assert/strict";
import { LineCompactor } from "../../../lib/report/compact_line.ts";
import { summarize } from "../../../lib/report/outputs.ts";
import { trecRunText } from "../../../lib/report/trec_run.ts";
import { replayMisses } from "../../../lib/cli/run_cache.ts";
import { analyseRun } from "../../../lib/report/run_report.ts";
import type { QuestionResult, Step } from "../../../lib/types.ts";
import { resultLine } from "../../support/result_line.ts";

const METRICS = { "ndcg@10": 0.5, "recall@10": 1, map: 0.25 };

/** Lines with every part a summary reads: retries, tool errors, cuts, tags, labels, rankings. */
function lines(): QuestionResult[] {
  const out: QuestionResult[] = [];
  for (const system of ["agent", "rag"]) {
    for (let q = 0; q < 6; q++) {
      const steps: Step[] = [
        {
          type: "model",
          usage: { input_tokens: 100 + q, output_tokens: 7 },
          cost_usd: 0.001,
          latency_ms: 12.5,
          content: "thinking ".repeat(50),
          tool_calls: [{ id: "c1", name: "search", arguments: '{"query":"x"}' }],
          final: false,
          ...(q % 2 ? { retries: 2, http_statuses: [429, 503], backoff_ms: 1500 + q } : {}),
        },
        {
          type: "tool",
          tool: q === 3 ? "calculator" : "search",
          call_id: "c1",
          args: { query: "tower" },
          result: {
            output: "hit ".repeat(300),
            data: { results: [{ doc_id: "d1" }] },
            error: q === 2 ? { kind: "timeout", message: "took too long" } : null,
            truncated: q === 4,
            cost_usd: q === 5 ? null : 0.0001,
            latency_ms: 3 + q,
          },
        },
        {
          type: "retrieval",
          retriever: "bm25",
          query: "tower height",
          k: 5,
          results: [{ passage_id: "d1#0", doc_id: "d1", score: 2.5 }],
          latency_ms: 1.25,
          embedding_tokens: 0,
          cost_usd: 0,
          error: q === 1 ? { kind: "retrieval", message: "embedding endpoint down" } : null,
          ...(q === 1 ? { retries: 1, throttle_ms: 250 } : {}),
        },
      ];
      out.push(resultLine({
        system,
        question_id: `q${q}`,
        repeat: 1 + (q % 2),
        question: `How tall is tower ${q}?`,
        kind: q % 3 ? "lookup" : null,
        tags: q % 2 ? ["easy", "towers"] : [],
        answer: q === 0 ? null : `It is ${q}30 m.`,
        passed: q % 2 === 0,
        answer_score: q % 2 === 0 ? 1 : 0.5,
        failure_label: q % 2 === 0 ? null : "generation_miss",
        checks: [
          { type: "contains", passed: q % 2 === 0, detail: `"${q}" in the answer` },
          { type: "regex", passed: true, detail: "" },
        ],
        error: q === 0 ? { kind: "model", message: "HTTP 500", retries: 3 } as never : null,
        flags: { best_effort: q === 4, budget_exhausted: q === 5, format_error: false },
        usage: { input_tokens: 100 + q, output_tokens: 7 },
        cost_usd: 0.0011 * (q + 1),
        latency_ms: 40 + q * 3.25,
        retrieval: {
          retrieved: true,
          relevant: 1,
          recall: q % 2 ? 1 : 0,
          mrr: q % 2 ? 0.5 : 0,
          metrics: q % 2 ? { ...METRICS } : { "ndcg@10": 0, "recall@10": 0, map: 0 },
          ranking: ["d1", "d2", `d${q}`],
          scores: [3, 2, 1],
          depth: 5,
        },
        trajectory: {
          tool_calls: 1,
          tool_errors: q === 2 ? 1 : 0,
          searches: 1,
          distinct_queries: 1,
          steps_to_evidence: q % 2 ? 2 : null,
          scored_searches: 1,
          redundant_searches: 0,
          required_tools_used: q % 2 ? true : null,
        },
        steps,
        ...(q === 3 ? { cited: ["d1", "d2"] } : {}),
      }));
    }
  }
  return out;
}

const SYSTEMS = [
  { name: "agent", type: "agent_search", model: "m", tools: ["search"], networkTools: [] },
  { name: "rag", type: "rag", model: "m", tools: [], networkTools: [] },
];

Deno.test("compact lines give the summaries, statistics, recommendation and TREC text of the full lines", () => {
  const full = lines();
  const compactor = new LineCompactor({ ranking: true });
  const compact = full.map((l) => compactor.compact(structuredClone(l)));
  const options = { retrievalK: [1, 10] };
  assert.deepEqual(summarize(SYSTEMS, compact, options), summarize(SYSTEMS, full, options));
  const summaries = summarize(SYSTEMS, full, options);
  const input = (l: QuestionResult[]) => ({
    name: "n",
    dir: "d",
    systems: SYSTEMS,
    lines: l,
    summaries,
    retrievalK: [1, 10],
  });
  assert.deepEqual(analyseRun(input(compact)), analyseRun(input(full)));
  assert.deepEqual(trecRunText("rag", compact), trecRunText("rag", full));
  const printed = (l: QuestionResult[]) => {
    const out: string[] = [];
    return [replayMisses(l, (line) => out.push(line)), out];
  };
  assert.deepEqual(printed(compact), printed(full));
});

Deno.test("compact lines keep a model step's retry fields (the rate-limit columns read them)", () => {
  const [line] = lines().filter((l) => l.question_id === "q1");
  const compact = new LineCompactor().compact(line);
  const model = compact.steps[0];
  assert.equal(model.type, "model");
  assert.deepEqual(
    model.type === "model" && [model.retries, model.http_statuses, model.backoff_ms],
    [2, [429, 503], 1501],
  );
  const retrieval = compact.steps[2];
  assert.deepEqual(
    retrieval.type === "retrieval" && [retrieval.error, retrieval.retries, retrieval.throttle_ms],
    [{ kind: "retrieval", message: "embedding endpoint down" }, 1, 250],
  );
  const summary = (l: QuestionResult[]) => summarize(SYSTEMS, l).systems[0];
  const one = summary([compact]) as unknown as Record<string, unknown>;
  assert.equal(one.retries, summary([line]).retries as unknown);
  assert.equal(one.retries, 3);
});

Deno.test("compact lines drop texts and share what repeats; without `ranking` they drop the ranking", () => {
  const compactor = new LineCompactor();
  const [a, b] = lines().filter((l) => l.question_id === "q1" || l.question_id === "q3")
    .map((l) => compactor.compact(l));
  assert.equal(a.question, "");
  assert.equal(a.answer, "");
  assert.deepEqual(a.retrieval.ranking, []);
  assert.deepEqual(a.retrieval.scores, []);
  const tool = a.steps[1];
  assert.ok(tool.type === "tool" && tool.result.output === "" && tool.result.data === undefined);
  const model = a.steps[0];
  assert.ok(model.type === "model" && model.content === null && model.tool_calls.length === 0);
  // Equal metric blocks, tags and flags are one object; a shared block cannot be changed.
  assert.equal(a.retrieval.metrics, b.retrieval.metrics);
  assert.equal(a.tags, b.tags);
  assert.equal(a.flags, b.flags);
  assert.throws(() => {
    (a.retrieval.metrics as Record<string, number>)["ndcg@10"] = 1;
  }, TypeError);
  assert.equal(b.cited?.join(), "d1,d2");
});

Deno.test("compact lines share equal token counts, trajectories and one-check lists, frozen; unequal ones stay apart", () => {
  const compactor = new LineCompactor();
  const check = (passed: boolean, detail = '"7" appears in the answer') => ({
    type: "contains" as const,
    passed,
    detail,
  });
  const trajectory = resultLine().trajectory;
  const [a, b, c, d] = [
    resultLine({ system: "x", checks: [check(true)] }),
    resultLine({ system: "y", checks: [check(true)] }),
    resultLine({
      system: "z",
      usage: { input_tokens: 2, output_tokens: 1 },
      trajectory: { ...trajectory, tool_calls: 3 },
      checks: [check(false)],
    }),
    resultLine({ checks: [{ ...check(true), type: "regex" }] }),
  ].map((l) => compactor.compact(l));
  assert.equal(a.usage, b.usage);
  assert.equal(a.trajectory, b.trajectory);
  assert.equal(a.checks, b.checks);
  assert.notEqual(a.usage, c.usage);
  assert.deepEqual(c.usage, { input_tokens: 2, output_tokens: 1 });
  assert.notEqual(a.trajectory, c.trajectory);
  assert.equal(c.trajectory.tool_calls, 3);
  assert.notEqual(a.checks, c.checks);
  assert.equal(c.checks[0].passed, false);
  // Trajectories whose numbers hash alike (1, 0 and 0, 31) are still told apart.
  const [e, f, g] = [
    { ...trajectory, tool_calls: 1, tool_errors: 0 },
    { ...trajectory, tool_calls: 0, tool_errors: 31 },
    { ...trajectory, tool_calls: 1, tool_errors: 0 },
  ].map((t) => compactor.compact(resultLine({ trajectory: t })).trajectory);
  assert.notEqual(e, f);
  assert.deepEqual([f.tool_calls, f.tool_errors], [0, 31]);
  assert.equal(e, g);
  // The same detail under another check type is its own list.
  assert.notEqual(a.checks, d.checks);
  assert.equal(d.checks[0].type, "regex");
  assert.throws(() => {
    a.usage.input_tokens = 9;
  }, TypeError);
  assert.throws(() => {
    a.checks.push(check(false));
  }, TypeError);
});
