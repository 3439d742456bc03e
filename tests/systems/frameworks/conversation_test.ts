import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../lib/plan/setup.ts";
import { planSystems } from "../../../lib/plan/plan.ts";
import { priceRun } from "../../../lib/plan/price_checks.ts";
import { createModels } from "../../../lib/llm/select.ts";
import type { ChatRequest, Model } from "../../../lib/llm/model.ts";
import { runQuestions } from "../../../lib/run/runner.ts";
import type { ModelStep, QuestionResult } from "../../../lib/types.ts";
import { ROOT } from "../../support/cli.ts";
import { assertNoFrameworkProcess, FRAMEWORK_TYPES } from "../../support/frameworks.ts";

/** A model that records every request it gets, by the question (the first user message). */
function recording(model: Model, into: Map<string, ChatRequest[]>): Model {
  return {
    id: model.id,
    pricing: model.pricing,
    chat(request, signal) {
      const question = request.messages.find((m) => m.role === "user")?.content ?? "";
      if (!into.has(question)) into.set(question, []);
      into.get(question)!.push(structuredClone(request));
      return model.chat(request, signal);
    },
  };
}

Deno.test("every framework sends the model agent_search's conversation on the rag arena, request for request", async () => {
  const loaded = await loadRun(join(ROOT, "configs/frameworks.yaml"), { mock: true });
  const base = await createModels(loaded.config.systems, {
    mock: true,
    script: loaded.script,
    prices: await priceRun(loaded.config, { mock: true }),
  });
  const seen = new Map<string, Map<string, ChatRequest[]>>();
  const models = new Map<string, Model>();
  for (const [name, model] of base) {
    seen.set(name, new Map());
    models.set(name, recording(model, seen.get(name)!));
  }
  const plan = await planSystems(loaded.config, loaded.corpus, {
    concurrency: 4,
    models,
    mock: true,
  });
  try {
    const results: QuestionResult[] = [];
    const outcome = await runQuestions({
      systems: plan.systems,
      questions: loaded.questions,
      repeats: 1,
      concurrency: 4,
      questionTimeoutMs: 60_000,
      maxCostUsd: null,
      done: new Set(),
      sink: (r) => {
        results.push(r);
        return Promise.resolve();
      },
      reporter: { onResult() {} },
      signal: new AbortController().signal,
    });
    assert.equal(outcome.recorded, 15 * 6);
    assert.equal(results.length, 15 * 6);
    const agent = seen.get("agent_search")!;
    assert.equal(agent.size, 15);
    for (const type of FRAMEWORK_TYPES) {
      const own = seen.get(type)!;
      assert.equal(own.size, 15, type);
      for (const [question, requests] of agent) {
        // Byte for byte: the JSON a model API would be sent.
        assert.equal(
          JSON.stringify(own.get(question)),
          JSON.stringify(requests),
          `${type}: ${question}`,
        );
      }
      // What a framework had put in ragbench's place is recorded, never silently dropped.
      const restored = results.filter((r) => r.system === type)
        .flatMap((r) => r.steps.filter((s): s is ModelStep => s.type === "model"))
        .flatMap((s) => s.restored ?? []);
      if (type === "llamaindex") {
        // LlamaIndex quotes every tool result as JSON and strips the quotes (newlines become \n).
        assert.equal(restored.length, 18, "one per search of the arena");
        assert.ok(restored.every((r) => r.framework_text.includes("\\n")));
      } else {
        assert.deepEqual(restored, [], `${type} reworded nothing`);
      }
    }
  } finally {
    await plan.close();
    await assertNoFrameworkProcess();
  }
});
