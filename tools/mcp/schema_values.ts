/**
 * Small readers of JSON Schema documents and JSON values for the output
 * schema checker: own keys only (a schema is the server's: `__proto__` and
 * `constructor` are keys like any other), JSON type names, `$ref` and
 * `$anchor` resolution within one document (walked with a list, so a deep
 * schema cannot overflow the stack).
 *
 * @module
 */

/** A JSON Schema object (or any JSON object). */
export type Schema = Record<string, unknown>;

/** `#`, `#/json/pointer` or `#anchor` in `root`; undefined when it names nothing found. */
export function resolveRef(root: unknown, ref: string, step: () => void): unknown {
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

/** `s[key]` when `s` has it as its own key. */
export function own(s: Schema, key: string): unknown {
  return Object.hasOwn(s, key) ? s[key] : undefined;
}

/** `s[key]` when it is a finite number. */
export function num(s: Schema, key: string): number | undefined {
  const value = own(s, key);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** `value` when it is a (non-array) object; an empty one otherwise. */
export function objectOr(value: unknown): Schema {
  return isObject(value) ? value : {};
}

/** Whether `value` is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether `value` is of the JSON Schema `type`; an unknown type name allows anything. */
export function hasType(value: unknown, type: unknown): boolean {
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

/** The JSON type name of `value`, for messages. */
export function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** The length of `text` in code points (as `minLength` and `maxLength` count). */
export function codePoints(text: string): number {
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

/** Where in the result `at` (a JSON pointer) is, for messages. */
export function where(at: string): string {
  return at === "" ? "the result" : `the result at ${at}`;
}
