import assert from "node:assert/strict";
import type { CacheMode } from "../../lib/cache/cache_mode.ts";
import { openResponseCache, type ResponseCache } from "../../lib/cache/response_cache.ts";
import { emptyCacheStats } from "../../lib/llm/cached_model.ts";
import { TOOL_REPLAY_MISS_PREFIX, withToolCache } from "../../tools/cached_host.ts";
import type { HostCall, ToolHost } from "../../tools/host.ts";
import type { RawToolResult } from "../../tools/invoke.ts";
import { tempTree } from "../support/temp.ts";

function countingHost(result: (n: number) => RawToolResult): ToolHost & { calls: number } {
  const host = {
    calls: 0,
    call() {
      host.calls++;
      return Promise.resolve(result(host.calls));
    },
    endQuestion() {},
    close: () => Promise.resolve(),
  };
  return host;
}

const CALL: HostCall = {
  tool: "web",
  args: { q: "x" },
  options: {},
  questionKey: "agent/sh01/1",
  timeoutMs: 1000,
};

function wrap(host: ToolHost, cache: ResponseCache, mode: CacheMode) {
  return withToolCache(host, { cache, mode, stats: emptyCacheStats() }, "custom:/t.ts#web");
}

Deno.test("a side-effect tool's result is recorded once and replayed at $0 without calling the tool", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const host = countingHost((n) => ({
      output: `page ${n}`,
      data: { n },
      error: null,
      cost_usd: 0.01,
    }));
    const first = await wrap(host, cache, "read-write").call(CALL, AbortSignal.timeout(1000));
    assert.equal(first.output, "page 1");
    const replayed = await wrap(host, cache, "replay").call(CALL, AbortSignal.timeout(1000));
    assert.deepEqual(replayed, { output: "page 1", data: { n: 1 }, error: null, cost_usd: 0 });
    assert.equal(host.calls, 1);
  } finally {
    cache.close();
  }
});

Deno.test("a replay miss is an unavailable error whose detail names the tool and question; timeouts are not recorded", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const host = countingHost(() => ({
      output: "",
      error: { kind: "timeout", message: "too slow" },
      cost_usd: 0,
    }));
    await wrap(host, cache, "read-write").call(CALL, AbortSignal.timeout(1000));
    const missed = await wrap(host, cache, "replay").call(CALL, AbortSignal.timeout(1000));
    assert.equal(host.calls, 1);
    assert.equal(missed.error?.kind, "unavailable");
    assert.equal(
      missed.error?.detail,
      `${TOOL_REPLAY_MISS_PREFIX} no recorded result for tool "web" (question agent/sh01/1). ` +
        "Record it first with a live run and --cache-tools read-write.",
    );
  } finally {
    cache.close();
  }
});
