/**
 * A small JSONPath subset for reading fields out of a server's JSON reply:
 * `$` (the value itself), `.name`, `['name']` / `["name"]` (any key, with
 * `\\`, `\'` and `\"` escapes) and `[n]` (an array index from 0). No
 * wildcards, filters or scripts: a path names exactly one place, so reading
 * it is linear in the path and can never run code (the `jsonpath` packages
 * that evaluate filter expressions have had remote-code-execution bugs).
 *
 * Only a value's own properties are read, and only from plain objects and
 * arrays: `$.__proto__`, `$.constructor` and `$.length` of a string read
 * nothing, never the prototype.
 *
 * @module
 */

/** One step of a path: a key of an object or an index of an array. */
export type PathStep = { key: string } | { index: number };

/** A parsed path: the text it was written as and its steps. */
export interface JsonPath {
  readonly text: string;
  readonly steps: readonly PathStep[];
}

/** Longest path accepted, in characters. */
export const MAX_PATH_CHARS = 500;

const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[A-Za-z0-9_$-]/;

/**
 * Parses `text` (it must start with `$`).
 *
 * @throws {SyntaxError} saying where and what is wrong.
 */
export function parseJsonPath(text: string): JsonPath {
  if (text.length > MAX_PATH_CHARS) {
    throw new SyntaxError(`a path is at most ${MAX_PATH_CHARS} characters`);
  }
  if (text[0] !== "$") throw new SyntaxError(`a path starts with "$" (e.g. $.results)`);
  const steps: PathStep[] = [];
  let i = 1;
  while (i < text.length) {
    const c = text[i];
    if (c === ".") {
      const start = ++i;
      if (i >= text.length || !IDENT_START.test(text[i])) {
        throw new SyntaxError(
          `expected a name after "." at character ${start} (use ['...'] for other keys)`,
        );
      }
      while (i < text.length && IDENT_PART.test(text[i])) i++;
      steps.push({ key: text.slice(start, i) });
      continue;
    }
    if (c === "[") {
      const quote = text[i + 1];
      if (quote === "'" || quote === '"') {
        let key = "";
        let j = i + 2;
        for (; j < text.length && text[j] !== quote; j++) {
          if (text[j] === "\\") {
            const next = text[j + 1];
            if (next !== "\\" && next !== "'" && next !== '"') {
              throw new SyntaxError(`unknown escape at character ${j + 1}`);
            }
            key += next;
            j++;
          } else key += text[j];
        }
        if (j >= text.length || text[j + 1] !== "]") {
          throw new SyntaxError(`unclosed [${quote}...${quote}] at character ${i + 1}`);
        }
        steps.push({ key });
        i = j + 2;
        continue;
      }
      const close = text.indexOf("]", i);
      const digits = close < 0 ? "" : text.slice(i + 1, close);
      if (!/^(0|[1-9][0-9]{0,8})$/.test(digits)) {
        throw new SyntaxError(
          `expected an index (a whole number) or a quoted key in [...] at character ${i + 1}`,
        );
      }
      steps.push({ index: Number(digits) });
      i = close + 1;
      continue;
    }
    throw new SyntaxError(`unexpected "${c}" at character ${i + 1}`);
  }
  return { text, steps };
}

/** The value at `path` in `value`; `undefined` when some step finds nothing. */
export function readJsonPath(value: unknown, path: JsonPath): unknown {
  let at: unknown = value;
  for (const step of path.steps) {
    if ("index" in step) {
      if (!Array.isArray(at) || step.index >= at.length) return undefined;
      at = at[step.index];
      continue;
    }
    if (!isPlainObject(at) || !Object.hasOwn(at, step.key)) return undefined;
    at = (at as Record<string, unknown>)[step.key];
  }
  return at;
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
