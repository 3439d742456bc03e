import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../../../../lib/config/load.ts";
import { ConfigError } from "../../../../lib/errors.ts";
import { REGISTRIES } from "../../../../lib/plan/setup.ts";
import { runNeeds } from "../../../../lib/plan/permissions.ts";
import { toolRefsOf } from "../../../../lib/plan/tool_sources/registry.ts";
import { ROOT, runCli } from "../../../support/cli.ts";
import { tempTree } from "../../../support/temp.ts";

const WHERE = { file: "t.yaml", absolute: "/project/configs/t.yaml" };
const BASE = "name: t\ncorpus: c.json\nquestions: q.yaml\n";
const ACME = `${ROOT}tests/fixtures/plugins/acme_tools.ts`;

function configError(text: string): string {
  try {
    parseConfig(text, WHERE, REGISTRIES);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  assert.fail("the config loaded");
}

function withPlugin(plugin: string, tools = "[word_count]", rules = ""): string {
  return `${BASE}tools:\n${rules}  plugins:\n    - ${plugin}\nsystems:\n  - {type: agent_search, tools: ${tools}}\n`;
}

Deno.test("plug-in config: a plug-in's tool is named alone by a system, like a built-in", () => {
  const config = parseConfig(
    withPlugin(`{module: "npm:@acme/ragbench-tools@1.2.3", tools: [word_count]}`),
    WHERE,
    REGISTRIES,
  );
  assert.deepEqual(config.systems[0].tools, [{
    kind: "plugin",
    name: "word_count",
    module: "npm:@acme/ragbench-tools@1.2.3",
    package: "npm:@acme/ragbench-tools@1.2.3",
    permissions: {},
    side_effects: "none",
  }]);
  // A local module is found against the config's folder; its code is hashed into run.json.
  const local = parseConfig(
    withPlugin(`{module: ../tools/mod.ts, tools: [word_count], permissions: {read: [data]}}`),
    WHERE,
    REGISTRIES,
  );
  const [ref] = toolRefsOf(local);
  assert.equal((ref.ref as unknown as { module: string }).module, "/project/tools/mod.ts");
  assert.equal((ref.ref as unknown as { side_effects: string }).side_effects, "filesystem");
});

Deno.test("plug-in config: a version range, no version or a URL is refused with the reason", () => {
  assert.match(
    configError(withPlugin(`{module: "npm:@acme/ragbench-tools@^1.2", tools: [word_count]}`)),
    /\(line 6, column \d+\): tools\.plugins\[0\]\.module: "npm:@acme\/ragbench-tools@\^1\.2" must name an exact version \(like npm:@acme\/ragbench-tools@1\.2\.3\), not "\^1\.2": a range could load other code in the next run/,
  );
  assert.match(
    configError(withPlugin(`{module: "npm:left-pad", tools: [word_count]}`)),
    /"npm:left-pad" must name an exact version \(like npm:@acme\/ragbench-tools@1\.2\.3\), not no version/,
  );
  assert.match(
    configError(withPlugin(`{module: "https://example.com/mod.ts", tools: [word_count]}`)),
    /"https:\/\/example\.com\/mod\.ts" is neither a package \(npm:, jsr:\) nor a path: runs never download code/,
  );
});

Deno.test("plug-in config: a tool named like a built-in, or contributed twice, is refused", () => {
  assert.match(
    configError(withPlugin(`{module: "npm:@acme/t@1.0.0", tools: [word_count, calculator]}`)),
    /plug-in "npm:@acme\/t@1\.0\.0" contributes a tool named "calculator", the name of a built-in tool — a plug-in cannot replace a built-in: leave it out of the plug-in's tools/,
  );
  const twice =
    `${BASE}tools:\n  plugins:\n    - {module: "npm:@a/t@1.0.0", tools: [word_count]}\n` +
    `    - {module: "npm:@b/t@2.0.0", tools: [word_count]}\nsystems:\n  - {type: agent_search}\n`;
  assert.match(
    configError(twice),
    /tool "word_count" is contributed twice \(by tools\.plugins\[0\] and tools\.plugins\[1\]\)/,
  );
  assert.match(
    configError(withPlugin(
      `{module: "npm:@acme/t@1.0.0", tools: [word_count]}`,
      `[{name: word_count, path: "./x.ts#x"}]`,
    )),
    /custom tool "word_count" reuses the name of a plug-in tool — choose another name/,
  );
  assert.match(
    configError(withPlugin(
      `{module: "npm:@acme/t@1.0.0", tools: [word_count], permissions: {net: [api.acme.com]}}`,
    )),
    /plug-in "npm:@acme\/t@1\.0\.0" asks for the network, which tools\.allow_network forbids — set tools\.allow_network: true/,
  );
});

Deno.test("plug-in: a run's permissions start deno for its processes; its declared variables are not ragbench's", () => {
  const config = parseConfig(
    withPlugin(
      `{module: "npm:@acme/t@1.0.0", tools: [word_count], permissions: {env: [ACME_KEY]}}`,
    ),
    WHERE,
    REGISTRIES,
  );
  const needs = runNeeds(config, { mock: true, runDir: "runs" });
  assert.ok(needs.some((n) => n.name === "run" && n.value === Deno.execPath()));
  // ragbench itself never reads the plug-in's variable: only its process does.
  assert.ok(!needs.some((n) => n.name === "env" && n.value === "ACME_KEY"));
});

async function pluginTree(plugin: string, tools = "[word_count]") {
  // A plug-in's tool is valid in requires_tools, like a built-in.
  const requires = tools === "[word_count]" ? "\n  requires_tools: [word_count]" : "";
  return await tempTree({
    "q.yaml": `- id: q1\n  question: Count the words.${requires}\n`,
    "c.yaml": `name: t
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
tools:
  plugins:
    - ${plugin}
systems:
  - {type: agent_search, tools: ${tools}}
`,
  });
}

Deno.test("a local plug-in's tools are listed by ragbench tools --config, called in its sandbox, and recorded in run.json", async () => {
  await using t = await pluginTree(
    `{module: "${ACME}", tools: [word_count, env_var], permissions: {env: [ACME_TOKEN]}}`,
  );
  const listed = await runCli(["tools", "--config", t.path("c.yaml"), "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  const tools = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(tools.find((x) => x.name === "word_count"), {
    name: "word_count",
    description: "Count the words of a text.",
    side_effects: "none",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The text" } },
      required: ["text"],
    },
    plugin: ACME,
  });
  assert.ok(tools.some((x) => x.name === "env_var"));
  const count = await runCli([
    "tool",
    "word_count",
    "--config",
    t.path("c.yaml"),
    "--args",
    '{"text": "one two three"}',
  ]);
  assert.equal(JSON.parse(count.stdout).output, "3");
  // Only the declared variable reaches it; anything else is refused in its process.
  Deno.env.set("ACME_TOKEN", "t0k");
  const declared = await runCli([
    "tool",
    "env_var",
    "--config",
    t.path("c.yaml"),
    "--args",
    '{"name": "ACME_TOKEN"}',
  ]);
  assert.equal(JSON.parse(declared.stdout).output, "t0k");
  const other = await runCli([
    "tool",
    "env_var",
    "--config",
    t.path("c.yaml"),
    "--args",
    '{"name": "HOME"}',
  ]);
  const refused = JSON.parse(other.stdout);
  assert.equal(refused.error.kind, "permission");
  assert.match(refused.error.detail, /Requires env access to "HOME"/);
  const out = join(t.dir, "run");
  const run = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  assert.notEqual(run.code, 2, run.stderr);
  const manifest = JSON.parse(Deno.readTextFileSync(join(out, "run.json")));
  assert.equal(manifest.tools.plugins[0].package, "local");
  assert.ok(manifest.inputs.custom_tools.some((d: { path: string }) => d.path === ACME));
});

Deno.test("a plug-in reads only the paths it declared", async () => {
  await using t = await pluginTree(
    `{module: "${ACME}", tools: [read_secret], permissions: {read: [DIR]}}`,
    "[read_secret]",
  );
  const text = Deno.readTextFileSync(t.path("c.yaml")).replace("DIR", t.dir);
  Deno.writeTextFileSync(t.path("c.yaml"), text);
  Deno.writeTextFileSync(t.path("note.txt"), "inside");
  const call = (path: string) =>
    runCli([
      "tool",
      "read_secret",
      "--config",
      t.path("c.yaml"),
      "--args",
      JSON.stringify({ path }),
    ]);
  assert.equal(JSON.parse((await call(t.path("note.txt"))).stdout).output, "inside");
  const outside = JSON.parse((await call(`${ROOT}deno.json`)).stdout);
  assert.equal(outside.error.kind, "permission");
});

Deno.test("a plug-in that cannot be loaded stops the run with the reason: invalid schema, no such tool, no such module", async () => {
  const cases: Array<[string, string, RegExp]> = [
    [
      `{module: "${ACME}", tools: [bad_schema]}`,
      "[bad_schema]",
      /^Cannot load plug-in tool "bad_schema" from ".*acme_tools\.ts": its tool "bad_schema" is not valid: Tool "bad_schema": parameter "q" needs a description for the model — add \.describe\("\.\.\."\)\.$/m,
    ],
    [
      `{module: "${ACME}", tools: [word_cont]}`,
      "[word_cont]",
      /^Cannot load plug-in tool "word_cont" from ".*acme_tools\.ts": it exports no tool named "word_cont" \(its tools: "bad_schema", "env_var", "read_secret", "word_count"\)\.$/m,
    ],
    [
      `{module: "${ROOT}tests/fixtures/plugins/missing.ts", tools: [word_count]}`,
      "[word_count]",
      /^Cannot load plug-in tool "word_count" from ".*missing\.ts": its process exited: .*Module not found/m,
    ],
  ];
  for (const [plugin, tools, message] of cases) {
    await using t = await pluginTree(plugin, tools);
    const out = join(t.dir, "run");
    const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, message);
  }
});

Deno.test("an npm plug-in that is not in Deno's cache is never downloaded: the run stops saying how to cache it", async () => {
  await using t = await pluginTree(
    `{module: "npm:@acme/ragbench-tools@1.2.3", tools: [word_count]}`,
  );
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", join(t.dir, "run")]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /Cannot load plug-in tool "word_count" from "npm:@acme\/ragbench-tools@1\.2\.3": .*not found in cache.*; runs never download: cache and lock it once with `deno cache --frozen=false npm:@acme\/ragbench-tools@1\.2\.3` in ragbench's folder \(it is then in deno\.lock\)\./s,
  );
});
