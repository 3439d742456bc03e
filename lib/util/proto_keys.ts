/**
 * Keeps a `__proto__` key of untrusted JSON (a model's tool arguments, a mock
 * script) through zod validation.
 *
 * `JSON.parse` and the YAML loader keep `"__proto__"` as an ordinary own key,
 * but zod's `z.record` and `z.looseObject` skip it while building their
 * output (assigning it would replace the prototype), so a filter such as
 * `lookup_table {"where": {"__proto__": "x"}}` would silently lose its one
 * condition and match every row. {@link shieldProtoKeys} renames the key to
 * a stand-in before validation and {@link restoreProtoKeys} puts it back,
 * with `defineProperty`, so it stays a plain key that matches no column.
 * Keys that already begin with the stand-in's first character are escaped
 * too, so the mapping is exact both ways.
 *
 * @module
 */

/** Prefix of a shielded key: a noncharacter, which no real key begins with. */
const MARK = "\uFDD0";
const PROTO = "__proto__";

/** The key as it enters validation. */
function shieldKey(key: string): string {
  return key === PROTO || key.startsWith(MARK) ? MARK + key : key;
}

/** The key as the caller wrote it (inverse of the shielding). */
export function restoreProtoKey(key: string): string {
  return key.startsWith(MARK) ? key.slice(MARK.length) : key;
}

/**
 * JSON-like `value` with `__proto__` keys renamed for validation: a deep copy
 * when some key needs it, else `value` itself.
 */
export function shieldProtoKeys(value: unknown): unknown {
  return someKey(value, (key) => key === PROTO || key.startsWith(MARK))
    ? mapKeys(value, shieldKey)
    : value;
}

/**
 * Validated `value` with shielded keys back as they were written: a deep
 * copy when some key was shielded, else `value` itself.
 */
export function restoreProtoKeys<T>(value: T): T {
  return someKey(value, (key) => key.startsWith(MARK))
    ? mapKeys(value, restoreProtoKey) as T
    : value;
}

/**
 * Whether some own key of a plain object inside `value` passes `test`. Walks
 * with a list, not recursion: a value nested tens of thousands deep (JSON
 * parses it) must not overflow the stack.
 */
function someKey(value: unknown, test: (key: string) => boolean): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      for (const inner of item) pending.push(inner);
    } else if (isPlainObject(item)) {
      for (const key of Object.keys(item)) {
        if (test(key)) return true;
        pending.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

function isPlainObject(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An empty copy of an array or plain object, or `value` itself when it is neither. */
function emptyCopy(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  return isPlainObject(value) ? {} : value;
}

/** A deep copy of JSON-like `value` with every key renamed (iterative, as {@link someKey}). */
function mapKeys(value: unknown, rename: (key: string) => string): unknown {
  const root = emptyCopy(value);
  const pending: Array<[from: unknown, to: unknown]> = [[value, root]];
  const fill = (item: unknown): unknown => {
    const copy = emptyCopy(item);
    if (copy !== item) pending.push([item, copy]);
    return copy;
  };
  while (pending.length > 0) {
    const [from, to] = pending.pop()!;
    if (Array.isArray(from)) {
      for (const item of from) (to as unknown[]).push(fill(item));
    } else if (isPlainObject(from)) {
      for (const [key, item] of Object.entries(from)) {
        Object.defineProperty(to, rename(key), {
          value: fill(item),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return root;
}
