/**
 * The `iregex` answer check on the RE2 engine (lib/regex/re2.ts), the
 * same linear-time engine corpus_grep uses. The question's author writes the
 * pattern but the model writes the answer, so a backtracking engine would let
 * an answer hang scoring on the main thread (`(a+)+$` against forty `a` and a
 * `b`); RE2 matches in time linear in the answer.
 *
 * Patterns are RE2 syntax, matched case-insensitively, plus the JavaScript
 * spellings `\uXXXX`, `\u{...}` and `(?<name>...)`. What RE2 cannot run
 * (back-references, look-around) is refused when the questions load.
 *
 * @module
 */

import { compileRegex, compileRegexSync, type Re2Compiled } from "./re2.ts";
import { Re2MemoryError } from "./re2_instance.ts";

/** Longest `iregex` pattern accepted, in characters. */
export const IREGEX_MAX_CHARS = 1000;

/** How an `iregex` pattern is shown in details: `/pattern/i`. */
export function showIregex(pattern: string): string {
  return `/${pattern}/i`;
}

/**
 * Why `pattern` cannot be an `iregex` pattern, or null when RE2 runs it.
 * Loads the regex engine, which {@link matchIregex} then needs.
 */
export async function validateIregex(pattern: string): Promise<string | null> {
  return refusalOf(await compileRegex(pattern, { maxChars: IREGEX_MAX_CHARS }));
}

/** Outcome of {@link matchIregex}. */
export type IregexOutcome =
  | { kind: "match"; text: string }
  | { kind: "no_match" }
  | { kind: "invalid"; reason: string }
  | { kind: "too_large" };

/**
 * Matches `pattern` against `answer` (first match), never throwing for a
 * pattern or answer: an invalid pattern and an answer too large for the
 * engine's memory are outcomes.
 *
 * @throws {TypeError} when the engine was never loaded: question loading
 *   loads it ({@link validateIregex}); other callers await `loadEngine()`.
 */
export function matchIregex(pattern: string, answer: string): IregexOutcome {
  const compiled = compileRegexSync(pattern, { maxChars: IREGEX_MAX_CHARS });
  if (!compiled.ok) return { kind: "invalid", reason: refusalOf(compiled)! };
  try {
    // Lone surrogates would make the engine's string conversion swallow a unit.
    const match = compiled.regex.search(answer.toWellFormed());
    return match === null ? { kind: "no_match" } : { kind: "match", text: match.text };
  } catch (error) {
    if (error instanceof Re2MemoryError) return { kind: "too_large" };
    throw error;
  }
}

function refusalOf(compiled: Re2Compiled): string | null {
  if (compiled.ok) return null;
  switch (compiled.reason) {
    case "syntax":
      return `${compiled.detail} (iregex patterns use RE2 syntax)`;
    case "unsupported":
      return `${compiled.detail}: iregex runs on RE2, which matches in linear time and so ` +
        "cannot do this";
    default:
      return compiled.detail;
  }
}
