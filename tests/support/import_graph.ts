/**
 * The import graph of ragbench's own source files, and the two rules the
 * architecture test holds it to: no import cycle, and no import from a lower
 * layer into a higher one, the layers being the table in
 * `docs/architecture.md` (so the rule and its description cannot drift).
 *
 * The graph comes from `deno info --json` (Deno's own parser, no network:
 * npm packages resolve from the lock file and the cache), over one synthetic
 * root that imports every source file, so that files no entry point reaches
 * statically (workers, lazily loaded engines) are walked too. Every edge
 * counts: static imports, `import type`, and `import()` of a specifier Deno
 * can resolve (a literal).
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT_URL = new URL("../../", import.meta.url);
/** The repository root, with a trailing slash. */
export const REPO_ROOT = fileURLToPath(ROOT_URL);

/** One import between two source files (paths from the repository root). */
export interface ImportEdge {
  from: string;
  to: string;
  /** `import()`. */
  dynamic: boolean;
  /** `import type` (no code is loaded). */
  typeOnly: boolean;
}

/** Source file → its imports of other source files, every key a file under the roots. */
export type ImportGraph = Map<string, ImportEdge[]>;

/** The `.ts` and `.js` files under `roots` (files or folders, from the repository root), sorted. */
export async function sourceFiles(roots: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const info = await Deno.stat(new URL(path, ROOT_URL));
    if (info.isFile) {
      if (/\.(ts|js)$/.test(path)) files.push(path);
      return;
    }
    for await (const entry of Deno.readDir(new URL(`${path}/`, ROOT_URL))) {
      await walk(`${path}/${entry.name}`);
    }
  };
  for (const root of roots) await walk(root.replace(/\/$/, ""));
  return files.sort();
}

interface InfoDependency {
  code?: { specifier: string };
  type?: { specifier: string };
  isDynamic?: boolean;
}

/** The imports between the source files under `roots` (see the module doc). */
export async function importGraph(roots: readonly string[]): Promise<ImportGraph> {
  const files = await sourceFiles(roots);
  const rootUrl = ROOT_URL.href;
  const entry = "data:application/typescript," +
    files.map((f) => `import ${JSON.stringify(rootUrl + f)};`).join("");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: InfoDependency[] }[];
  };
  const wanted = new Set(files);
  const local = (specifier: string | undefined): string | null => {
    if (!specifier?.startsWith(rootUrl)) return null;
    const path = decodeURIComponent(specifier.slice(rootUrl.length));
    return wanted.has(path) ? path : null;
  };
  const graph: ImportGraph = new Map(files.map((f) => [f, []]));
  for (const module of info.modules) {
    const from = local(module.specifier);
    if (from === null) continue;
    const edges = graph.get(from)!;
    for (const dep of module.dependencies ?? []) {
      const to = local(dep.code?.specifier) ?? local(dep.type?.specifier);
      if (to === null) continue;
      edges.push({ from, to, dynamic: dep.isDynamic === true, typeOnly: dep.code === undefined });
    }
  }
  return graph;
}

/**
 * Every import cycle, one per strongly connected component (files that all
 * reach each other), each written as the files of the component's shortest
 * cycle (`a.ts -> b.ts -> a.ts`). Empty when the graph has none.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  const targets = new Map<string, string[]>();
  const next = (v: string): string[] => {
    let found = targets.get(v);
    if (found === undefined) {
      found = [...new Set((graph.get(v) ?? []).map((e) => e.to))].sort();
      targets.set(v, found);
    }
    return found;
  };
  // Tarjan's algorithm with an explicit stack (the graph may be deep).
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { v: string; targets: string[]; i: number }[] = [];
    const open = (v: string) => {
      index.set(v, index.size);
      low.set(v, index.get(v)!);
      stack.push(v);
      onStack.add(v);
      work.push({ v, targets: next(v), i: 0 });
    };
    open(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.i < frame.targets.length) {
        const w = frame.targets[frame.i++];
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.v)!));
      }
      if (low.get(frame.v) !== index.get(frame.v)) continue;
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== frame.v);
      if (component.length > 1 || next(frame.v).includes(frame.v)) components.push(component);
    }
  }
  return components.map((c) => shortestCycleIn(c.sort(), next)).sort((a, b) =>
    a[0] < b[0] ? -1 : 1
  );
}

/** Components larger than this are named by a cycle through their first file only. */
const SEARCHED_COMPONENT = 100;

/** The shortest cycle of a component (first in file order among the shortest). */
function shortestCycleIn(component: string[], next: (v: string) => string[]): string[] {
  const members = new Set(component);
  let best: string[] | null = null;
  for (const start of component.slice(0, SEARCHED_COMPONENT)) {
    const cycle = shortestCycle(start, members, next);
    if (best === null || cycle.length < best.length) best = cycle;
  }
  return best!;
}

/** A shortest path from `start` back to itself inside `members`, by breadth-first search. */
function shortestCycle(
  start: string,
  members: ReadonlySet<string>,
  next: (v: string) => string[],
): string[] {
  const parent = new Map<string, string>();
  let frontier = [start];
  while (frontier.length > 0) {
    const following: string[] = [];
    for (const v of frontier) {
      for (const w of next(v)) {
        if (!members.has(w)) continue;
        if (w === start) {
          const back = [start];
          for (let u = v; u !== start; u = parent.get(u)!) back.push(u);
          return [start, ...back.slice(1).reverse(), start];
        }
        if (parent.has(w)) continue;
        parent.set(w, v);
        following.push(w);
      }
    }
    frontier = following;
  }
  return [start, start];
}

/** One row of the layer table: its number (1 is the top) and the paths it holds. */
export interface Layer {
  rank: number;
  /** Folders end in `/`; a file is named whole (`main.ts`, `lib/types.ts`). */
  paths: string[];
}

/**
 * The layer table under the heading `heading` of a Markdown text: every row
 * whose first cell is a number, its second cell's backticked paths. Throws
 * when there is no such table or a number repeats or skips.
 */
export function parseLayers(markdown: string, heading: string): Layer[] {
  const text = `\n${markdown}`;
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const end = text.indexOf("\n## ", start + heading.length + 2);
  const section = text.slice(start, end < 0 ? undefined : end);
  const layers: Layer[] = [];
  for (const line of section.split("\n")) {
    const row = /^\|\s*(\d+)\s*\|([^|]*)\|/.exec(line);
    if (row === null) continue;
    const paths = [...row[2].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    if (paths.length === 0) throw new Error(`layer ${row[1]} names no path`);
    layers.push({ rank: Number(row[1]), paths });
  }
  if (layers.length === 0) throw new Error(`no layer table under "${heading}"`);
  layers.forEach((layer, i) => {
    if (layer.rank !== i + 1) throw new Error(`layer ${layer.rank} where ${i + 1} was expected`);
  });
  return layers;
}

/** The layer of `file`: the one holding the longest path that is the file or a folder above it. */
export function layerOf(file: string, layers: readonly Layer[]): Layer | null {
  let best: Layer | null = null;
  let bestLength = -1;
  for (const layer of layers) {
    for (const path of layer.paths) {
      const holds = path.endsWith("/") ? file.startsWith(path) : file === path;
      if (holds && path.length > bestLength) {
        best = layer;
        bestLength = path.length;
      }
    }
  }
  return best;
}

/**
 * What breaks the layer order, one sentence each: a file in no layer, and an
 * import from a lower layer (larger number) into a higher one. Same-layer
 * imports are allowed (cycles are {@link findCycles}' business).
 */
export function layerViolations(graph: ImportGraph, layers: readonly Layer[]): string[] {
  const problems: string[] = [];
  for (const [file, edges] of [...graph].sort(([a], [b]) => a < b ? -1 : 1)) {
    const from = layerOf(file, layers);
    if (from === null) {
      problems.push(`${file} is in no layer of the table`);
      continue;
    }
    for (const edge of edges) {
      const to = layerOf(edge.to, layers);
      if (to === null || to.rank >= from.rank) continue;
      problems.push(
        `${file} (layer ${from.rank}) imports ${edge.to} (layer ${to.rank}, higher)` +
          (edge.typeOnly ? " [type only]" : edge.dynamic ? " [dynamic]" : ""),
      );
    }
  }
  return problems;
}
