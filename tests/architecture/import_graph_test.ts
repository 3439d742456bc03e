import assert from "node:assert/strict";
import {
  findCycles,
  type ImportEdge,
  type ImportGraph,
  importGraph,
  type Layer,
  layerViolations,
  parseLayers,
  REPO_ROOT,
} from "../support/import_graph.ts";

const ROOTS = ["main.ts", "ragbench.ts", "lib", "tools", "systems"];
const LAYER_HEADING = "## Layers and the direction of data";

async function layersOfDoc(): Promise<Layer[]> {
  return parseLayers(
    await Deno.readTextFile(`${REPO_ROOT}docs/architecture.md`),
    LAYER_HEADING,
  );
}

/** A graph from `from -> to` pairs (static imports). */
function graphOf(...pairs: [string, string][]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [from, to] of pairs) {
    for (const file of [from, to]) if (!graph.has(file)) graph.set(file, []);
    const edge: ImportEdge = { from, to, dynamic: false, typeOnly: false };
    graph.get(from)!.push(edge);
  }
  return graph;
}

Deno.test("no import cycle among the files of main.ts, lib/, tools/ and systems/", async () => {
  const graph = await importGraph(ROOTS);
  assert.ok(graph.size > 200, `only ${graph.size} files walked`);
  assert.ok(
    graph.get("main.ts")!.some((e) => e.to === "lib/cli/run_command.ts" && e.dynamic),
    "dynamic imports are edges",
  );
  assert.ok(
    graph.get("lib/score/failure_label.ts")!.some((e) => e.to === "lib/types.ts" && e.typeOnly),
    "type-only imports are edges",
  );
  const cycles = findCycles(graph).map((c) => c.join(" -> "));
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join("\n")}`);
});

Deno.test("no file imports a layer above its own (the table in docs/architecture.md)", async () => {
  const layers = await layersOfDoc();
  assert.ok(layers.length >= 10, `the doc's table has ${layers.length} layers`);
  for (const layer of layers) {
    for (const path of layer.paths) {
      const info = await Deno.stat(`${REPO_ROOT}${path}`).catch(() => null);
      assert.ok(info !== null, `layer ${layer.rank} names "${path}", which does not exist`);
      assert.equal(info.isDirectory, path.endsWith("/"), `"${path}": folders end in "/"`);
    }
  }
  const problems = layerViolations(await importGraph(ROOTS), layers);
  assert.deepEqual(problems, [], `layer order broken:\n${problems.join("\n")}`);
});

Deno.test("findCycles names each knot of files by its shortest cycle", () => {
  const graph = graphOf(
    ["a.ts", "b.ts"],
    ["b.ts", "c.ts"],
    ["c.ts", "d.ts"],
    ["d.ts", "a.ts"],
    ["c.ts", "b.ts"],
    ["x.ts", "a.ts"],
    ["e.ts", "e.ts"],
  );
  assert.deepEqual(findCycles(graph), [["b.ts", "c.ts", "b.ts"], ["e.ts", "e.ts"]]);
  assert.deepEqual(findCycles(graphOf(["a.ts", "b.ts"], ["b.ts", "c.ts"], ["a.ts", "c.ts"])), []);
});

Deno.test("findCycles walks a chain of 20,000 files without overflowing the stack", () => {
  const pairs: [string, string][] = [];
  for (let i = 0; i < 20_000; i++) pairs.push([`f${i}.ts`, `f${i + 1}.ts`]);
  pairs.push(["f20000.ts", "f0.ts"]);
  const cycles = findCycles(graphOf(...pairs));
  assert.equal(cycles.length, 1);
  assert.equal(cycles[0].length, 20_002);
});

Deno.test("layerViolations names an upward import and a file in no layer", () => {
  const layers = parseLayers(
    [
      "# doc",
      LAYER_HEADING,
      "| # | layer | what |",
      "|---|---|---|",
      "| 1 | `main.ts` | entry |",
      "| 2 | `lib/cli/` | commands |",
      "| 3 | `lib/`, `lib/types.ts` | the rest |",
      "## Next",
      "| 4 | `ignored/` | after the section |",
    ].join("\n"),
    LAYER_HEADING,
  );
  assert.deepEqual(layers.map((l) => l.paths), [["main.ts"], ["lib/cli/"], [
    "lib/",
    "lib/types.ts",
  ]]);
  const graph = graphOf(
    ["main.ts", "lib/cli/run.ts"],
    ["lib/cli/run.ts", "lib/types.ts"],
    ["lib/util/x.ts", "lib/cli/run.ts"],
    ["scripts/y.ts", "lib/types.ts"],
  );
  assert.deepEqual(layerViolations(graph, layers), [
    "lib/util/x.ts (layer 3) imports lib/cli/run.ts (layer 2, higher)",
    "scripts/y.ts is in no layer of the table",
  ]);
});

Deno.test("parseLayers refuses a table whose numbers skip", () => {
  assert.throws(
    () => parseLayers(`${LAYER_HEADING}\n| 1 | \`a/\` | x |\n| 3 | \`b/\` | y |\n`, LAYER_HEADING),
    /layer 3 where 2 was expected/,
  );
  assert.throws(() => parseLayers("## Other\n", LAYER_HEADING), /no heading/);
});
