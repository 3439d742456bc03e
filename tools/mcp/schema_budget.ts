/**
 * The bounds of one output-schema check (see `output_schema.ts`): a step
 * count, a depth limit, regex work on RE2, and the call's deadline. When a
 * bound is passed, the check gives up with {@link GiveUp}: `too_costly`, or
 * `timeout` at the deadline, never a hang.
 *
 * @module
 */

import { canonicalJson } from "../../lib/util/canonical_json.ts";
import { compileRegexSync } from "../../lib/regex/re2.ts";
import { Re2MemoryError, re2Stats } from "../../lib/regex/re2_instance.ts";
import type { Re2Regex } from "../../lib/regex/re2.ts";
import { lineAutomaton, MAX_NODES } from "../../lib/regex/re2_automaton.ts";

/** Schemas applied to values in one check. */
export const MAX_CHECK_STEPS = 1_000_000;
/** Schemas nested in one another (through the value or `$ref`) in one check. */
export const MAX_CHECK_DEPTH = 200;
/**
 * Regex work of one check: characters matched × the size of the pattern's
 * automaton (RE2's worst case is about linear in both: ~0.44 µs a unit
 * measured here, so this is about 2 s at worst). A compilation counts
 * {@link COMPILE_WORK}: a schema with more patterns than the engine keeps
 * compiled makes it compile again and again (0.1–0.3 ms each).
 */
export const MAX_REGEX_WORK = 5_000_000;
/** Regex work a compilation counts for (at most 2,000 compilations a check). */
export const COMPILE_WORK = 2500;
/** Regex work of one match; a longer one is not started (it could not be interrupted). */
export const MAX_MATCH_WORK = 2_000_000;
/** Longest `pattern` RE2 is given (characters). */
const MAX_PATTERN_CHARS = 1000;

/** Why a check stopped before it could say whether the value fits. */
export class GiveUp extends Error {
  constructor(readonly reason: "too_costly" | "timeout", message: string) {
    super(message);
  }
}

/** A pattern compiled on RE2, with its cost. */
export interface Pattern {
  regex: Re2Regex;
  /** Regex work per character matched. */
  weight: number;
}

/**
 * The counters of one check. `patterns` caches compiled patterns across the
 * checks of one schema (null: RE2 cannot run the pattern).
 */
export class Budget {
  #steps = 0;
  #regexWork = 0;
  readonly #patterns: Map<string, Pattern | null>;
  readonly #deadline: number;

  constructor(patterns: Map<string, Pattern | null>, deadline: number) {
    this.#patterns = patterns;
    this.#deadline = deadline;
  }

  /**
   * Counts one schema applied to a value at `depth`; looks at the clock
   * every 1,024 steps.
   *
   * @throws {GiveUp} past {@link MAX_CHECK_STEPS} steps or {@link MAX_CHECK_DEPTH} levels.
   */
  enter(depth: number): void {
    if (++this.#steps > MAX_CHECK_STEPS) {
      throw new GiveUp("too_costly", `checking it took more than ${MAX_CHECK_STEPS} steps`);
    }
    if ((this.#steps & 1023) === 0) this.checkTime();
    if (depth > MAX_CHECK_DEPTH) {
      throw new GiveUp("too_costly", `it is nested more than ${MAX_CHECK_DEPTH} levels deep`);
    }
  }

  /** Counts `steps` of work that grows with the value (checked at the next {@link enter}). */
  add(steps: number): void {
    this.#steps += steps;
  }

  /**
   * Whether `text` matches `pattern` (RE2, unanchored); undefined when RE2
   * cannot run it.
   *
   * @throws {GiveUp} when the match would pass the regex-work budget, or at the deadline.
   */
  matches(pattern: string, text: string): boolean | undefined {
    let compiled = this.#patterns.get(pattern);
    if (compiled === undefined) {
      compiled = compilePattern(pattern);
      this.#patterns.set(pattern, compiled);
    }
    if (compiled === null) return undefined;
    const work = (text.length + 1) * compiled.weight;
    if (work > MAX_MATCH_WORK || this.#regexWork + work > MAX_REGEX_WORK) {
      throw new GiveUp("too_costly", "matching its patterns would take too long");
    }
    this.checkTime();
    const before = re2Stats().compilations;
    try {
      return compiled.regex.test(text.toWellFormed());
    } catch (error) {
      if (error instanceof Re2MemoryError) {
        throw new GiveUp("too_costly", "a text is too large for the regex engine");
      }
      throw error;
    } finally {
      // A pattern dropped from the engine's small cache is compiled again: that costs too.
      this.#regexWork += work + (re2Stats().compilations - before) * COMPILE_WORK;
    }
  }

  /**
   * Canonical JSON of `value`, its length counted as steps (a 1,000-character text is one).
   *
   * @throws {GiveUp} past {@link MAX_CHECK_STEPS} steps.
   */
  canonical(value: unknown): string {
    // Values and schemas come from JSON: no cycle or bigint can make this throw.
    const text = canonicalJson(value);
    this.#steps += 1 + (text.length >> 10);
    if (this.#steps > MAX_CHECK_STEPS) {
      throw new GiveUp("too_costly", `checking it took more than ${MAX_CHECK_STEPS} steps`);
    }
    return text;
  }

  /** @throws {GiveUp} (`timeout`) once the deadline has passed. */
  checkTime(): void {
    if (performance.now() > this.#deadline) {
      throw new GiveUp("timeout", "the check did not finish within the call's time limit");
    }
  }
}

function compilePattern(pattern: string): Pattern | null {
  if (pattern.length > MAX_PATTERN_CHARS) return null;
  const compiled = compileRegexSync(pattern, { caseSensitive: true, maxChars: MAX_PATTERN_CHARS });
  if (!compiled.ok) return null;
  const automaton = lineAutomaton(compiled.regex.re2Source, true);
  return { regex: compiled.regex, weight: Math.max(1, automaton?.size ?? MAX_NODES) };
}
