/**
 * The mechanical answer checks: pure functions from a check, the final answer
 * and the trace steps to a {@link CheckResult} whose `detail` says why, in a
 * few words.
 *
 * Rules every check follows:
 *
 * - A missing answer fails every answer-text check (`numeric_equals`,
 *   `contains`, `icontains`, `not_contains`, `iregex`, `equals`,
 *   `exact_match`, `token_f1`) with detail
 *   `no answer`; a blank one (empty or only whitespace) with `empty answer`.
 *   `not_contains` fails too: saying nothing must not score.
 * - Tool checks (`min_tool_calls`, `max_tool_calls`, `tool_used`) read only
 *   the steps, so they evaluate with or without an answer. Every tool step
 *   counts as a call, failed ones included (bad arguments, unknown tool,
 *   timeout): the model spent a turn on it. A retrieval step of a system
 *   that retrieves itself (`rag`, `retrieval_only`) counts as one call of
 *   `search`, so "searched at least once" means the same for every system.
 *
 * @module
 */

import type { Check } from "../data/question_schema.ts";
import type { CheckResult, Step } from "../types.ts";
import { matchIregex, showIregex } from "../regex/iregex.ts";
import { extractNumbers } from "./numbers.ts";
import { bestOver, exactMatch, tokenF1 } from "./squad.ts";

/** Longest quoted value or answer shown in a detail before it is cut. */
const QUOTE_LIMIT = 80;
/** Most distinct numbers listed in a failed `numeric_equals` detail. */
const NUMBERS_LISTED = 10;

/**
 * Runs one check on an answer (`null` when the system produced none) and the
 * question's trace steps. Never throws for a check or an answer: an invalid
 * `iregex` pattern fails the check with the engine's message. `iregex` runs on
 * the RE2 engine (linear time), which must be loaded first: question loading
 * does it; see iregex.ts.
 */
export function runCheck(check: Check, answer: string | null, steps: Step[]): CheckResult {
  const type = check.type;
  switch (check.type) {
    case "min_tool_calls":
    case "max_tool_calls":
    case "tool_used":
      return { type, ...toolCheck(check, toolSteps(steps)) };
    default: {
      if (answer === null) return { type, passed: false, detail: "no answer" };
      if (answer.trim() === "") return { type, passed: false, detail: "empty answer" };
      return { type, ...answerCheck(check, answer) };
    }
  }
}

/** Runs every check of a question, in order. See {@link runCheck}. */
export function runChecks(
  checks: readonly Check[],
  answer: string | null,
  steps: Step[],
): CheckResult[] {
  return checks.map((check) => runCheck(check, answer, steps));
}

/**
 * Case folding for `icontains` and `not_contains`: NFKC normalisation, then
 * `String.prototype.toLowerCase` (locale-independent), applied to both sides.
 * NFKC makes full-width letters and ligatures (`ﬁ`) match their plain forms;
 * lower-casing is not full case folding (`ß` does not match `SS`).
 */
export function foldCase(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

type Outcome = Omit<CheckResult, "type">;
type AnswerCheck = Exclude<Check, { type: "min_tool_calls" | "max_tool_calls" | "tool_used" }>;
type ToolCheck = Extract<Check, { type: "min_tool_calls" | "max_tool_calls" | "tool_used" }>;

function answerCheck(check: AnswerCheck, answer: string): Outcome {
  switch (check.type) {
    case "numeric_equals":
      return numericEquals(check.value, check.tolerance, answer);
    case "contains":
      return answer.includes(check.value)
        ? pass(`${quote(check.value)} appears in the answer`)
        : fail(
          `${quote(check.value)} does not appear in the answer` +
            (foldCase(answer).includes(foldCase(check.value)) ? " (it does ignoring case)" : ""),
        );
    case "icontains":
      return foldCase(answer).includes(foldCase(check.value))
        ? pass(`${quote(check.value)} appears in the answer (ignoring case)`)
        : fail(`${quote(check.value)} does not appear in the answer, even ignoring case`);
    case "not_contains":
      return foldCase(answer).includes(foldCase(check.value))
        ? fail(`${quote(check.value)} appears in the answer`)
        : pass(`${quote(check.value)} does not appear in the answer in any case`);
    case "iregex":
      return iregex(check.pattern, answer);
    case "equals":
      return equals(check.value, answer);
    case "exact_match":
      return exactMatchOutcome(check.answers ?? [], answer);
    case "token_f1":
      return tokenF1Outcome(check.answers ?? [], check.threshold, answer);
  }
}

/** Passes when the answer equals a gold answer after SQuAD normalisation (see `squad.ts`). */
function exactMatchOutcome(golds: readonly string[], answer: string): Outcome {
  if (golds.length === 0) return fail("no gold answers to compare with");
  const best = bestOver(exactMatch, answer, golds);
  return best.score === 1
    ? pass(`normalised answer equals gold ${quote(best.gold!)}`)
    : fail(`normalised answer matches none of ${plural(golds.length, "gold answer")}`);
}

/** Passes when the best token F1 over the gold answers reaches `threshold`. */
function tokenF1Outcome(golds: readonly string[], threshold: number, answer: string): Outcome {
  if (golds.length === 0) return fail("no gold answers to compare with");
  const best = bestOver(tokenF1, answer, golds);
  const detail = `F1 ${best.score.toFixed(4)} against gold ${
    quote(best.gold!)
  } (pass at ≥ ${threshold})`;
  return best.score >= threshold ? pass(detail) : fail(detail);
}

/**
 * Passes when some number in the answer is within `tolerance` of `value`,
 * plus a relative epsilon of 1e-9 × max(1, |value|) so that float noise
 * (0.1 + 0.2) never decides a check.
 */
function numericEquals(value: number, tolerance: number, answer: string): Outcome {
  const numbers = extractNumbers(answer);
  const slack = tolerance + 1e-9 * Math.max(1, Math.abs(value));
  const hit = numbers.find((n) => Math.abs(n - value) <= slack);
  if (hit !== undefined) return pass(`found ${hit} (want ${value} ± ${tolerance})`);
  const want = tolerance === 0
    ? `no number equal to ${value}`
    : `no number within ${tolerance} of ${value}`;
  if (numbers.length === 0) return fail(`${want}; no numbers in the answer`);
  const distinct = [...new Set(numbers)];
  const listed = distinct.slice(0, NUMBERS_LISTED).join(", ");
  const more = distinct.length > NUMBERS_LISTED
    ? ` and ${distinct.length - NUMBERS_LISTED} more`
    : "";
  return fail(`${want}; numbers seen: ${listed}${more}`);
}

function iregex(pattern: string, answer: string): Outcome {
  const shown = showIregex(cut(pattern));
  const outcome = matchIregex(pattern, answer);
  switch (outcome.kind) {
    case "match":
      return pass(`${shown} matches ${quote(outcome.text)}`);
    case "no_match":
      return fail(`${shown} does not match the answer`);
    case "invalid":
      return fail(`invalid pattern ${shown}: ${outcome.reason}`);
    case "too_large":
      return fail(
        `${shown} could not be matched: the answer (${answer.length} characters) is too ` +
          "large for the regex engine",
      );
  }
}

/**
 * Compares the trimmed answer with the trimmed value, exactly (case, accents
 * and inner spaces count). One trailing period of the answer is ignored when
 * the value does not end with one, since models end sentences: `Paris.`
 * equals `Paris`.
 */
function equals(value: string, answer: string): Outcome {
  const want = value.trim();
  const got = answer.trim();
  if (got === want) return pass(`answer is exactly ${quote(want)}`);
  if (!want.endsWith(".") && got.endsWith(".") && got.slice(0, -1).trimEnd() === want) {
    return pass(`answer is exactly ${quote(want)} (ignoring a final period)`);
  }
  const caseOnly = foldCase(got) === foldCase(want) ? " (differs only in case)" : "";
  return fail(`answer ${quote(got)} is not exactly ${quote(want)}${caseOnly}`);
}

/** A call as the tool checks see it. */
interface Call {
  tool: string;
}

function toolCheck(check: ToolCheck, calls: Call[]): Outcome {
  const count = calls.length;
  switch (check.type) {
    case "min_tool_calls": {
      const detail = `${plural(count, "tool call")} (need at least ${check.value})`;
      return count >= check.value ? pass(detail) : fail(detail);
    }
    case "max_tool_calls": {
      const detail = `${plural(count, "tool call")} (allowed at most ${check.value})`;
      return count <= check.value ? pass(detail) : fail(detail);
    }
    case "tool_used": {
      const uses = calls.filter((step) => step.tool === check.tool).length;
      if (uses > 0) return pass(`tool ${quote(check.tool)} called ${plural(uses, "time")}`);
      const called = [...new Set(calls.map((step) => step.tool))];
      const seen = called.length === 0 ? "no tools called" : `called: ${called.join(", ")}`;
      return fail(`tool ${quote(check.tool)} not called; ${seen}`);
    }
  }
}

function toolSteps(steps: Step[]): Call[] {
  const calls: Call[] = [];
  for (const step of steps) {
    if (step.type === "tool") calls.push({ tool: step.tool });
    else if (step.type === "retrieval") calls.push({ tool: "search" });
  }
  return calls;
}

function pass(detail: string): Outcome {
  return { passed: true, detail };
}

function fail(detail: string): Outcome {
  return { passed: false, detail };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** `text` as a JSON string literal, cut to {@link QUOTE_LIMIT} characters. */
function quote(text: string): string {
  return JSON.stringify(cut(text));
}

function cut(text: string): string {
  const chars = [...text];
  return chars.length <= QUOTE_LIMIT ? text : chars.slice(0, QUOTE_LIMIT - 1).join("") + "…";
}
