/**
 * The RE2 regular-expression engine (`npm:re2-wasm` 1.0.2), contained so that
 * hostile patterns and long runs cannot hurt the process. RE2 matches in time
 * linear in the text, so patterns such as `(a+)+$` cannot hang it.
 *
 * What this file guards against, each checked in tests/lib/regex/re2_test.ts:
 * - Loading needs no permission: the wasm bytes are imported as a module
 *   (`with { type: "bytes" }`, flag `--unstable-raw-imports`) and handed to the
 *   package's emscripten glue through a short-lived `fs.readFileSync` shim, so
 *   it works in a worker that has no read permission. Loading is lazy: nothing
 *   is loaded until the first pattern is compiled (Node's `fs` and `module`
 *   included, so a worker that never compiles one never starts Node
 *   compatibility).
 * - The wasm heap is 16 MiB and never grows. Compiled patterns are kept in a
 *   small LRU cache and freed (`delete()`) when dropped; a rejected pattern is
 *   freed at once (the package's own `RE2` class leaks it). Every few
 *   compilations a probe checks how high the heap is filled and swaps in a
 *   fresh instance before it is full.
 * - An out-of-memory abort inside the engine never escapes: the instance is
 *   discarded, a fresh one is loaded and the operation retried once; if it
 *   fails again it is reported as {@link Re2MemoryError}.
 * - Match positions are reported by the engine in code points (not UTF-16
 *   units); {@link Re2Match.index} says so.
 *
 * Patterns use RE2 syntax, plus the JavaScript spellings `\uXXXX`, `\u{...}`
 * and `(?<name>...)`; {@link compileRegex} first refuses what RE2 cannot do
 * (back-references, look-around; see re2_syntax.ts) with a message saying
 * what to do instead.
 *
 * @module
 */

import { type Re2Refusal, toLineMode, toRe2Syntax, vetPattern } from "./re2_syntax.ts";
import {
  compiledPattern,
  engineLoaded,
  loadEngine,
  Re2MemoryError,
  withEngine,
} from "./re2_instance.ts";

export type { Re2Refusal } from "./re2_syntax.ts";

/** A match found by {@link Re2Regex.search}. */
export interface Re2Match {
  /** Where the match starts, in code points from the start of the subject (not UTF-16 units). */
  index: number;
  /** The matched text. */
  text: string;
}

/** Options of {@link compileRegex}. */
export interface Re2Options {
  /** Default false: letters match either case. */
  caseSensitive?: boolean;
  /**
   * Default false. Rewrite the pattern with {@link toLineMode}, for subjects
   * that are several lines joined by `\n` and searched as separate lines.
   */
  lineMode?: boolean;
  /** Longest pattern accepted, in characters; default 200 (see re2_syntax.ts). */
  maxChars?: number;
}

/** Result of {@link compileRegex}. */
export type Re2Compiled = { ok: true; regex: Re2Regex } | Re2Refusal;

/**
 * Vets and compiles a pattern (JavaScript spellings accepted, see
 * {@link toRe2Syntax}). Loads the engine on first use.
 */
export async function compileRegex(
  pattern: string,
  options: Re2Options = {},
): Promise<Re2Compiled> {
  const refusal = vetPattern(pattern, options);
  if (refusal) return refusal;
  await loadEngine();
  return compileRegexSync(pattern, options);
}

/**
 * {@link compileRegex} without waiting, for synchronous callers (scoring)
 * that loaded the engine before ({@link loadEngine}, or any earlier
 * {@link compileRegex}).
 *
 * @throws {TypeError} when the engine was never loaded.
 */
export function compileRegexSync(pattern: string, options: Re2Options = {}): Re2Compiled {
  const refusal = vetPattern(pattern, options);
  if (refusal) return refusal;
  if (!engineLoaded()) {
    throw new TypeError("re2: call loadEngine() (or compileRegex) before compileRegexSync");
  }
  const caseSensitive = options.caseSensitive ?? false;
  const re2Source = toRe2Syntax(pattern);
  const regex = new Re2Regex(
    options.lineMode ? toLineMode(re2Source) : re2Source,
    caseSensitive,
    pattern,
  );
  let error: string | undefined;
  try {
    error = regex.compileError();
    if (error !== undefined && options.lineMode) {
      // Report the error against the pattern as written, not its rewrite.
      error = new Re2Regex(re2Source, caseSensitive).compileError() ?? error;
    }
  } catch (failure) {
    if (!(failure instanceof Re2MemoryError)) throw failure;
    return {
      ok: false,
      reason: "too_large",
      message: `The regex /${pattern}/ compiles to more than the regex engine's memory holds. ` +
        "Use fewer or smaller repetitions (e.g. {3} instead of {300}) and narrower classes, " +
        "or search plain words (regex: false).",
      detail: "it compiles to more than the regex engine's memory holds",
    };
  }
  if (error !== undefined) {
    return {
      ok: false,
      reason: "syntax",
      message: `Invalid regex /${pattern}/: ${error}. Patterns use RE2 syntax (no ` +
        "back-references or look-around); fix the pattern, or search plain words (regex: false).",
      detail: error,
    };
  }
  return { ok: true, regex };
}

/**
 * A compiled RE2 pattern. It holds no engine memory itself: the compiled form
 * lives in the engine's cache and is rebuilt when it was dropped or the
 * instance was replaced, so a handle stays valid for the whole process.
 */
export class Re2Regex {
  /** The pattern as given to {@link compileRegex}. */
  readonly source: string;
  /** The pattern after {@link toRe2Syntax}, as RE2 compiles it. */
  readonly re2Source: string;
  readonly caseSensitive: boolean;
  readonly #key: string;

  /** Use {@link compileRegex}; this constructor does not check the pattern. */
  constructor(re2Source: string, caseSensitive: boolean, source = re2Source) {
    this.source = source;
    this.re2Source = re2Source;
    this.caseSensitive = caseSensitive;
    this.#key = `${caseSensitive ? "s" : "i"}${re2Source}`;
  }

  /**
   * The first (leftmost) match in `subject`, or null. A Uint8Array subject is
   * UTF-8 text (faster: no conversion). Lone surrogates in a string subject
   * must be replaced first (`toWellFormed()`): the engine's string
   * conversion would swallow the unit after them.
   *
   * @throws {Re2MemoryError} when the engine runs out of memory on this
   * pattern and subject even after a fresh start.
   * @throws {SyntaxError} when the pattern does not compile.
   */
  search(subject: string | Uint8Array): Re2Match | null {
    const result = withEngine((module) => {
      const wrapped = compiledPattern(module, this.#key, this.re2Source, !this.caseSensitive);
      return wrapped.match(subject, 0, false);
    });
    return result.index < 0 ? null : { index: result.index, text: result.match };
  }

  /** Whether `subject` contains a match (see {@link search}). */
  test(subject: string | Uint8Array): boolean {
    return this.search(subject) !== null;
  }

  /** RE2's error for this pattern, or undefined when it compiles. */
  compileError(): string | undefined {
    try {
      withEngine((module) =>
        compiledPattern(module, this.#key, this.re2Source, !this.caseSensitive)
      );
      return undefined;
    } catch (error) {
      if (error instanceof SyntaxError) return error.message;
      throw error;
    }
  }
}
