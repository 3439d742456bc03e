import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, type ToolDef } from "../../tools/define_tool.ts";
import { WORKER_TOOLS } from "../../tools/worker_registry.ts";

const base = {
  name: "probe",
  description: "test",
  parameters: z.strictObject({}),
  sideEffects: "none" as const,
  run: () => "ok",
};

Deno.test("defineTool: prepare and load must be functions, with a message naming the tool", () => {
  assert.throws(
    () => defineTool({ ...base, prepare: "yes" } as unknown as ToolDef),
    /^TypeError: Tool "probe": prepare must be a function of the corpus\.$/,
  );
  assert.throws(
    () => defineTool({ ...base, load: {} } as unknown as ToolDef),
    /^TypeError: Tool "probe": load must be a function that returns a promise\.$/,
  );
});

Deno.test("the built-ins that keep their engine out of their file load it through load(), which the worker calls at start", async () => {
  const withEngine = [...WORKER_TOOLS.values()].filter((def) => def.load !== undefined);
  assert.deepEqual(withEngine.map((d) => d.name).sort(), ["calculator", "corpus_grep"]);
  for (const def of withEngine) {
    const engine = await def.load!() as Record<string, unknown>;
    assert.ok(Object.values(engine).some((v) => typeof v === "function"), def.name);
  }
});
