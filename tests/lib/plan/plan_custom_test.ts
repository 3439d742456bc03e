import assert from "node:assert/strict";
import { offerCustom } from "../../../lib/plan/tool_sources/custom.ts";
import { PROBES, probeSession } from "../../support/probe_host.ts";

Deno.test("a custom tool's memory_mb from the config caps its processes", async () => {
  const tool = await offerCustom(
    {
      kind: "custom",
      name: "hog_memory",
      module: PROBES,
      exportName: "hogMemory",
      side_effects: "none",
      memory_mb: 48,
    },
    { corpus: { documents: [], tables: [] }, now: "2026-01-01", maxProcesses: 1 },
    { tools: { timeout_s: 30 } },
  );
  try {
    const { host } = tool;
    const info = { description: tool.description, parameters: tool.parameters };
    const { result } = await probeSession({ ...host, info }, "hog_memory", "q", 30_000).execute(
      "hog_memory",
      "{}",
      new AbortController().signal,
    );
    assert.equal(result.error?.message, "The tool ran out of memory: a custom tool may use 48 MB.");
  } finally {
    await tool.host.close();
  }
});
