/**
 * YAML parsing that remembers where every value stands, so errors can name
 * file, line and column; and mapping of zod validation issues to those
 * positions with did-you-mean hints.
 *
 * @module
 */

import { load as fastLoad } from "js-yaml";
import type { Node } from "yaml";
import { yamlLibrary } from "./yaml_library.ts";
import type { z } from "zod";
import type { ConfigIssue, SourcePosition } from "../errors.ts";
import { suggestion } from "./did_you_mean.ts";
import { restoreProtoKey } from "./proto_keys.ts";
import { inlineAliases } from "./yaml_aliases.ts";
import { withoutEnvironment } from "./node_env.ts";

/** A path into a parsed value: object keys and array indexes. */
export type ValuePath = ReadonlyArray<string | number>;

/** A parsed YAML file with what is needed to locate its values. */
export interface YamlSource {
  /** File name as shown in messages. */
  file: string;
  /** The parsed value (plain JS). */
  value: unknown;
  /** Position of the value at `path` (or its key, for `key: true`); falls back to the nearest ancestor. */
  positionOf(path: ValuePath, options?: { key?: boolean }): SourcePosition;
}

/**
 * Parses YAML text (YAML 1.2, core schema, duplicate keys refused). Syntax
 * errors, and aliases that form a cycle or expand the file past its budget
 * (see yaml_aliases.ts), are returned as issues with their positions (the
 * value is then undefined).
 *
 * Two parsers, for speed: `js-yaml` builds the value about 15 times faster
 * than `yaml` (a 22 MB question file: 1.4 s against 18 s), but keeps no
 * positions. So a document without aliases is read by `js-yaml`, and `yaml`
 * parses it again only when a position is asked for (an error is being
 * reported). A document `js-yaml` refuses (a syntax error, an alias, nesting
 * past 100 levels) is read by `yaml` alone, whose messages and positions the
 * issues then carry.
 */
export function parseYaml(
  text: string,
  file: string,
): { source: YamlSource; issues: ConfigIssue[] } {
  let value: unknown;
  try {
    value = fastLoad(text, { maxAliases: 0 });
  } catch {
    return parseYamlWithPositions(text, file);
  }
  let located: YamlSource | undefined;
  const positionOf = (path: ValuePath, options?: { key?: boolean }): SourcePosition => {
    located ??= parseYamlWithPositions(text, file).source;
    return located.positionOf(path, options);
  };
  return { source: { file, value, positionOf }, issues: [] };
}

/** V8's message for a stack overflow, which the `yaml` parser reports as a syntax error. */
const STACK_OVERFLOW = /Maximum call stack size exceeded/;

/** {@link parseYaml} with the `yaml` library alone: slower, with positions. */
export function parseYamlWithPositions(
  text: string,
  file: string,
): { source: YamlSource; issues: ConfigIssue[] } {
  const { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } = yamlLibrary();
  const lineCounter = new LineCounter();
  const doc = withoutEnvironment(() =>
    parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  );
  const at = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  const issues: ConfigIssue[] = doc.errors.map((error) => ({
    position: at(error.pos[0]),
    // The parser recurses per level of nesting and reports running out of stack as its error.
    message: STACK_OVERFLOW.test(error.message)
      ? "nested too deeply to read (here the YAML reader ran out of stack); write the value flatter"
      : `YAML syntax error: ${firstLine(error.message)}`,
  }));
  if (issues.length === 0) {
    const problem = inlineAliases(doc, text.length);
    if (problem) issues.push({ position: at(problem.offset), message: problem.message });
  }
  let value: unknown = undefined;
  if (issues.length === 0) {
    try {
      // No aliases are left; a ReferenceError would be one the walk missed.
      value = doc.toJS({ maxAliasCount: -1 });
    } catch (error) {
      if (!(error instanceof ReferenceError)) throw error;
      issues.push({ position: at(0), message: `YAML error: ${firstLine(error.message)}` });
    }
  }
  const positionOf = (path: ValuePath, options: { key?: boolean } = {}): SourcePosition => {
    let node: unknown = doc.contents;
    let best: SourcePosition = { file, line: 1, column: 1 };
    const rangeOf = (n: unknown) => (n as Node | null)?.range;
    const first = rangeOf(node);
    if (first) best = at(first[0]);
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) =>
          isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment)
        );
        if (!pair) return best;
        const keyRange = rangeOf(pair.key);
        if (keyRange) best = at(keyRange[0]);
        if (last && options.key) return best;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === "number") {
        node = node.items[segment];
      } else {
        return best;
      }
      const range = rangeOf(node);
      if (range) best = at(range[0]);
    }
    return best;
  };
  return { source: { file, value, positionOf }, issues };
}

/**
 * A source for a value that did not come from YAML (e.g. one JSONL line):
 * every position is the given line.
 */
export function fixedSource(file: string, value: unknown, line?: number): YamlSource {
  return { file, value, positionOf: () => ({ file, line }) };
}

/**
 * Turns zod issues into positioned issues. `schema` is walked alongside the
 * value so an unknown key gets a did-you-mean among the keys allowed there.
 * Keys shielded for validation (proto_keys.ts) are shown as written.
 */
export function issuesFromZod(
  source: YamlSource,
  error: z.ZodError,
  schema: z.ZodType,
  basePath: ValuePath = [],
  baseValue: unknown = source.value,
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const shielded of error.issues) {
    const issue = restoreIssue(shielded);
    const path = [...basePath, ...(issue.path as Array<string | number>)];
    const where = describePath(path);
    if (issue.code === "unrecognized_keys") {
      const allowed = keysAt(schema, baseValue, issue.path as Array<string | number>);
      for (const key of issue.keys) {
        out.push({
          position: source.positionOf([...path, key], { key: true }),
          message: `unknown key "${key}"${where ? ` in ${where}` : ""}`,
          hint: allowed ? suggestion(key, allowed) : undefined,
        });
      }
      continue;
    }
    const choice = discriminatorOf(issue);
    if (choice) {
      const given = valueAt(baseValue, issue.path as Array<string | number>);
      const owner = describePath(path.slice(0, -1));
      out.push({
        position: source.positionOf(path),
        message: given === undefined
          ? `${owner || "entry"} needs a "${choice.key}"`
          : `unknown ${choice.key} "${String(given)}"${owner ? ` in ${owner}` : ""}`,
        hint: given === undefined
          ? `one of ${choice.values.map((v) => `"${v}"`).join(", ")}`
          : suggestion(String(given), choice.values),
      });
      continue;
    }
    out.push({
      position: source.positionOf(path),
      message: `${where ? `${where}: ` : ""}${
        valueAt(baseValue, issue.path as Array<string | number>) === undefined &&
          (issue.code === "invalid_type" || issue.code === "invalid_union")
          ? "is required"
          : humanMessage(issue)
      }`,
    });
  }
  return out;
}

function restoreIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  const path = issue.path.map((p) => typeof p === "string" ? restoreProtoKey(p) : p);
  if (issue.code === "unrecognized_keys") {
    return { ...issue, path, keys: issue.keys.map(restoreProtoKey) };
  }
  return { ...issue, path };
}

/** `systems[1].tools[0]` for a path. */
export function describePath(path: ValuePath): string {
  let out = "";
  for (const segment of path) {
    out += typeof segment === "number" ? `[${segment}]` : (out ? `.${segment}` : segment);
  }
  return out;
}

function humanMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return `must be ${article(issue.expected)}`;
  if (issue.code === "invalid_value" && "values" in issue) {
    return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (issue.code === "invalid_union" && issue.errors.length && issue.message === "Invalid input") {
    const expected = issue.errors.map((branch) => {
      const first = branch[0];
      return first?.code === "invalid_type" ? article(first.expected) : undefined;
    });
    if (expected.every((e) => e !== undefined)) {
      return `must be ${[...new Set(expected)].join(" or ")}`;
    }
  }
  return issue.message;
}

function article(expected: string): string {
  if (expected === "array") return "a list";
  if (expected === "object") return "a mapping";
  if (expected === "int") return "a whole number";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function firstLine(text: string): string {
  return text.split("\n")[0].trim();
}

function valueAt(value: unknown, path: ValuePath): unknown {
  let v = value;
  for (const segment of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[segment];
  }
  return v;
}

// deno-lint-ignore no-explicit-any
type SchemaDef = any;

/** Walks a schema along a value path, unwrapping optional/default/pipe and picking union arms by discriminator. */
function schemaAt(schema: z.ZodType, value: unknown, path: ValuePath): z.ZodType | undefined {
  let s: z.ZodType | undefined = unwrap(schema);
  let v = value;
  for (const segment of path) {
    if (!s) return undefined;
    s = unwrap(pickUnionArm(s, v));
    const def: SchemaDef = s?._zod.def;
    if (def?.type === "object" && typeof segment === "string") s = def.shape[segment];
    else if (def?.type === "array" && typeof segment === "number") s = def.element;
    else if (def?.type === "record") s = def.valueType;
    else return undefined;
    v = valueAt(v, [segment]);
  }
  return s ? unwrap(pickUnionArm(unwrap(s)!, v)) : undefined;
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema;
  for (let i = 0; i < 10 && s; i++) {
    const def: SchemaDef = s._zod.def;
    if (["optional", "default", "prefault", "nullable", "readonly", "catch"].includes(def.type)) {
      s = def.innerType;
    } else if (def.type === "pipe") s = def.in;
    else break;
  }
  return s;
}

function pickUnionArm(schema: z.ZodType, value: unknown): z.ZodType {
  const def: SchemaDef = schema._zod.def;
  if (def.type !== "union") return schema;
  const objects = (def.options as z.ZodType[]).map(unwrap).filter((o) =>
    o?._zod.def.type === "object"
  ) as z.ZodType[];
  if (def.discriminator) {
    const given = valueAt(value, [def.discriminator]);
    return objects.find((o) => {
      const field = (o._zod.def as SchemaDef).shape[def.discriminator] as z.ZodType | undefined;
      // An arm whose discriminator has a default is the one an entry without it gets.
      if (given === undefined) return field?._zod.def.type === "default";
      const inner: SchemaDef = unwrap(field)?._zod.def;
      return inner?.values?.includes(given);
    }) ?? schema;
  }
  return objects.length === 1 && typeof value === "object" ? objects[0] : schema;
}

function keysAt(schema: z.ZodType, value: unknown, path: ValuePath): string[] | undefined {
  const s = schemaAt(schema, value, path);
  const def: SchemaDef = s?._zod.def;
  return def?.type === "object" ? Object.keys(def.shape) : undefined;
}

/** The discriminator key and its allowed values, for a union that matched no arm by its discriminator. */
function discriminatorOf(issue: z.core.$ZodIssue): { key: string; values: string[] } | undefined {
  if (issue.code !== "invalid_union") return undefined;
  const extra = issue as unknown as { discriminator?: unknown; options?: unknown };
  if (typeof extra.discriminator !== "string" || !Array.isArray(extra.options)) return undefined;
  return {
    key: extra.discriminator,
    values: extra.options.filter((o) => o !== null && o !== undefined).map(String),
  };
}
