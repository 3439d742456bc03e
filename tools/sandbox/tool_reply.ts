/**
 * What a custom tool's process may answer, seen from the host: how a
 * request ended (its reply, or the fault that left it without one), the
 * checks a result must pass (its shape, a plausible cost), and the error
 * result each fault becomes.
 *
 * @module
 */

import { z } from "zod";
import { TOOL_ERROR_KINDS } from "../../lib/types.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import type { SandboxMessage } from "./protocol.ts";
import { restoreProtoKeys, shieldProtoKeys } from "../../lib/util/proto_keys.ts";

/** The largest reply line the host accepts from a tool process, in bytes (8 MiB). */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;
/** The largest `cost_usd` one call may report, in US dollars. */
export const MAX_CALL_COST_USD = 1000;

/**
 * Why a request has no reply: the process wrote a line that is not the
 * awaited reply (`stray`), a line over {@link MAX_REPLY_BYTES} (`too_big`),
 * or its stdout ended (`exited`).
 */
export type Fault = { kind: "stray" } | { kind: "too_big" } | { kind: "exited" };

/** How a request ended: its reply, or why there is none. */
export type Reply = { kind: "message"; message: SandboxMessage } | Fault;

const resultSchema = z.strictObject({
  output: z.string(),
  data: z.json().optional(),
  error: z.strictObject({
    kind: z.enum(TOOL_ERROR_KINDS),
    message: z.string(),
    detail: z.string().optional(),
  }).nullable(),
  cost_usd: z.number().nullable(),
  result_ends: z.array(z.int().nonnegative()).optional(),
});

/** The reply's result when it is well-formed and its cost plausible; null otherwise. */
export function checkedResult(raw: unknown): RawToolResult | null {
  // zod drops `__proto__` keys from the result's data; shield them through the parse.
  const parsed = resultSchema.safeParse(shieldProtoKeys(raw));
  if (!parsed.success) return null;
  const result = restoreProtoKeys(parsed.data) as RawToolResult;
  const cost = result.cost_usd;
  // A custom tool prices its own calls: an unknown (null) cost would let it slip past the run's
  // cost cap, which only a built-in's unpriced embedding may do (refused up front when capped).
  if (cost === null) {
    return errorResult(
      "execution",
      "The tool failed unexpectedly.",
      "it reported cost_usd null; report the call's cost in US dollars (0 when it cost nothing)",
    );
  }
  if (!Number.isFinite(cost) || cost < 0 || cost > MAX_CALL_COST_USD) {
    return errorResult(
      "execution",
      "The tool failed unexpectedly.",
      `it reported cost_usd ${cost}, which is not between 0 and ${MAX_CALL_COST_USD} (US dollars a call)`,
    );
  }
  return result;
}

/** The error result of a reply that is not a well-formed result. */
export function malformed(): RawToolResult {
  return errorResult(
    "execution",
    "The tool failed unexpectedly.",
    "its process sent a malformed result",
  );
}

/**
 * A reply that is neither the awaited one nor an exit: a line too large, or
 * anything else the process wrote (a stray line, a message out of turn).
 */
export type Breach = Exclude<Reply, { kind: "exited" }>;

/** The error result of a call whose process wrote too much or out of turn. */
export function breachResult(breach: Breach): RawToolResult {
  if (breach.kind === "too_big") {
    return errorResult(
      "output_limit",
      `The tool's reply was larger than the ${
        MAX_REPLY_BYTES / 1024 / 1024
      } MiB a custom tool may send; return less.`,
      `its reply passed ${MAX_REPLY_BYTES} bytes`,
    );
  }
  return errorResult("execution", "The tool failed unexpectedly.", describeBreach(breach));
}

/** A breach in words (for load errors and result details). */
export function describeBreach(breach: Breach): string {
  if (breach.kind === "too_big") return `its reply passed ${MAX_REPLY_BYTES} bytes`;
  return "its process wrote a line to stdout that is not its reply (a tool must not write to stdout)";
}
