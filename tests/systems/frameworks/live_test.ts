import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../lib/plan/setup.ts";
import { createMockModel } from "../../../lib/llm/mock_model.ts";
import type { ChatMessage, ChatRequest } from "../../../lib/llm/model.ts";
import { readJsonl } from "../../../lib/report/jsonl.ts";
import type { ModelStep, QuestionResult } from "../../../lib/types.ts";
import { ROOT, runCli } from "../../support/cli.ts";
import {
  chatCompletion,
  errorBody,
  type FakeReply,
  startFakeOpenAIServer,
} from "../../support/fake_openai_server.ts";
import {
  assertNoFrameworkProcess,
  FRAMEWORK_TYPES,
  frameworksConfig,
} from "../../support/frameworks.ts";
import { tempTree } from "../../support/temp.ts";

interface OpenAIMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** A chat-completions request body in ragbench's neutral shape. */
function neutral(body: unknown): ChatRequest {
  const { messages, tools } = body as {
    messages: OpenAIMessage[];
    tools?: {
      function: { name: string; description: string; parameters: Record<string, unknown> };
    }[];
  };
  return {
    messages: messages.map((m): ChatMessage => {
      if (m.role === "assistant") {
        return {
          role: "assistant",
          content: m.content,
          ...(m.tool_calls
            ? {
              tool_calls: m.tool_calls.map((c) => ({
                id: c.id,
                name: c.function.name,
                arguments: c.function.arguments,
              })),
            }
            : {}),
        };
      }
      if (m.role === "tool") {
        return { role: "tool", tool_call_id: m.tool_call_id!, content: m.content ?? "" };
      }
      return { role: m.role as "system" | "user", content: m.content ?? "" };
    }),
    tools: (tools ?? []).map((t) => t.function),
  };
}

Deno.test("live against a loopback chat-completions server (a 429 and a 500 before each first answer): every framework scores 15/15 and sends agent_search's requests byte for byte", async () => {
  const { script } = await loadRun(join(ROOT, "configs/frameworks.yaml"), { mock: true });
  const scripted = createMockModel(script, "gpt-4o-mini", null);
  const seen = new Map<string, number>();
  const answered = new Map<string, number>();
  await using server = startFakeOpenAIServer(async (request): Promise<FakeReply> => {
    const key = JSON.stringify(request.body);
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count === 1) {
      return {
        status: 429,
        json: errorBody("Slow down.", "rate_limit"),
        headers: { "retry-after": "0" },
      };
    }
    if (count === 2) return { status: 500, json: errorBody("Oops.", "server_error") };
    answered.set(key, (answered.get(key) ?? 0) + 1);
    const reply = await scripted.chat(neutral(request.body), new AbortController().signal);
    return {
      json: chatCompletion({
        content: reply.content,
        tool_calls: reply.tool_calls,
        usage: {
          prompt_tokens: reply.usage.input_tokens,
          completion_tokens: reply.usage.output_tokens,
        },
      }),
    };
  });
  await using t = await tempTree({
    "c.yaml": frameworksConfig({
      model:
        `{name: gpt-4o-mini, base_url: "${server.baseUrl}", api_key_env: null, max_retries: 2, timeout_s: 30}`,
      evaluation: "{concurrency: 2}",
    }),
  });
  try {
    const result = await runCli([
      "run",
      t.path("c.yaml"),
      "--cache",
      "off",
      "--out",
      t.path("o"),
      "--quiet",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const lines = await readJsonl(t.path("o/per_question_results.jsonl")) as QuestionResult[];
    for (const type of ["agent_search", ...FRAMEWORK_TYPES]) {
      const own = lines.filter((l) => l.system === type);
      assert.equal(own.length, 15, type);
      assert.equal(
        own.filter((l) => l.passed).length,
        15,
        `${type}: ${JSON.stringify(own.find((l) => !l.passed)?.error)}`,
      );
    }
    // Every distinct request was answered once for each of the six systems: the bodies are equal.
    assert.ok(answered.size >= 15);
    for (const [key, count] of answered) assert.equal(count, 6, key.slice(0, 300));
    // The retries were ragbench's, recorded on the steps of whichever system met them.
    const retried = lines.flatMap((l) => l.steps)
      .filter((s): s is ModelStep => s.type === "model" && (s.retries ?? 0) > 0);
    // Two failures a distinct request; two systems sending it at once may each meet one.
    const statuses = retried.flatMap((s) => s.http_statuses ?? []);
    assert.equal(statuses.length, 2 * answered.size);
    assert.equal(statuses.filter((code) => code === 429).length, answered.size);
    assert.ok(statuses.every((code) => code === 429 || code === 500));
  } finally {
    await assertNoFrameworkProcess();
  }
});
