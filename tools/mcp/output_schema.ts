/**
 * Checks an MCP tool's `structuredContent` against the tool's own
 * `outputSchema` — both written by the server, so both hostile — in bounded
 * time on the main thread. The MCP SDK's checker (Ajv) compiles every listed
 * tool's schema when the tools are listed and matches `pattern` with the
 * backtracking `RegExp`: a server declaring `"pattern": "^(a+)+$"` could hang
 * ragbench beyond any timeout or Ctrl-C, and 100,000 listed tools took a
 * minute to compile. Here nothing is compiled ahead: {@link compileOutputSchema}
 * only wraps the schema, and a check walks schema and value together:
 *
 * - `pattern` and `patternProperties` run on RE2 (lib/regex/re2.ts),
 *   linear in the text. A pattern RE2 cannot run (look-around,
 *   back-references) or that does not fit its memory is not checked.
 * - Every schema applied to a value is a step; a check past
 *   {@link MAX_CHECK_STEPS} steps, past {@link MAX_CHECK_DEPTH} levels, or
 *   whose regex work (text length × the pattern's automaton size) passes
 *   {@link MAX_REGEX_WORK} gives up, and so does one still running at its
 *   deadline: `too_costly`, never a hang. Equality (`const`, `enum`,
 *   `uniqueItems`) compares canonical JSON, whose length is counted too.
 * - Keywords: `type`, `enum`, `const`, the number, string, array and object
 *   keywords of JSON Schema 2020-12 and draft-07 (`items` as a list,
 *   `additionalItems`, `dependencies`, boolean `exclusiveMinimum`), `allOf`,
 *   `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, and `$ref` to a JSON pointer
 *   or `$anchor` in the same schema. Not checked: `format` (an annotation in
 *   2020-12), `unevaluated*`, `$dynamicRef`, references to other documents,
 *   and unknown keywords.
 *
 * @module
 */

import { canonicalJson } from "../../lib/util/canonical_json.ts";
import { compileRegexSync } from "../../lib/regex/re2.ts";
import { loadEngine, Re2MemoryError, re2Stats } from "../../lib/regex/re2_instance.ts";
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

/** What a check found. */
export type OutputCheckResult =
  | { ok: true }
  | { ok: false; reason: "mismatch"; message: string }
  | { ok: false; reason: "too_costly" | "timeout"; message: string };

/** A tool's output schema, ready to check values. */
export interface OutputCheck {
  /**
   * Checks `value`, giving up at `deadline` (a `performance.now()` time).
   * Loads the regex engine first when the schema has patterns. Never rejects.
   */
  check(value: unknown, deadline: number): Promise<OutputCheckResult>;
}

/** Wraps `schema` (nothing is compiled until a value is checked). */
export function compileOutputSchema(schema: unknown): OutputCheck {
  const patterns = new Map<string, Pattern | null>();
  const refs = new Map<string, unknown>();
  let needsEngine: boolean | undefined;
  return {
    async check(value, deadline) {
      try {
        // The engine (and Node compatibility under it) only for a schema that has patterns.
        needsEngine ??= /"pattern(Properties)?":/.test(JSON.stringify(schema) ?? "");
        if (needsEngine) await loadEngine();
        const run = new Run(schema, patterns, refs, deadline);
        const problem = run.check(schema, value, "", 0);
        return problem === null
          ? { ok: true }
          : { ok: false, reason: "mismatch", message: problem };
      } catch (error) {
        if (error instanceof GiveUp) {
          return { ok: false, reason: error.reason, message: error.message };
        }
        throw error;
      }
    },
  };
}

interface Pattern {
  regex: Re2Regex;
  /** Regex work per character matched. */
  weight: number;
}

class GiveUp extends Error {
  constructor(readonly reason: "too_costly" | "timeout", message: string) {
    super(message);
  }
}

type Schema = Record<string, unknown>;

/** One check: the counters of its budget. */
class Run {
  #steps = 0;
  #regexWork = 0;

  constructor(
    readonly root: unknown,
    readonly patterns: Map<string, Pattern | null>,
    readonly refs: Map<string, unknown>,
    readonly deadline: number,
  ) {}

  /** Why `value` (at `at`, a JSON pointer) does not match `schema`, or null. */
  check(schema: unknown, value: unknown, at: string, depth: number): string | null {
    if (++this.#steps > MAX_CHECK_STEPS) {
      throw new GiveUp("too_costly", `checking it took more than ${MAX_CHECK_STEPS} steps`);
    }
    if ((this.#steps & 1023) === 0) this.#checkTime();
    if (depth > MAX_CHECK_DEPTH) {
      throw new GiveUp("too_costly", `it is nested more than ${MAX_CHECK_DEPTH} levels deep`);
    }
    if (schema === false) return `${where(at)} is not allowed by the schema`;
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return null;
    const s = schema as Schema;
    const next = depth + 1;
    const ref = own(s, "$ref");
    if (typeof ref === "string") {
      const problem = this.check(this.#resolve(ref), value, at, next);
      if (problem !== null) return problem;
    }
    return this.#generic(s, value, at) ??
      this.#combined(s, value, at, next) ??
      (typeof value === "number" ? this.#number(s, value, at) : null) ??
      (typeof value === "string" ? this.#string(s, value, at) : null) ??
      (Array.isArray(value) ? this.#array(s, value, at, next) : null) ??
      (isObject(value) ? this.#object(s, value, at, next) : null);
  }

  #generic(s: Schema, value: unknown, at: string): string | null {
    const type = own(s, "type");
    if (type !== undefined) {
      const types = Array.isArray(type) ? type : [type];
      if (!types.some((t) => hasType(value, t))) {
        return `${where(at)} must be ${types.map(String).join(" or ")}, not ${typeOf(value)}`;
      }
    }
    if (Object.hasOwn(s, "const") && !this.#equal(value, s.const)) {
      return `${where(at)} must be the schema's constant`;
    }
    const options = own(s, "enum");
    if (Array.isArray(options) && !options.some((o) => this.#equal(value, o))) {
      return `${where(at)} must be one of the schema's ${options.length} values`;
    }
    return null;
  }

  #combined(s: Schema, value: unknown, at: string, depth: number): string | null {
    const allOf = own(s, "allOf");
    if (Array.isArray(allOf)) {
      for (const sub of allOf) {
        const problem = this.check(sub, value, at, depth);
        if (problem !== null) return problem;
      }
    }
    const anyOf = own(s, "anyOf");
    if (Array.isArray(anyOf) && !anyOf.some((sub) => this.check(sub, value, at, depth) === null)) {
      return `${where(at)} matches none of anyOf`;
    }
    const oneOf = own(s, "oneOf");
    if (Array.isArray(oneOf)) {
      let matches = 0;
      for (const sub of oneOf) if (this.check(sub, value, at, depth) === null) matches++;
      if (matches !== 1) return `${where(at)} matches ${matches} of oneOf, not exactly one`;
    }
    if (Object.hasOwn(s, "not") && this.check(s.not, value, at, depth) === null) {
      return `${where(at)} matches the schema under not`;
    }
    if (Object.hasOwn(s, "if")) {
      const branch = this.check(s.if, value, at, depth) === null ? "then" : "else";
      if (Object.hasOwn(s, branch)) return this.check(s[branch], value, at, depth);
    }
    return null;
  }

  #number(s: Schema, value: number, at: string): string | null {
    const min = num(s, "minimum");
    const max = num(s, "maximum");
    const exMin = own(s, "exclusiveMinimum");
    const exMax = own(s, "exclusiveMaximum");
    if (min !== undefined && (exMin === true ? value <= min : value < min)) {
      return `${where(at)} must be ${exMin === true ? "greater than" : "at least"} ${min}`;
    }
    if (max !== undefined && (exMax === true ? value >= max : value > max)) {
      return `${where(at)} must be ${exMax === true ? "less than" : "at most"} ${max}`;
    }
    if (typeof exMin === "number" && value <= exMin) {
      return `${where(at)} must be greater than ${exMin}`;
    }
    if (typeof exMax === "number" && value >= exMax) {
      return `${where(at)} must be less than ${exMax}`;
    }
    const step = num(s, "multipleOf");
    if (step !== undefined && step > 0) {
      const q = value / step;
      if (Number.isFinite(q) && Math.abs(q - Math.round(q)) > 1e-9) {
        return `${where(at)} must be a multiple of ${step}`;
      }
    }
    return null;
  }

  #string(s: Schema, value: string, at: string): string | null {
    const min = num(s, "minLength");
    const max = num(s, "maxLength");
    if (min !== undefined || max !== undefined) {
      this.#steps += value.length >> 10;
      const length = codePoints(value);
      if (min !== undefined && length < min) {
        return `${where(at)} must be at least ${min} characters`;
      }
      if (max !== undefined && length > max) {
        return `${where(at)} must be at most ${max} characters`;
      }
    }
    const pattern = own(s, "pattern");
    if (typeof pattern === "string" && this.#matches(pattern, value) === false) {
      return `${where(at)} does not match the schema's pattern`;
    }
    return null;
  }

  #array(s: Schema, value: unknown[], at: string, depth: number): string | null {
    const min = num(s, "minItems");
    const max = num(s, "maxItems");
    if (min !== undefined && value.length < min) {
      return `${where(at)} must have at least ${min} items`;
    }
    if (max !== undefined && value.length > max) {
      return `${where(at)} must have at most ${max} items`;
    }
    const prefix = own(s, "prefixItems");
    const items = own(s, "items");
    // 2020-12: prefixItems, then items for the rest; draft-07: items as a list, then additionalItems.
    const tuple = Array.isArray(prefix) ? prefix : Array.isArray(items) ? items : [];
    const rest = Array.isArray(prefix)
      ? items
      : Array.isArray(items)
      ? own(s, "additionalItems")
      : items;
    for (let i = 0; i < value.length; i++) {
      const sub = i < tuple.length ? tuple[i] : rest;
      if (sub === undefined) continue;
      const problem = this.check(sub, value[i], `${at}/${i}`, depth);
      if (problem !== null) return problem;
    }
    if (own(s, "uniqueItems") === true) {
      const seen = new Set<string>();
      for (let i = 0; i < value.length; i++) {
        const key = this.#canonical(value[i]);
        if (seen.has(key)) return `${where(at)} must not hold the same item twice (item ${i})`;
        seen.add(key);
      }
    }
    if (Object.hasOwn(s, "contains")) {
      let found = 0;
      for (const item of value) if (this.check(s.contains, item, at, depth) === null) found++;
      const least = num(s, "minContains") ?? 1;
      const most = num(s, "maxContains");
      if (found < least) return `${where(at)} must contain at least ${least} matching items`;
      if (most !== undefined && found > most) {
        return `${where(at)} must contain at most ${most} matching items`;
      }
    }
    return null;
  }

  #object(s: Schema, value: Schema, at: string, depth: number): string | null {
    const keys = Object.keys(value);
    const min = num(s, "minProperties");
    const max = num(s, "maxProperties");
    if (min !== undefined && keys.length < min) return `${where(at)} must have ${min}+ properties`;
    if (max !== undefined && keys.length > max) {
      return `${where(at)} must have at most ${max} properties`;
    }
    const required = own(s, "required");
    if (Array.isArray(required)) {
      for (const name of required) {
        this.#steps++;
        if (typeof name === "string" && !Object.hasOwn(value, name)) {
          return `${where(at)} lacks the required property ${JSON.stringify(name.slice(0, 100))}`;
        }
      }
    }
    const properties = objectOr(own(s, "properties"));
    const patterned = objectOr(own(s, "patternProperties"));
    const patternKeys = Object.keys(patterned);
    const additional = own(s, "additionalProperties");
    const names = own(s, "propertyNames");
    for (const key of keys) {
      const path = `${at}/${key.slice(0, 100)}`;
      if (names !== undefined) {
        const problem = this.check(names, key, path, depth);
        if (problem !== null) return `${where(path)}: its name does not fit propertyNames`;
      }
      let matched = false;
      if (Object.hasOwn(properties, key)) {
        matched = true;
        const problem = this.check(properties[key], value[key], path, depth);
        if (problem !== null) return problem;
      }
      for (const pattern of patternKeys) {
        if (this.#matches(pattern, key) !== true) continue;
        matched = true;
        const problem = this.check(patterned[pattern], value[key], path, depth);
        if (problem !== null) return problem;
      }
      if (!matched && additional !== undefined) {
        const problem = this.check(additional, value[key], path, depth);
        if (problem !== null) {
          return additional === false ? `${where(path)} is not an allowed property` : problem;
        }
      }
    }
    const dependent = objectOr(own(s, "dependentRequired"));
    const schemas = objectOr(own(s, "dependentSchemas"));
    const legacy = objectOr(own(s, "dependencies"));
    for (const key of keys) {
      this.#steps++;
      for (const needs of [dependent[key], legacy[key]]) {
        if (!Array.isArray(needs)) continue;
        for (const name of needs) {
          this.#steps++;
          if (typeof name === "string" && !Object.hasOwn(value, name)) {
            return `${where(at)} has ${JSON.stringify(key.slice(0, 100))} but lacks ${
              JSON.stringify(name.slice(0, 100))
            }`;
          }
        }
      }
      for (const sub of [schemas[key], legacy[key]]) {
        if (sub === undefined || Array.isArray(sub)) continue;
        const problem = this.check(sub, value, at, depth);
        if (problem !== null) return problem;
      }
    }
    return null;
  }

  /** Whether `text` matches `pattern` (RE2, unanchored); undefined when RE2 cannot run it. */
  #matches(pattern: string, text: string): boolean | undefined {
    let compiled = this.patterns.get(pattern);
    if (compiled === undefined) {
      compiled = compilePattern(pattern);
      this.patterns.set(pattern, compiled);
    }
    if (compiled === null) return undefined;
    const work = (text.length + 1) * compiled.weight;
    if (work > MAX_MATCH_WORK || this.#regexWork + work > MAX_REGEX_WORK) {
      throw new GiveUp("too_costly", "matching its patterns would take too long");
    }
    this.#checkTime();
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

  #equal(a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
      return false;
    }
    return this.#canonical(a) === this.#canonical(b);
  }

  /** Canonical JSON of `value`, its length counted as steps (a 1,000-character text is one). */
  #canonical(value: unknown): string {
    // Values and schemas come from JSON: no cycle or bigint can make this throw.
    const text = canonicalJson(value);
    this.#steps += 1 + (text.length >> 10);
    if (this.#steps > MAX_CHECK_STEPS) {
      throw new GiveUp("too_costly", `checking it took more than ${MAX_CHECK_STEPS} steps`);
    }
    return text;
  }

  #checkTime(): void {
    if (performance.now() > this.deadline) {
      throw new GiveUp("timeout", "the check did not finish within the call's time limit");
    }
  }

  /** The schema `ref` names in this document (a JSON pointer or an `$anchor`); true when unknown. */
  #resolve(ref: string): unknown {
    let target = this.refs.get(ref);
    if (target === undefined) {
      target = resolveRef(this.root, ref, () => this.#steps++) ?? true;
      this.refs.set(ref, target);
    }
    return target;
  }
}

function compilePattern(pattern: string): Pattern | null {
  if (pattern.length > MAX_PATTERN_CHARS) return null;
  const compiled = compileRegexSync(pattern, { caseSensitive: true, maxChars: MAX_PATTERN_CHARS });
  if (!compiled.ok) return null;
  const automaton = lineAutomaton(compiled.regex.re2Source, true);
  return { regex: compiled.regex, weight: Math.max(1, automaton?.size ?? MAX_NODES) };
}

/** `#`, `#/json/pointer` or `#anchor` in `root`; undefined when it names nothing found. */
function resolveRef(root: unknown, ref: string, step: () => void): unknown {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === "") return root;
  if (!fragment.startsWith("/")) return findAnchor(root, fragment, step);
  let node = root;
  for (const part of fragment.slice(1).split("/")) {
    step();
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Schema)[key];
  }
  return node;
}

/** The subschema whose `$anchor` is `name` (walked with a list, each node once). */
function findAnchor(root: unknown, name: string, step: () => void): unknown {
  const pending = [root];
  const seen = new Set<unknown>();
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    step();
    if (!Array.isArray(node) && (node as Schema).$anchor === name) return node;
    for (const child of Object.values(node)) pending.push(child);
  }
  return undefined;
}

function own(s: Schema, key: string): unknown {
  return Object.hasOwn(s, key) ? s[key] : undefined;
}

function num(s: Schema, key: string): number | undefined {
  const value = own(s, key);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function objectOr(value: unknown): Schema {
  return isObject(value) ? value : {};
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      // An unknown type name constrains nothing this checker knows how to tell.
      return true;
  }
}

function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

function where(at: string): string {
  return at === "" ? "the result" : `the result at ${at}`;
}
