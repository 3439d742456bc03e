import assert from "node:assert/strict";
import { parseConfig } from "../../../lib/config/load.ts";
import type { ToolRef } from "../../../lib/config/types.ts";
import { ConfigError } from "../../../lib/errors.ts";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { sourceOf, TOOL_SOURCES, toolRefsOf } from "../../../lib/plan/tool_sources/registry.ts";
import {
  defineToolSource,
  Shared,
  type ToolSource,
} from "../../../lib/plan/tool_sources/source.ts";

const WHERE = { file: "t.yaml", absolute: "/project/configs/t.yaml" };
const BASE = "name: t\ncorpus: c.json\nquestions: q.yaml\n";

interface EchoRef extends ToolRef {
  readonly kind: "echo";
  words: number;
}

/** A source as a plug-in would add one: its own `type:`, its own keys, every facet. */
const echoSource: ToolSource<EchoRef> = defineToolSource<EchoRef>({
  kind: "echo",
  entryType: "echo",
  claims: ({ entry }) => entry.type === "echo",
  check({ entry, at }, ctx) {
    if (typeof entry.words !== "number") {
      ctx.problems.push({ position: ctx.source.positionOf(at), message: "echo needs words" });
      return undefined;
    }
    ctx.seen.add("echo");
    return { kind: "echo", name: "echo", words: entry.words };
  },
  predefine: () => [],
  offeredNames: () => ["echo"],
  cachesResults: () => false,
  needs: () => [],
  compiledNeeds: () => [],
  files: () => [],
  resolved: (ref) => ({ type: "echo", words: ref.words }),
  promptChars: (ref) => ref.words,
  workerTools: () => [],
  offer: () => Promise.resolve([]),
  standalone: false,
  list: () => Promise.resolve([]),
  listNeeds: () => [],
});

Deno.test("a tool source is one object: the config checks a new kind through it once registered", () => {
  const text =
    `${BASE}systems:\n  - {type: agent_search, tools: [{type: echo, words: 3}, calculator]}\n`;
  const registries = { ...REGISTRIES, toolSources: [echoSource, ...REGISTRIES.toolSources] };
  const config = parseConfig(text, WHERE, registries);
  assert.deepEqual(config.systems[0].tools, [
    { kind: "echo", name: "echo", words: 3 },
    { kind: "builtin", name: "calculator", options: {} },
  ]);
  // Unregistered, its entries are an unknown type, with the known ones suggested.
  assert.throws(
    () => parseConfig(text.replace("type: echo", "type: ecko"), WHERE, registries),
    (e) =>
      e instanceof ConfigError &&
      /line 5, column 41\): unknown tool type "ecko" — did you mean "echo"\?/.test(e.message),
  );
});

Deno.test('an entry of an unknown type is named as such (it used to read "Invalid input")', () => {
  const text =
    `${BASE}systems:\n  - type: agent_search\n    tools: [{type: mpc, server: {command: [x]}, allow: [a]}]\n`;
  assert.throws(
    () => parseConfig(text, WHERE, REGISTRIES),
    (e) =>
      e instanceof ConfigError &&
      e.message ===
        'Cannot load config "t.yaml" (line 6, column 20): unknown tool type "mpc" — did you mean "mcp"?',
  );
});

Deno.test("every reference of a config goes through its source: names, files, resolved entries", () => {
  const text = `${BASE}tools: {allow: [fetch], allow_network: true}
systems:
  - type: agent_search
    tools:
      - {name: corpus_grep, max_results: 10}
      - {name: fetch, path: "./fetch.ts#fetchTool", side_effects: network}
      - {type: mcp, server: {url: "https://example.com/mcp"}, allow: [a, b], prefix: x_}
`;
  const config = parseConfig(text, WHERE, REGISTRIES);
  const refs = toolRefsOf(config);
  assert.deepEqual(refs.map((r) => r.source.kind), ["builtin", "custom", "mcp"]);
  assert.deepEqual(refs.map((r) => r.source.offeredNames(r.ref)), [
    ["corpus_grep"],
    ["fetch"],
    ["x_a", "x_b"],
  ]);
  assert.deepEqual(refs.map((r) => r.source.files(r.ref)), [[], ["/project/configs/fetch.ts"], []]);
  assert.deepEqual(refs.map((r) => r.source.cachesResults(r.ref)), [false, true, true]);
  assert.deepEqual(refs.map((r) => r.source.workerTools(r.ref)), [["corpus_grep"], [], []]);
  assert.deepEqual(refs[0].source.resolved(refs[0].ref), { name: "corpus_grep", max_results: 10 });
  assert.deepEqual(refs.map((r) => r.source.needs(r.ref, { mock: true }).map((n) => n.name)), [
    [],
    ["run"],
    [],
  ]);
  assert.deepEqual(
    refs[2].source.needs(refs[2].ref, { mock: false }).map((n) => `${n.name}=${n.value}`),
    ["net=example.com:443"],
  );
  // Listing the tools (`ragbench tools --config`) starts only the MCP server.
  assert.deepEqual(
    refs.map((r) => r.source.listNeeds(r.ref, { mock: false }).map((n) => `${n.name}=${n.value}`)),
    [[], [], ["net=example.com:443"]],
  );
});

Deno.test("the registry: one source a kind, the built-ins last (they take every named entry)", () => {
  assert.deepEqual([...TOOL_SOURCES.keys()], ["mcp", "custom", "plugin", "builtin"]);
  for (const [kind, source] of TOOL_SOURCES) assert.equal(source.kind, kind);
  assert.deepEqual(REGISTRIES.toolSources, [...TOOL_SOURCES.values()]);
  assert.throws(
    () => sourceOf({ kind: "nope", name: "x" }),
    /tool source "nope" is not registered/,
  );
});

Deno.test("shared resources are made once for every reference and closed together", async () => {
  const shared = new Shared();
  const closed: number[] = [];
  let made = 0;
  const make = () => Promise.resolve(++made);
  const [a, b] = await Promise.all([
    shared.get("k", make, (v) => void closed.push(v)),
    shared.get("k", make, (v) => void closed.push(v)),
  ]);
  assert.deepEqual([a, b, made], [1, 1, 1]);
  await assert.rejects(shared.get("bad", () => Promise.reject(new Error("no")), () => {}), /no/);
  await shared.closeAll();
  assert.deepEqual(closed, [1]);
});

Deno.test("a tool source that forgets a facet does not compile (checked by deno check)", () => {
  const { list: _list, ...withoutList } = echoSource;
  // @ts-expect-error: `list` is missing.
  defineToolSource<EchoRef>(withoutList);
});
