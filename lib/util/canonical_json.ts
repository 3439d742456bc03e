/**
 * Canonical JSON: the text `JSON.stringify` gives once the keys of every
 * object are sorted (by UTF-16 code units, as `Array.prototype.sort` does;
 * array-index keys such as "2" and "10" first, in numeric order, as
 * JavaScript keeps them), with no white space — so two values that differ only in key order give
 * the same text, and the same hash. It is what the run manifest, the
 * response cache's keys and the retriever index settings compare.
 *
 * Written out with a list of pending work rather than by recursion (V8's own
 * `JSON.stringify` is iterative, a replacer or a recursive walk is not), so a
 * value nested tens of thousands deep — a tool schema from an MCP server, a
 * config value — is written rather than overflowing the stack. A
 * `"__proto__"` key is an ordinary key. As in `JSON.stringify`: `toJSON` is
 * called, `undefined`, functions and symbols are left out of objects and
 * become `null` in arrays, a bigint or a cycle is a `TypeError`.
 *
 * @module
 */

/** How non-finite numbers are written. */
export interface CanonicalJsonOptions {
  /** Throw a `TypeError` on `NaN` or ±Infinity instead of writing `null` (as JSON does). */
  strictNumbers?: boolean;
}

type Task =
  | { kind: "text"; text: string }
  | { kind: "value"; value: unknown }
  | { kind: "leave"; container: object };

/** The canonical JSON text of `value` (`null` for a value JSON leaves out, such as `undefined`). */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  const out: string[] = [];
  const onPath = new Set<object>();
  const tasks: Task[] = [{ kind: "value", value: jsonValue(value, "") }];
  while (tasks.length > 0) {
    const task = tasks.pop()!;
    if (task.kind === "text") {
      out.push(task.text);
      continue;
    }
    if (task.kind === "leave") {
      onPath.delete(task.container);
      continue;
    }
    const v = task.value;
    if (v === null || v === undefined || typeof v === "function" || typeof v === "symbol") {
      out.push("null");
    } else if (typeof v === "number") {
      if (!Number.isFinite(v) && options.strictNumbers) {
        throw new TypeError(`Cannot write a non-finite number (${v}) as canonical JSON`);
      }
      out.push(JSON.stringify(v));
    } else if (typeof v !== "object") {
      // A string or a boolean; a bigint throws here, as in JSON.stringify.
      out.push(JSON.stringify(v));
    } else {
      if (onPath.has(v)) throw new TypeError("Cannot write a value with a cycle as canonical JSON");
      onPath.add(v);
      tasks.push({ kind: "leave", container: v });
      const parts: Task[] = [];
      if (Array.isArray(v)) {
        parts.push({ kind: "text", text: "[" });
        v.forEach((item, i) => {
          if (i > 0) parts.push({ kind: "text", text: "," });
          parts.push({ kind: "value", value: jsonValue(item, String(i)) });
        });
        parts.push({ kind: "text", text: "]" });
      } else {
        parts.push({ kind: "text", text: "{" });
        let first = true;
        for (const key of sortedKeys(v)) {
          const member = jsonValue((v as Record<string, unknown>)[key], key);
          if (member === undefined || typeof member === "function" || typeof member === "symbol") {
            continue;
          }
          parts.push({ kind: "text", text: `${first ? "" : ","}${JSON.stringify(key)}:` });
          parts.push({ kind: "value", value: member });
          first = false;
        }
        parts.push({ kind: "text", text: "}" });
      }
      for (let i = parts.length - 1; i >= 0; i--) tasks.push(parts[i]);
    }
  }
  return out.join("");
}

/**
 * The keys of `object` in the order `JSON.stringify` writes an object whose
 * keys were added sorted: array-index keys ("0", "7", "10") first, in numeric
 * order (JavaScript puts them there whatever the insertion order), then the
 * rest sorted. Earlier versions built such an object and let JSON.stringify
 * write it, and recorded hashes must not change.
 */
function sortedKeys(object: object): string[] {
  const indices: string[] = [];
  const names: string[] = [];
  for (const key of Object.keys(object)) (isArrayIndex(key) ? indices : names).push(key);
  indices.sort((a, b) => Number(a) - Number(b));
  return [...indices, ...names.sort()];
}

/** A canonical array index: "0" to "4294967294", no leading zeros. */
function isArrayIndex(key: string): boolean {
  const n = Number(key);
  return n >>> 0 === n && n !== 4_294_967_295 && String(n) === key;
}

/** `value` as JSON sees it: through its `toJSON` when it has one (a Date, say). */
function jsonValue(value: unknown, key: string): unknown {
  if (value !== null && typeof value === "object") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return toJSON.call(value, key);
  }
  return value;
}
