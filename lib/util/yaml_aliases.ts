/**
 * YAML aliases (`*name`) resolved before a parsed document becomes plain JS,
 * with a budget sized to the document.
 *
 * Why not the `yaml` library's own guard: its `maxAliasCount` is a fixed
 * number (default 100) that a real question file with one shared
 * `checks: *checks` anchor per question exceeds, and its alias resolution
 * scans every earlier anchor and alias for each alias (50,000 aliases took
 * 22 s here). So each alias node is replaced, in one pass, by the node its
 * anchor names; the document is then converted with no aliases left.
 *
 * The budget: the values aliases add may be at most as many as the file
 * has characters (at least {@link MIN_ALIAS_BUDGET}). A real file stays far
 * below; a "billion laughs" bomb (anchors nesting aliases of aliases) passes
 * it after a few levels and is refused with the alias where it did.
 *
 * @module
 */

import type { Document, Node } from "yaml";
import { yamlLibrary } from "./yaml_library.ts";

/** Values aliases may add to any document, however small. */
export const MIN_ALIAS_BUDGET = 100_000;

/** Why aliases could not be resolved, and where (a source offset). */
export interface AliasProblem {
  offset: number;
  message: string;
}

/**
 * Replaces every alias in `doc` by the node its anchor names (the last
 * anchor of that name before it), in place. Returns the first problem, or
 * undefined: an alias with no anchor before it, an alias inside the node it
 * names (a cycle), or aliases adding more values than `budget` (default: the
 * larger of {@link MIN_ALIAS_BUDGET} and `textLength`).
 */
export function inlineAliases(
  doc: Document.Parsed,
  textLength: number,
  budget = Math.max(MIN_ALIAS_BUDGET, textLength),
): AliasProblem | undefined {
  const { isAlias, isCollection, isPair } = yamlLibrary();
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  let added = 0;

  /** The node to keep in place of `node` and its size in values, or a problem. */
  const resolve = (node: unknown): { node: unknown; size: number } | AliasProblem => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      const offset = node.range?.[0] ?? 0;
      if (target === undefined) {
        return {
          offset,
          message: `alias *${node.source} names no anchor &${node.source} before it`,
        };
      }
      if (open.has(target)) {
        return {
          offset,
          message: `alias *${node.source} stands inside the value it names (a cycle); ` +
            "copy the value instead",
        };
      }
      const size = sizes.get(target) ?? 1;
      added += size;
      if (added > budget) {
        return {
          offset,
          message:
            `aliases expand this file to more than ${budget} extra values (at *${node.source}); ` +
            "a file may grow through aliases to at most one value per character it has. " +
            "This looks like an alias bomb; write the values out, or use fewer nested aliases",
        };
      }
      return { node: target, size };
    }
    if (node === null || typeof node !== "object") return { node, size: 0 };
    const real = node as Node;
    if (real.anchor) anchors.set(real.anchor, real);
    let size = 1;
    if (isCollection(real)) {
      open.add(real);
      const items = real.items as unknown[];
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (isPair(item)) {
          for (const side of ["key", "value"] as const) {
            const done = resolve(item[side]);
            if ("message" in done) return done;
            item[side] = done.node as typeof item[typeof side];
            size += done.size;
          }
        } else {
          const done = resolve(item);
          if ("message" in done) return done;
          items[i] = done.node;
          size += done.size;
        }
      }
      open.delete(real);
    }
    sizes.set(real, size);
    return { node: real, size };
  };

  const done = resolve(doc.contents);
  if ("message" in done) return done;
  doc.contents = done.node as typeof doc.contents;
  return undefined;
}
