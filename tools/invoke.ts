/**
 * Runs one tool definition on raw model arguments and turns whatever happens
 * into a result: validation failures, exceptions and malformed return values
 * all become an error result. Used by every execution host (in-process,
 * worker, subprocess), so a tool behaves the same wherever it runs.
 *
 * @module
 */

import type { z } from "zod";
import type { JsonValue, ToolError, ToolErrorKind } from "../lib/types.ts";
import { restoreProtoKey, restoreProtoKeys, shieldProtoKeys } from "../lib/util/proto_keys.ts";
import { isToolReturnValue, type ToolContext, type ToolDef } from "./define_tool.ts";

/** The part of a tool result that the tool itself decides (no timing, no truncation). */
export interface RawToolResult {
  output: string;
  data?: JsonValue;
  error: ToolError | null;
  /** US dollars; null when the call had a cost that could not be priced. */
  cost_usd: number | null;
  /** Where each `data.results[i]` ends in `output` (see `ToolReturnValue.result_ends`). */
  result_ends?: number[];
}

/** What the model reads when a tool throws: never the exception's own text. */
export const GENERIC_FAILURE =
  "The tool failed unexpectedly. Try different arguments or another tool.";

/** What the model reads when a tool reaches for a permission its side effects do not grant. */
export const PERMISSION_FAILURE =
  "The tool tried to do something it is not permitted to (its declared side effects do not allow it).";

/**
 * Validates `args` with the tool's schema, runs it, and normalises the return
 * value. Never throws. A `__proto__` key in the arguments is kept as an
 * ordinary key (see proto_keys.ts), never dropped.
 */
export async function invokeTool(
  def: ToolDef,
  args: unknown,
  ctx: ToolContext,
): Promise<RawToolResult> {
  const given = shieldProtoKeys(dropNulls(args ?? {}));
  const parsed = def.parameters.safeParse(given);
  if (!parsed.success) {
    return errorResult("invalid_args", describeArgIssues(def, parsed.error, given));
  }
  let value: unknown;
  try {
    value = await def.run(restoreProtoKeys(parsed.data), ctx);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return errorResult("permission", PERMISSION_FAILURE, describeException(error));
    }
    return errorResult("execution", GENERIC_FAILURE, describeException(error));
  }
  return normalizeReturn(def.name, value);
}

/** Turns a tool's return value into a result; a value that cannot be sent to a model is an error. */
export function normalizeReturn(toolName: string, value: unknown): RawToolResult {
  if (typeof value === "string") return { output: value, error: null, cost_usd: 0 };
  if (isToolReturnValue(value)) {
    const cost = value.cost_usd === undefined ? 0 : value.cost_usd;
    if (cost !== null && (typeof cost !== "number" || !Number.isFinite(cost) || cost < 0)) {
      return errorResult(
        "execution",
        GENERIC_FAILURE,
        `tool "${toolName}" returned a bad cost_usd`,
      );
    }
    if (value.error) {
      return {
        output: "",
        error: {
          kind: value.error.kind,
          message: value.error.message,
          ...(value.error.detail ? { detail: value.error.detail } : {}),
        },
        cost_usd: cost,
      };
    }
    let data: JsonValue | undefined;
    if (value.data !== undefined) {
      const checked = toJson(value.data);
      if (!checked.ok) {
        return errorResult("execution", GENERIC_FAILURE, `tool "${toolName}": data ${checked.why}`);
      }
      data = checked.value;
    }
    const output = value.output ?? (data === undefined ? "" : JSON.stringify(data));
    if (typeof output !== "string") {
      return errorResult(
        "execution",
        GENERIC_FAILURE,
        `tool "${toolName}": output is not a string`,
      );
    }
    const ends = resultEnds(value.result_ends, data, output.length);
    return {
      output,
      ...(data === undefined ? {} : { data }),
      error: null,
      cost_usd: cost,
      ...(ends === undefined ? {} : { result_ends: ends }),
    };
  }
  const checked = toJson(value);
  if (!checked.ok) {
    return errorResult(
      "execution",
      `The tool returned a value that cannot be shown (${checked.why}).`,
      `tool "${toolName}" returned a value that ${checked.why}`,
    );
  }
  return { output: JSON.stringify(checked.value), data: checked.value, error: null, cost_usd: 0 };
}

/**
 * `result_ends` when it describes `data.results` (one ascending offset per
 * result, each within the output); otherwise undefined, and an output over
 * the limit is cut by characters as any other.
 */
export function resultEnds(
  ends: unknown,
  data: JsonValue | undefined,
  outputLength: number,
): number[] | undefined {
  if (!Array.isArray(ends)) return undefined;
  const results = data !== null && typeof data === "object" && !Array.isArray(data)
    ? data.results
    : undefined;
  if (!Array.isArray(results) || results.length !== ends.length) return undefined;
  let previous = 0;
  for (const end of ends) {
    if (!Number.isInteger(end) || end < previous || end > outputLength) return undefined;
    previous = end;
  }
  return [...ends];
}

/** A failed result: `message` for the model, `detail` for the log only. */
export function errorResult(kind: ToolErrorKind, message: string, detail?: string): RawToolResult {
  return { output: "", error: { kind, message, ...(detail ? { detail } : {}) }, cost_usd: 0 };
}

type JsonCheck = { ok: true; value: JsonValue } | { ok: false; why: string };

/** Checks a value is plain JSON (no undefined, functions, cycles, NaN); copies it. */
function toJson(value: unknown): JsonCheck {
  if (value === undefined) {
    return { ok: false, why: "is undefined (return a string or a JSON value)" };
  }
  const seen = new Set<object>();
  const visit = (v: unknown): JsonValue => {
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new Error("contains a non-finite number");
      return v;
    }
    if (typeof v !== "object") throw new Error(`contains a ${typeof v}`);
    if (seen.has(v)) throw new Error("is cyclic");
    seen.add(v);
    try {
      if (Array.isArray(v)) return v.map(visit);
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        throw new Error(`contains a ${proto?.constructor?.name ?? "non-plain"} object`);
      }
      const out: Record<string, JsonValue> = {};
      for (const [k, item] of Object.entries(v)) {
        if (item === undefined) continue;
        if (k === "__proto__") {
          // defineProperty: a "__proto__" key stays a plain key (assigning it sets the prototype).
          Object.defineProperty(out, k, {
            value: visit(item),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else {
          // A plain assignment for every other key: defineProperty is several times slower, and
          // this copies every search result of a run.
          out[k] = visit(item);
        }
      }
      return out;
    } finally {
      seen.delete(v);
    }
  };
  try {
    return { ok: true, value: visit(value) };
  } catch (error) {
    return { ok: false, why: (error as Error).message };
  }
}

/**
 * Models often send `null` for an optional argument they mean to leave out;
 * top-level nulls are treated as absent (a required argument then reads as
 * missing).
 */
function dropNulls(args: unknown): unknown {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
}

/** One readable sentence per argument problem, naming the parameter and what it expects. */
export function describeArgIssues(def: ToolDef, error: z.ZodError, given?: unknown): string {
  const parts = error.issues.map((issue) => {
    const path = issue.path.map((p) => typeof p === "string" ? restoreProtoKey(p) : String(p));
    const where = path.length ? `"${path.join(".")}"` : "arguments";
    if (issue.code === "unrecognized_keys") {
      const known = Object.keys(def.parameters.shape).join(", ");
      const keys = issue.keys.map((k) => `"${restoreProtoKey(k)}"`).join(", ");
      return `unknown argument ${keys} (expected: ${known})`;
    }
    if (issue.path.length === 1 && isMissing(given, String(issue.path[0]))) {
      const choices = issue.code === "invalid_value"
        ? ` (one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")})`
        : "";
      return `missing required argument ${where}${choices}`;
    }
    return `${where}: ${issue.message}`;
  });
  return `Invalid arguments for ${def.name}: ${parts.join("; ")}.`;
}

function isMissing(given: unknown, key: string): boolean {
  return given !== null && typeof given === "object" && !Object.hasOwn(given, key);
}

function describeException(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `thrown value: ${String(error)}`;
}
