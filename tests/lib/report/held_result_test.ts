import assert from "node:assert/strict";
import { trimWrittenResult } from "../../../lib/report/held_result.ts";
import { cut, MAX_STEP_CHARS } from "../../../lib/report/html/question_data.ts";
import type { QuestionResult, Step } from "../../../lib/types.ts";

function toolStep(output: string): Step {
  return {
    type: "tool",
    call_id: "c1",
    tool: "read_document",
    args: { doc_id: "d" },
    result: {
      output,
      data: { results: [{ doc_id: "d", text: output }] },
      error: null,
      truncated: false,
      cost_usd: 0,
      latency_ms: 1,
    },
  } as Step;
}

Deno.test("a written result keeps what the report shows of each tool output, and no tool data", () => {
  const long = "x".repeat(5000);
  const short = "y".repeat(MAX_STEP_CHARS);
  const edge = "z".repeat(MAX_STEP_CHARS + 1);
  const model = { type: "model", content: long, tool_calls: [] } as unknown as Step;
  const result = {
    steps: [toolStep(long), toolStep(short), toolStep(edge), model],
  } as unknown as QuestionResult;
  const shownBefore = result.steps.map((s) =>
    s.type === "tool" ? cut(s.result.output, MAX_STEP_CHARS) : null
  );
  trimWrittenResult(result);
  const tools = result.steps.filter((s) => s.type === "tool");
  assert.deepEqual(tools.map((s) => s.result.output.length), [
    MAX_STEP_CHARS + 1,
    MAX_STEP_CHARS,
    MAX_STEP_CHARS + 1,
  ]);
  assert.deepEqual(tools.map((s) => s.result.data), [undefined, undefined, undefined]);
  assert.deepEqual(
    result.steps.map((s) => s.type === "tool" ? cut(s.result.output, MAX_STEP_CHARS) : null),
    shownBefore,
  );
  assert.equal(
    (result.steps[3] as { content: string }).content,
    long,
    "model replies are kept whole",
  );
});
