/**
 * Retries of a model call, done by ragbench rather than hidden inside the
 * SDK, so that every retry, the HTTP status of every failed attempt and the
 * time spent waiting between attempts are recorded on the model step and
 * summed in `metrics_summary.csv`.
 *
 * Which failures are retried follows the `npm:openai` SDK: no HTTP response
 * (connection error or per-attempt timeout), HTTP 408, 409, 429 and 5xx,
 * or whatever the non-standard `x-should-retry: true|false` header says.
 * The wait before retry n (1-based) is, in order of preference:
 * `retry-after-ms` (milliseconds), `Retry-After` (seconds or an HTTP date),
 * each honoured when it lies in 0..{@link MAX_SERVER_WAIT_MS}; otherwise
 * exponential backoff `min(500 ms × 2^(n−1), 8 s) × (1 − 0.25 × r)` with r
 * uniform in [0, 1) from the injected random source. The clock, the sleep and
 * the random source are injected, so tests are deterministic; the scripted
 * mock model never comes here at all.
 *
 * @module
 */

/** What the retries of one model call cost: recorded on the model step (or the question's error). */
export interface RetryReport {
  /** Attempts made after the first one. */
  retries: number;
  /** HTTP status of each failed attempt, in order; 0 when no response came (connection error, timeout). */
  http_statuses: number[];
  /** Total time slept between attempts, milliseconds. */
  backoff_ms: number;
  /** Time waited for `model.rate_limit` before the attempts (rate_limiter.ts); absent without one. */
  throttle_ms?: number;
}

/** Time and randomness, injected so that tests are deterministic. */
export interface RetryClock {
  /** Wall-clock time in ms since the epoch (used to read an HTTP-date `Retry-After`). */
  now(): number;
  /** A number in [0, 1) for the backoff jitter. */
  random(): number;
  /** Resolves after `ms`, rejects with `signal.reason` when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** One failed attempt, as the retry loop needs to see it. */
export interface AttemptFailure {
  /** HTTP status, or null when no response came. */
  status: number | null;
  /** Response headers, when a response came. */
  headers: Headers | null;
  /** False for failures that another attempt cannot fix (a missing permission, a cancelled call). */
  retryable: boolean;
}

/** The longest server-requested wait honoured; a longer (or unreadable) one falls back to backoff. */
export const MAX_SERVER_WAIT_MS = 60_000;
/** First backoff wait before jitter, milliseconds. */
export const INITIAL_BACKOFF_MS = 500;
/** Cap of the backoff wait before jitter, milliseconds. */
export const MAX_BACKOFF_MS = 8_000;

/** The real clock: `Date.now`, `Math.random` and an abortable timer. */
export const SYSTEM_CLOCK: RetryClock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: abortableSleep,
};

/** A call that failed after its last allowed attempt; `cause` is the last attempt's error. */
export class RetriesExhausted extends Error {
  constructor(readonly report: RetryReport, cause: unknown) {
    super("model call failed after its retries", { cause });
    this.name = "RetriesExhausted";
  }
}

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** Retries after the first attempt (0 = none). */
  maxRetries: number;
  clock: RetryClock;
  /** Cancels the call, including a wait between attempts. */
  signal: AbortSignal;
  /** Reads a thrown error as an {@link AttemptFailure}. */
  classify(error: unknown): AttemptFailure;
}

/**
 * Runs `attempt` until it succeeds or the retries run out.
 *
 * @throws {RetriesExhausted} carrying the report and the last error, when the
 *   last attempt failed, a failure is not retryable, or the signal aborted.
 */
export async function withRetries<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  options: RetryOptions,
): Promise<{ value: T; report: RetryReport }> {
  const report: RetryReport = { retries: 0, http_statuses: [], backoff_ms: 0 };
  while (true) {
    let failure: AttemptFailure;
    try {
      return { value: await attempt(options.signal), report };
    } catch (error) {
      failure = options.classify(error);
      report.http_statuses.push(failure.status ?? 0);
      if (
        !failure.retryable || options.signal.aborted || report.retries >= options.maxRetries
      ) {
        throw new RetriesExhausted(report, error);
      }
      const wait = retryDelayMs(failure.headers, report.retries + 1, options.clock);
      try {
        await options.clock.sleep(wait, options.signal);
      } catch {
        throw new RetriesExhausted(report, error);
      }
      report.backoff_ms += wait;
      report.retries++;
    }
  }
}

/**
 * Whether an attempt that got `status` (null: no response) should be
 * retried, by the SDK's rules; `headers` may carry `x-should-retry`.
 */
export function isRetryableStatus(status: number | null, headers: Headers | null): boolean {
  const said = headers?.get("x-should-retry");
  if (said === "true") return true;
  if (said === "false") return false;
  if (status === null) return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The wait before retry `retry` (1-based), in ms: the server's request, else backoff with jitter. */
export function retryDelayMs(headers: Headers | null, retry: number, clock: RetryClock): number {
  const asked = serverWaitMs(headers, clock.now());
  if (asked !== null) return asked;
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** (retry - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 - 0.25 * clock.random()));
}

/** The wait the server asked for, in ms, or null when it asked none (or an unusable one). */
export function serverWaitMs(headers: Headers | null, nowMs: number): number | null {
  const wait = requestedWaitMs(headers, nowMs);
  return wait === null || wait > MAX_SERVER_WAIT_MS ? null : wait;
}

/**
 * The wait `retry-after-ms` (milliseconds) or `Retry-After` (seconds, or an
 * HTTP date) asks for, in whole ms, with no upper bound; null when neither
 * header holds a usable value. Callers decide what a very long wait means.
 */
export function requestedWaitMs(headers: Headers | null | undefined, nowMs: number): number | null {
  if (!headers || typeof headers.get !== "function") return null;
  let wait: number | null = null;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) wait = Number(ms);
  const after = headers.get("retry-after");
  if (wait === null && after !== null) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(after)) wait = Number(after) * 1000;
    else if (/^\s*[A-Za-z]{3},/.test(after)) {
      // An HTTP date (IMF-fixdate, "Wed, 21 Oct 2026 07:28:00 GMT"); Date.parse alone reads "-1" as a year.
      const date = Date.parse(after);
      if (Number.isFinite(date)) wait = Math.max(0, date - nowMs);
    }
  }
  return wait === null || !Number.isFinite(wait) ? null : Math.round(wait);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
