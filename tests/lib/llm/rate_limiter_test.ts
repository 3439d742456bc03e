import assert from "node:assert/strict";
import { createOpenAIModel } from "../../../lib/llm/openai_model.ts";
import { HostLimiters, type LimiterClock, type RateLimit } from "../../../lib/llm/rate_limiter.ts";
import { hostOf } from "../../../lib/llm/host_breaker.ts";
import { rateLimitSummary } from "../../../lib/score/rate_limit_summary.ts";
import type { QuestionResult } from "../../../lib/types.ts";

/**
 * One process's time: it moves only when the process sleeps, so a test runs
 * minutes of throttling at once. Each shard (process) has its own, all
 * starting at 0, as processes started together share the wall clock. Before
 * it moves, every request the limiter let through must have reached the
 * server (which reads this clock as it receives them): a request is stamped
 * with the time it was sent.
 */
class VirtualClock implements LimiterClock {
  t = 0;
  admitted = 0;
  received = 0;
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    for (let i = 0; i < 10_000 && this.received < this.admitted; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.equal(this.received, this.admitted, "a request never reached the server");
    if (signal.aborted) throw signal.reason;
    this.t += ms;
  }
}

const TOKENS_PER_REPLY = { prompt_tokens: 80, completion_tokens: 20 };

/**
 * A loopback chat-completions server that records, for every request, the
 * time on the clock of the process that sent it (named by a header).
 */
function chatServer(clocks: Map<string, VirtualClock>) {
  const seen: Array<{ t: number; tokens: number }> = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    const shard = new URL(req.url).pathname.split("/")[1];
    const clock = clocks.get(shard)!;
    clock.received++;
    seen.push({ t: clock.now(), tokens: 100 });
    return Response.json({
      id: "x",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: TOKENS_PER_REPLY,
    });
  });
  return { seen, port: server.addr.port, close: () => server.shutdown() };
}

/** Most requests (and tokens) in any 60-second window of the recorded times. */
function busiestMinute(seen: ReadonlyArray<{ t: number; tokens: number }>) {
  const sorted = [...seen].sort((a, b) => a.t - b.t);
  let requests = 0;
  let tokens = 0;
  for (let i = 0, j = 0, sum = 0; i < sorted.length; i++) {
    sum += sorted[i].tokens;
    while (sorted[i].t - sorted[j].t >= 60_000) sum -= sorted[j++].tokens;
    requests = Math.max(requests, i - j + 1);
    tokens = Math.max(tokens, sum);
  }
  return { requests, tokens };
}

/** `shards` processes, each sending `calls` chat requests at once through its own limiters. */
async function sendAll(limit: RateLimit | null, options: { shards: number; calls: number }) {
  const clocks = new Map<string, VirtualClock>();
  for (let s = 1; s <= options.shards; s++) clocks.set(`shard${s}`, new VirtualClock());
  const server = chatServer(clocks);
  try {
    const throttled: number[] = [];
    await Promise.all([...clocks].map(async ([name, clock]) => {
      const baseUrl = `http://127.0.0.1:${server.port}/${name}/v1`;
      const limiters = new HostLimiters({ share: 1 / options.shards, clock });
      const limiter = limiters.for(hostOf(baseUrl), limit);
      if (limiter !== null) {
        const acquire = limiter.acquire.bind(limiter);
        limiter.acquire = async (tokens, signal) => {
          const waited = await acquire(tokens, signal);
          clock.admitted++;
          return waited;
        };
      }
      const model = createOpenAIModel({
        name: "m",
        baseUrl,
        pricing: null,
        maxTokens: 50,
        limiter,
      });
      const replies = await Promise.all(
        Array.from({ length: options.calls }, () =>
          model.chat(
            { messages: [{ role: "user", content: "x".repeat(200) }], tools: [] },
            AbortSignal.timeout(60_000),
          )),
      );
      for (const reply of replies) throttled.push(reply.attempts?.throttle_ms ?? -1);
    }));
    return { seen: server.seen, throttled };
  } finally {
    await server.close();
  }
}

Deno.test("requests_per_minute: no 60-second window holds more requests than the limit", async () => {
  const { seen, throttled } = await sendAll({ requests_per_minute: 30 }, { shards: 1, calls: 100 });
  assert.equal(seen.length, 100);
  assert.ok(busiestMinute(seen).requests <= 30, JSON.stringify(busiestMinute(seen)));
  // Paced, not refused: the last request went out after about (100 − 3) / 27 minutes.
  const last = Math.max(...seen.map((s) => s.t));
  assert.ok(last >= 3.5 * 60_000 && last <= 3.7 * 60_000, `last at ${last} ms`);
  // Each call reports its wait, as backoff waits are reported.
  assert.ok(throttled.every((ms) => ms >= 0));
  assert.equal(throttled.filter((ms) => ms === 0).length, 3, "the burst (a tenth) went at once");
});

Deno.test("three shards each take a third: together they stay under the provider's limit", async () => {
  const { seen } = await sendAll({ requests_per_minute: 60 }, { shards: 3, calls: 60 });
  assert.equal(seen.length, 180);
  assert.ok(busiestMinute(seen).requests <= 60, JSON.stringify(busiestMinute(seen)));
  // Each shard alone at the whole limit would have gone twice as fast.
  const whole = await sendAll({ requests_per_minute: 60 }, { shards: 1, calls: 180 });
  assert.ok(busiestMinute(whole.seen).requests <= 60);
});

Deno.test("without the share, three shards at the whole limit each would exceed it (what the split prevents)", async () => {
  const clocks = [1, 2, 3];
  const runs = await Promise.all(
    clocks.map(() => sendAll({ requests_per_minute: 60 }, { shards: 1, calls: 60 })),
  );
  const together = runs.flatMap((r) => r.seen);
  assert.ok(busiestMinute(together).requests > 60, JSON.stringify(busiestMinute(together)));
});

Deno.test("tokens_per_minute: the tokens sent in any minute stay under the limit (estimated, then settled from usage)", async () => {
  const { seen } = await sendAll({ tokens_per_minute: 2_000 }, { shards: 2, calls: 30 });
  assert.equal(seen.length, 60);
  const busiest = busiestMinute(seen);
  assert.ok(busiest.tokens <= 2_000, JSON.stringify(busiest));
  assert.ok(busiest.tokens >= 1_000, `the limit was used, not starved: ${JSON.stringify(busiest)}`);
});

Deno.test("with no rate_limit nothing waits and no throttle is recorded", async () => {
  const { seen, throttled } = await sendAll(null, { shards: 1, calls: 20 });
  assert.ok(seen.every((s) => s.t === 0));
  assert.ok(throttled.every((ms) => ms === -1), "no throttle_ms field without a limiter");
});

Deno.test("a wait for the limiter ends when the call is cancelled", async () => {
  const clock: LimiterClock = {
    now: () => 0,
    sleep: (_ms, signal) =>
      new Promise((_, reject) =>
        signal.aborted
          ? reject(signal.reason)
          : signal.addEventListener("abort", () => reject(signal.reason))
      ),
  };
  const limiter = new HostLimiters({ clock }).for("h", { requests_per_minute: 10 })!;
  assert.equal(await limiter.acquire(1, AbortSignal.abort()), 0, "the burst goes at once");
  const controller = new AbortController();
  const waiting = limiter.acquire(1, controller.signal);
  await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort(new Error("cancelled"));
  await assert.rejects(waiting, /cancelled/);
});

Deno.test("metrics_summary's throttle_s sums the waits, and p50 latency leaves them out", () => {
  const line = (throttle: number) =>
    ({
      latency_ms: 1_000 + throttle,
      error: null,
      steps: [{
        type: "model",
        retries: 0,
        http_statuses: [],
        backoff_ms: 0,
        throttle_ms: throttle,
      }],
    }) as unknown as QuestionResult;
  const summary = rateLimitSummary([line(2_000), line(4_000), line(0)]);
  assert.equal(summary.throttle_s, 6);
  assert.equal(summary.p50_latency_ex_backoff_ms, 1_000);
});
