/**
 * How deep and how large a tool's input schema from an MCP server may be.
 * The schema goes to the model in every request of every question of the
 * system; one nested 50,000 levels, or megabytes long, makes each request
 * fail, and the failure would be blamed on the model's API. Such a tool is
 * refused when the run starts instead, naming server and tool
 * (`offerMcpTools` in host.ts).
 *
 * @module
 */

/** Deepest nesting of objects and arrays in an input schema (as in a tool call's arguments). */
export const MAX_SCHEMA_DEPTH = 100;
/** Longest input schema, in characters of its JSON. */
export const MAX_SCHEMA_CHARS = 100_000;

/**
 * Why `schema` cannot be offered to a model, or null. Walked with a list
 * (never recursion), stopping at the first limit passed, so any schema is
 * measured in time linear in the part read.
 */
export function schemaProblem(schema: unknown): string | null {
  const pending: Array<[unknown, number]> = [[schema, 1]];
  let chars = 0;
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (typeof node === "string") {
      chars += node.length + 2;
    } else if (node === null || typeof node !== "object") {
      chars += String(node).length;
    } else {
      if (depth > MAX_SCHEMA_DEPTH) {
        return `it is nested more than ${MAX_SCHEMA_DEPTH} levels deep`;
      }
      chars += 2;
      const isArray = Array.isArray(node);
      for (const [key, value] of Object.entries(node)) {
        // A key, its quotes, the colon and the comma.
        chars += isArray ? 1 : key.length + 4;
        pending.push([value, depth + 1]);
      }
    }
    if (chars > MAX_SCHEMA_CHARS) {
      return `its JSON is longer than ${MAX_SCHEMA_CHARS} characters`;
    }
  }
  return null;
}
