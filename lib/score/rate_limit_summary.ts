/**
 * The rate-limit columns of `metrics_summary.csv`: how often a system's
 * model calls were retried, which HTTP statuses the failed attempts got and
 * how long they waited, so that a throttled system is not mistaken for a
 * slow one. Read from the retry fields of the model steps and of a
 * question's model error (`lib/llm/retry_policy.ts`); the scripted mock
 * never retries, so its columns are 0.
 *
 * @module
 */

import type { QuestionResult, RetryFields } from "../types.ts";
import { percentile } from "./stats.ts";

/** The rate-limit columns of one system. */
export interface RateLimitSummary {
  /** Retries over all model calls of the system's lines. */
  retries: number;
  /** Failed attempts answered with HTTP 429. */
  http_429: number;
  /** Failed attempts answered with an HTTP status from 500 to 599. */
  http_5xx: number;
  /** Failed attempts answered with any other HTTP status (408, 409, 400, 401, ...). */
  http_other: number;
  /** Failed attempts that got no HTTP response (connection error, per-attempt timeout). */
  http_no_response: number;
  /** Seconds slept between attempts, summed over the lines. */
  backoff_s: number;
  /** Seconds waited for `model.rate_limit` before sending, summed over the lines. */
  throttle_s: number;
  /**
   * Median over lines of the line's `latency_ms` less its waits (`backoff_ms` and
   * `throttle_ms`); null with no lines.
   */
  p50_latency_ex_backoff_ms: number | null;
}

/** The columns, in `metrics_summary.csv` order. */
export const RATE_LIMIT_COLUMNS = [
  "retries",
  "http_429",
  "http_5xx",
  "http_other",
  "http_no_response",
  "backoff_s",
  "throttle_s",
  "p50_latency_ex_backoff_ms",
] as const satisfies ReadonlyArray<keyof RateLimitSummary>;

/** The rate-limit columns over `lines` (one system's). */
export function rateLimitSummary(lines: readonly QuestionResult[]): RateLimitSummary {
  const summary: RateLimitSummary = {
    retries: 0,
    http_429: 0,
    http_5xx: 0,
    http_other: 0,
    http_no_response: 0,
    backoff_s: 0,
    throttle_s: 0,
    p50_latency_ex_backoff_ms: null,
  };
  let backoffMs = 0;
  let throttleMs = 0;
  const exBackoff: number[] = [];
  for (const line of lines) {
    let lineBackoff = 0;
    let lineThrottle = 0;
    const add = (fields: Partial<RetryFields>) => {
      summary.retries += fields.retries ?? 0;
      lineBackoff += fields.backoff_ms ?? 0;
      lineThrottle += fields.throttle_ms ?? 0;
      for (const status of fields.http_statuses ?? []) {
        if (status === 0) summary.http_no_response++;
        else if (status === 429) summary.http_429++;
        else if (status >= 500 && status <= 599) summary.http_5xx++;
        else summary.http_other++;
      }
    };
    for (const step of line.steps) {
      if (step.type === "model" || step.type === "retrieval") add(step);
    }
    if (line.error !== null) add(line.error);
    backoffMs += lineBackoff;
    throttleMs += lineThrottle;
    exBackoff.push(Math.max(0, line.latency_ms - lineBackoff - lineThrottle));
  }
  summary.backoff_s = backoffMs / 1000;
  summary.throttle_s = throttleMs / 1000;
  summary.p50_latency_ex_backoff_ms = percentile(exBackoff, 50);
  return summary;
}
