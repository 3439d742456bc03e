/**
 * `model.rate_limit`: client-side throttling per model host, so that a run
 * (or the n shards of one, each taking 1/n) stays under the provider's
 * requests and tokens per minute instead of collecting 429s.
 *
 * Each host gets a token bucket per limit, shared by every model of the run
 * that calls it. A bucket holds at most a tenth of the minute's share and
 * refills at the other nine tenths spread over the minute, so that in any
 * 60-second window at most the share goes out (burst + refill = share). A
 * request waits, in arrival order, until both buckets can pay for it: one
 * request, and its estimated tokens (its text at four characters a token,
 * plus `max_output_tokens` when set); a cost over the bucket's size is
 * let through when the bucket is full and leaves it in debt, which the
 * next requests wait out. Once the reply comes, the estimate is replaced by
 * the usage the server reported. Every attempt of a retried call is a
 * request and pays again. The time waited is recorded on the model step as
 * `throttle_ms` and summed in `metrics_summary.csv`'s `throttle_s`.
 *
 * The clock is injected, so tests count requests per window without
 * waiting for real time.
 *
 * @module
 */

/** `model.rate_limit`: the provider's limits for the host (null: none). */
export interface RateLimit {
  requests_per_minute?: number | null;
  tokens_per_minute?: number | null;
}

/** Monotonic time in ms and an abortable sleep. */
export interface LimiterClock {
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real clock (`performance.now`, a timer). */
export const MONOTONIC_CLOCK: LimiterClock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    }),
};

const MINUTE_MS = 60_000;
/** Share of a minute's limit a bucket may hold (the burst). */
const BURST = 0.1;

/** One limit: a bucket of `share / 10`, refilled at `0.9 × share` a minute. */
class Bucket {
  readonly size: number;
  readonly #perMs: number;
  #level: number;
  #at: number;

  constructor(share: number, now: number) {
    this.size = share * BURST;
    this.#perMs = (share - this.size) / MINUTE_MS;
    this.#level = this.size;
    this.#at = now;
  }

  #refill(now: number): void {
    this.#level = Math.min(this.size, this.#level + (now - this.#at) * this.#perMs);
    this.#at = now;
  }

  /** Milliseconds until `cost` may be paid (0: now). */
  waitFor(cost: number, now: number): number {
    this.#refill(now);
    const need = Math.min(cost, this.size);
    return this.#level >= need ? 0 : (need - this.#level) / this.#perMs;
  }

  pay(cost: number, now: number): void {
    this.#refill(now);
    this.#level -= cost;
  }
}

/** A host's limiter: what a model calls before each request. */
export class HostLimiter {
  readonly #clock: LimiterClock;
  readonly #requests: Bucket | null;
  readonly #tokens: Bucket | null;
  #tail: Promise<void> = Promise.resolve();

  /** `share`: the fraction of the limits this process may use (1/n for n shards). */
  constructor(limit: RateLimit, options: { share: number; clock?: LimiterClock }) {
    if (!(options.share > 0 && options.share <= 1)) {
      throw new RangeError(`rate limit share must be in (0, 1], got ${options.share}`);
    }
    this.#clock = options.clock ?? MONOTONIC_CLOCK;
    const now = this.#clock.now();
    const rpm = limit.requests_per_minute ?? null;
    const tpm = limit.tokens_per_minute ?? null;
    this.#requests = rpm === null ? null : new Bucket(rpm * options.share, now);
    this.#tokens = tpm === null ? null : new Bucket(tpm * options.share, now);
  }

  /**
   * Waits (after every earlier caller) until one request of about `tokens`
   * tokens may go, then pays for it.
   *
   * @returns the milliseconds waited.
   * @throws the signal's reason when it aborts while waiting.
   */
  acquire(tokens: number, signal: AbortSignal): Promise<number> {
    const turn = this.#tail.then(() => this.#wait(tokens, signal));
    this.#tail = turn.then(() => {}, () => {});
    return turn;
  }

  /** Replaces a request's estimated tokens by what it used. */
  settle(estimated: number, used: number): void {
    this.#tokens?.pay(used - estimated, this.#clock.now());
  }

  async #wait(tokens: number, signal: AbortSignal): Promise<number> {
    const started = this.#clock.now();
    // Bounded: each pass sleeps until the buckets can pay; a refill never takes more passes.
    for (let pass = 0; pass < 1000; pass++) {
      const now = this.#clock.now();
      const wait = Math.max(
        this.#requests?.waitFor(1, now) ?? 0,
        this.#tokens?.waitFor(tokens, now) ?? 0,
      );
      if (wait <= 0) break;
      await this.#clock.sleep(Math.ceil(wait), signal);
    }
    const now = this.#clock.now();
    this.#requests?.pay(1, now);
    this.#tokens?.pay(tokens, now);
    return now - started;
  }
}

/** The run's limiters, one per host (`scheme://name:port`), shared by the models that call it. */
export class HostLimiters {
  readonly #hosts = new Map<string, HostLimiter>();
  readonly #share: number;
  readonly #clock: LimiterClock | undefined;

  /** `share`: the fraction of every limit this process uses (1/n for shard i/n). */
  constructor(options: { share?: number; clock?: LimiterClock } = {}) {
    this.#share = options.share ?? 1;
    this.#clock = options.clock;
  }

  /**
   * The limiter of `host`, made with `limit` by the first model that names
   * one (a later model on the same host shares it); null without a limit.
   */
  for(host: string, limit: RateLimit | null): HostLimiter | null {
    if (limit === null) return null;
    let limiter = this.#hosts.get(host);
    if (!limiter) {
      limiter = new HostLimiter(limit, {
        share: this.#share,
        ...(this.#clock ? { clock: this.#clock } : {}),
      });
      this.#hosts.set(host, limiter);
    }
    return limiter;
  }
}

/** Tokens a request is taken to use before it is sent: its text / 4, plus its output cap. */
export function estimateRequestTokens(text: number, maxOutputTokens: number | null): number {
  return Math.ceil(text / 4) + (maxOutputTokens ?? 0);
}
