import assert from "node:assert/strict";
import { join } from "node:path";
import { checkResultLine, resultLineSchema } from "../../../lib/run/result_line.ts";
import { surelyResultLine } from "../../../lib/run/result_line_check.ts";
import { runCli } from "../../support/cli.ts";
import { tempTree } from "../../support/temp.ts";

/** Lines of a real run of the bundled benchmark (every step type), a few per system. */
async function realLines(): Promise<Record<string, unknown>[]> {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli(["run", "configs/all.yaml", "--mock", "--quiet", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const lines = Deno.readTextFileSync(join(out, "per_question_results.jsonl")).trim().split("\n")
    .map((l) => JSON.parse(l));
  const perSystem = new Map<string, number>();
  return lines.filter((l) => {
    const seen = perSystem.get(l.system) ?? 0;
    perSystem.set(l.system, seen + 1);
    return seen < 4;
  });
}

/** The optional fields real mock lines leave out, set on a copy of `line`. */
function withOptionals(line: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(line) as {
    flags: Record<string, unknown>;
    retrieval: Record<string, unknown>;
    error: unknown;
    steps: unknown[];
  };
  copy.flags.answer_truncated = true;
  copy.retrieval.depth = 3;
  copy.error = { kind: "model", message: "m", retries: 2, http_statuses: [429], backoff_ms: 5 };
  copy.steps.push(
    {
      type: "model",
      usage: { input_tokens: 1, output_tokens: 2 },
      cost_usd: null,
      latency_ms: 1,
      content: null,
      tool_calls: [{ id: "c", name: "n", arguments: "{}" }],
      final: false,
      cached: true,
      recorded_usage: { input_tokens: 1, output_tokens: 2 },
      recorded_cost_usd: 0.5,
      restored: [{ tool_call_id: "c", framework_text: "t" }],
      retries: 1,
      http_statuses: [500],
      backoff_ms: 10,
    },
    {
      type: "tool",
      tool: "t",
      call_id: "c",
      args: { a: 1 },
      result: {
        output: "o",
        data: [1],
        error: { kind: "timeout", message: "m", detail: "d" },
        truncated: false,
        cost_usd: 0,
        latency_ms: 1,
      },
    },
    {
      type: "retrieval",
      retriever: "r",
      query: "q",
      k: 5,
      results: [{ passage_id: "p", doc_id: "d", score: 1 }],
      latency_ms: 1,
      embedding_tokens: 0,
      cost_usd: null,
      error: { kind: "k", message: "m" },
    },
  );
  return copy as unknown as Record<string, unknown>;
}

const REPLACEMENTS: unknown[] = [
  null,
  "",
  "x",
  0,
  -1,
  0.5,
  2,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 60,
  true,
  false,
  [],
  {},
  ["x"],
  [1],
  [null],
  { a: 1 },
  "model",
  "tool",
];
const DELETE = Symbol("delete");

/** Every path into `value` (arrays: their first two elements), with its parent and key. */
function* paths(value: unknown, depth = 0): Generator<Array<string | number>> {
  if (depth > 6 || typeof value !== "object" || value === null) return;
  const keys = Array.isArray(value) ? [0, 1].filter((i) => i < value.length) : Object.keys(value);
  for (const key of keys) {
    yield [key];
    // A tool's data and arguments are any JSON: nothing below them is checked.
    if (key === "data" || key === "args") continue;
    for (const rest of paths((value as Record<string | number, unknown>)[key], depth + 1)) {
      yield [key, ...rest];
    }
  }
}

function mutated(line: unknown, path: Array<string | number>, to: unknown): unknown {
  const copy = structuredClone(line) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (to === DELETE) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = to;
  return copy;
}

Deno.test("the fast check accepts every real line, and never a mutation the zod schema refuses", async () => {
  const lines = await realLines();
  const all = [...lines, ...lines.slice(0, 3).map(withOptionals)];
  let tried = 0;
  let refusedByBoth = 0;
  for (const line of all) {
    assert.ok(surelyResultLine(line), JSON.stringify(line).slice(0, 200));
    assert.ok(resultLineSchema.safeParse(line).success);
    for (const path of paths(line)) {
      for (const to of [DELETE, ...REPLACEMENTS]) {
        const m = mutated(line, path, to);
        const zod = resultLineSchema.safeParse(m).success;
        const fast = surelyResultLine(m);
        tried++;
        if (fast) {
          assert.ok(zod, `accepted what zod refuses: ${path.join(".")} = ${String(to)}`);
        } else if (!zod) refusedByBoth++;
      }
    }
  }
  assert.ok(tried > 10_000, `${tried} mutations`);
  assert.ok(refusedByBoth > tried / 3, `${refusedByBoth} of ${tried} refused by both`);
});

Deno.test("a line the fast check refuses still gets zod's verdict and message", () => {
  const line = {
    system: "s",
    model: null,
    question_id: "q",
    repeat: 0,
  };
  assert.equal(surelyResultLine(line), false);
  const checked = checkResultLine(line);
  assert.equal(checked.ok, false);
  assert.match((checked as { why: string }).why, /^repeat: /);
  // Accepted by zod, refused by the fast check (an object with another prototype): still a line.
  const odd = JSON.parse(
    `{"system":"s","model":null,"question_id":"q","repeat":1,"question":"?","kind":null,"tags":[],` +
      `"answer":null,"passed":null,"answer_score":null,"failure_label":null,"checks":[],` +
      `"error":null,"flags":{"best_effort":false,"budget_exhausted":false,"format_error":false},` +
      `"format_errors":0,"usage":{"input_tokens":0,"output_tokens":0},"cost_usd":0,` +
      `"latency_ms":1,"retrieval":{"retrieved":false,"relevant":0,"recall":null,"mrr":null,` +
      `"metrics":null,"ranking":[],"scores":[]},"trajectory":{"tool_calls":0,"tool_errors":0,` +
      `"searches":0,"distinct_queries":0,"steps_to_evidence":null,"scored_searches":0,` +
      `"redundant_searches":0,"required_tools_used":null},"steps":[]}`,
  );
  assert.ok(surelyResultLine(odd));
  Object.setPrototypeOf(odd.usage, Map.prototype);
  assert.equal(surelyResultLine(odd), false);
  assert.equal(checkResultLine(odd).ok, resultLineSchema.safeParse(odd).success);
});
