/**
 * A small YAML writer for plain data, byte for byte what
 * `stringify(value, { lineWidth: 0 })` of the `yaml` library writes, for the
 * documents it is sure of: block mappings and sequences of null, booleans,
 * finite numbers, strings that the library writes plain (unquoted) and the
 * empty string (which it writes `""`). For
 * anything else (a string that would be quoted, or written as a block, a
 * long key, a value that is not plain JSON) it gives up and returns null, and
 * the caller uses the library. `tests/lib/util/plain_yaml_test.ts` compares
 * the two on the repository's configs and on generated documents.
 *
 * @module
 */

/** Printable ASCII: the only characters this writer writes (the library escapes others). */
const PLAIN_CHARS = /^[\x20-\x7e]+$/;
/** A line that reads as a document marker or directive (the library's `containsDocumentMarker`). */
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
/** The `yaml` library's test for text that cannot be plain (from its `plainString`). */
const NOT_PLAIN =
  /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** Text the core schema reads as null, a boolean or a number: the library quotes it. */
const CORE_SCALARS: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];
/** Longest key the library writes as an implicit key. */
const MAX_KEY_CHARS = 1024;

class NotPlain extends Error {}

/** `value` as YAML, or null when the `yaml` library's output is not certain to match. */
export function plainYaml(value: unknown): string | null {
  if (!isRecord(value) || Object.keys(value).length === 0) return null;
  try {
    return mappingLines(value, "").join("\n") + "\n";
  } catch (error) {
    if (error instanceof NotPlain) return null;
    throw error;
  }
}

function mappingLines(map: Record<string, unknown>, pad: string): string[] {
  const lines: string[] = [];
  for (const [key, item] of Object.entries(map)) {
    // The library writes an empty key, and a long one, as an explicit key (`? key`).
    if (key === "" || key.length > MAX_KEY_CHARS) throw new NotPlain();
    const head = `${pad}${plainString(key)}:`;
    if (isBlock(item)) lines.push(head, ...blockLines(item, pad + "  "));
    else lines.push(`${head} ${inline(item)}`);
  }
  return lines;
}

function sequenceLines(list: unknown[], pad: string): string[] {
  const lines: string[] = [];
  for (const item of list) {
    if (isBlock(item)) {
      // The item's first line goes after the dash, in place of its indentation.
      const [first, ...rest] = blockLines(item, pad + "  ");
      lines.push(`${pad}- ${first.slice(pad.length + 2)}`, ...rest);
    } else {
      lines.push(`${pad}- ${inline(item)}`);
    }
  }
  return lines;
}

function blockLines(node: unknown[] | Record<string, unknown>, pad: string): string[] {
  return Array.isArray(node) ? sequenceLines(node, pad) : mappingLines(node, pad);
}

/** A non-empty mapping or sequence, written as a block. */
function isBlock(value: unknown): value is unknown[] | Record<string, unknown> {
  if (Array.isArray(value)) return value.length > 0;
  return isRecord(value) && Object.keys(value).length > 0;
}

function inline(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value) || Object.is(value, -0)) throw new NotPlain();
    return JSON.stringify(value);
  }
  if (typeof value === "string") return plainString(value);
  if (Array.isArray(value)) return "[]";
  if (isRecord(value)) return "{}";
  throw new NotPlain();
}

function plainString(text: string): string {
  // The library writes the empty string double-quoted (it would read back as null).
  if (text === "") return '""';
  if (
    !PLAIN_CHARS.test(text) || NOT_PLAIN.test(text) || DOCUMENT_MARKER.test(text) ||
    CORE_SCALARS.some((re) => re.test(text))
  ) {
    throw new NotPlain();
  }
  return text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
