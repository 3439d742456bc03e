/**
 * Pattern text for the RE2 engine (re2.ts), handled without the engine:
 * - {@link vetPattern} refuses what RE2 cannot do or what is too long, with a
 *   message saying what to do instead;
 * - {@link toRe2Syntax} accepts the JavaScript spellings RE2 does not know;
 * - {@link toLineMode} rewrites a pattern for subjects of several lines.
 *
 * All functions walk the pattern once, respecting escapes, `\Q...\E` and
 * character classes. The text every match must contain, for skipping lines
 * without running the engine, is found by re2_prefilter.ts.
 *
 * @module
 */

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_CHARS = 200;

/** A pattern refused before or by compilation. */
export type Re2Refusal = {
  ok: false;
  /**
   * `too_long` / `unsupported`: refused before compiling; `syntax`: RE2
   * rejected it; `too_large`: its compiled form does not fit the engine's memory.
   */
  reason: "too_long" | "unsupported" | "syntax" | "too_large";
  /** A sentence for the model: what is wrong and what to do. */
  message: string;
  /** What is wrong, without advice (for messages that give their own). */
  detail: string;
};

/** Options of {@link vetPattern}. */
export interface VetOptions {
  /** Longest pattern accepted, in characters; default {@link MAX_PATTERN_CHARS}. */
  maxChars?: number;
}

/**
 * Checks a pattern against what RE2 cannot or should not do, before compiling.
 * Returns the refusal, or undefined when the pattern may go to the engine.
 */
export function vetPattern(pattern: string, options: VetOptions = {}): Re2Refusal | undefined {
  const maxChars = options.maxChars ?? MAX_PATTERN_CHARS;
  if (pattern.length > maxChars) {
    return {
      ok: false,
      reason: "too_long",
      message: `The regex is ${pattern.length} characters long; at most ${maxChars} ` +
        "are allowed. Use a shorter pattern, or plain words (regex: false).",
      detail: `the pattern is ${pattern.length} characters long; at most ${maxChars} are allowed`,
    };
  }
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (next === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        if (end < 0) break;
        i = end + 1;
        continue;
      }
      if (next >= "1" && next <= "9" || (next === "k" && pattern[i + 2] === "<")) {
        return unsupported(
          `back-references such as \\${next === "k" ? "k<name>" : next} are not supported`,
          "repeat the text explicitly instead, or search plain words (regex: false)",
        );
      }
      if (next === "C") {
        return unsupported(
          "\\C (any single byte) is not supported",
          "use . to match any character",
        );
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === "[" && pattern[i + 1] === ":") {
        const end = pattern.indexOf(":]", i + 2);
        if (end > 0) i = end + 1;
      } else if (c === "]") {
        inClass = false;
      }
      continue;
    }
    if (c === "[") {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal, not the end of the class.
      if (pattern[i + 1] === "^") i++;
      if (pattern[i + 1] === "]") i++;
      continue;
    }
    if (c === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i + 2, i + 4);
      if (rest.startsWith("=") || rest.startsWith("!") || rest === "<=" || rest === "<!") {
        const behind = rest.startsWith("<");
        return unsupported(
          `look-${behind ? "behind" : "ahead"} such as "${
            pattern.slice(i, i + (behind ? 4 : 3))
          }...)" is not supported`,
          "match the surrounding text as part of the pattern instead, or search plain words " +
            "(regex: false)",
        );
      }
    }
  }
  return undefined;
}

function unsupported(what: string, instead: string): Re2Refusal {
  return {
    ok: false,
    reason: "unsupported",
    message: `Regex not accepted: ${what}. The regex engine is RE2, which guarantees ` +
      `linear-time matching and so cannot do this; ${instead}.`,
    detail: what,
  };
}

/** The index just past the `\Q...\E` literal that starts at `i` (the end of the pattern if unclosed). */
function quotedEnd(pattern: string, i: number): number {
  const end = pattern.indexOf("\\E", i + 2);
  return end < 0 ? pattern.length : end + 2;
}

/**
 * Rewrites the JavaScript spellings RE2 does not know into RE2 syntax:
 * `\uXXXX` and `\u{X...}` become `\x{...}`, `(?<name>` becomes `(?P<name>`.
 * Escapes, `\Q...\E` and character classes are respected.
 */
export function toRe2Syntax(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (next === "Q") {
        const stop = quotedEnd(pattern, i);
        out += pattern.slice(i, stop);
        i = stop - 1;
        continue;
      }
      if (next === "u") {
        const hex = /^[0-9a-fA-F]{4}/.exec(pattern.slice(i + 2, i + 6));
        if (hex) {
          out += `\\x{${hex[0]}}`;
          i += 5;
          continue;
        }
        const braced = /^\{[0-9a-fA-F]{1,6}\}/.exec(pattern.slice(i + 2, i + 10));
        if (braced) {
          out += `\\x${braced[0]}`;
          i += 1 + braced[0].length;
          continue;
        }
      }
      out += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") out += pattern[++i];
      continue;
    }
    if (c === "(" && pattern.startsWith("?<", i + 1) && /[A-Za-z_]/.test(pattern[i + 3] ?? "")) {
      out += "(?P<";
      i += 2;
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * Rewrites an RE2 pattern so that, on a subject of several lines joined by
 * `\n`, it finds exactly the matches it would find on each line alone, and
 * (nearly always) no match that crosses a line end:
 * - `^`, `$`, `\A`, `\z` become `(?m:^)` / `(?m:$)`: start and end of a line,
 *   whatever flags the pattern sets;
 * - `.` becomes `[^\n]` (also under `(?s)`), `[^...]` becomes `[^\n...]`, and
 *   `\s` becomes `[\t\f\r ]` (`\t\f\r ` inside a class).
 * A line never contains `\n`, so none of this changes what matches inside a
 * line. Other ways to match `\n` (`\n`, `\D`, `\pC`, ...) are left alone: a
 * match containing `\n` must be re-checked on its line by the caller.
 */
export function toLineMode(pattern: string): string {
  let out = "";
  let inClass = false;
  let negated = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (next === "Q") {
        const stop = quotedEnd(pattern, i);
        out += pattern.slice(i, stop);
        i = stop - 1;
        continue;
      }
      i++;
      if (!inClass && (next === "A" || next === "z")) out += next === "A" ? "(?m:^)" : "(?m:$)";
      else if (next === "s" && inClass && !negated) {
        out += "\\t\\f\\r ";
        // `\s-z` is \s, "-" and "z"; after the expansion "-" would make the range " -z".
        if (pattern[i + 1] === "-") {
          out += "\\-";
          i++;
        }
      } else if (next === "s" && !inClass) out += "[\\t\\f\\r ]";
      else out += c + next;
      continue;
    }
    if (inClass) {
      if (c === "[" && pattern[i + 1] === ":") {
        const end = pattern.indexOf(":]", i + 2);
        if (end > 0) {
          out += pattern.slice(i, end + 2);
          i = end + 1;
          continue;
        }
      }
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      negated = pattern[i + 1] === "^";
      out += negated ? "[^\\n" : "[";
      if (negated) {
        i++;
        // After the inserted "\n", a leading "]" would close the class and a "-" make a range.
        if (pattern[i + 1] === "]" || pattern[i + 1] === "-") out += `\\${pattern[++i]}`;
      } else if (pattern[i + 1] === "]") out += pattern[++i];
      continue;
    }
    if (c === "^") out += "(?m:^)";
    else if (c === "$") out += "(?m:$)";
    else if (c === ".") out += "[^\\n]";
    else out += c;
  }
  return out;
}

/**
 * The code point of a `\x41` or `\x{1F600}` escape whose hex digits start at `at` (just after
 * the `x`), and how many characters they take; null when the escape is malformed or past
 * U+10FFFF. One character, never text: its digits are not part of the pattern's literals.
 */
export function hexEscape(pattern: string, at: number): { code: number; length: number } | null {
  const m = /^\{([0-9A-Fa-f]{1,6})\}|^[0-9A-Fa-f]{2}/.exec(pattern.slice(at, at + 9));
  if (!m) return null;
  const code = parseInt(m[1] ?? m[0], 16);
  return code > 0x10ffff ? null : { code, length: m[0].length };
}
