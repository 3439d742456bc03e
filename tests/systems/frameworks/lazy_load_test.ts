import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../lib/plan/setup.ts";
import { SYSTEMS } from "../../../systems/registry.ts";
import { FRAMEWORKS } from "../../../systems/frameworks/registry.ts";
import { ROOT, runCli } from "../../support/cli.ts";
import { frameworkProcesses } from "../../support/frameworks.ts";

/**
 * Every module `deno run ENTRY` would resolve, dynamic imports included, and
 * the npm packages they name (`npm:/name@version/...`).
 */
async function wholeGraph(entry: string): Promise<{ modules: string[]; packages: string[] }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  const modules = info.modules.map((m) => m.specifier);
  return {
    modules,
    packages: modules.filter((m) => m.startsWith("npm:/")).map((m) => m.slice("npm:/".length)),
  };
}

const FRAMEWORK_PACKAGES =
  /^(ai|@ai-sdk\/[^/]+|langchain|@langchain\/[^/]+|@openai\/agents[^/]*|@mastra\/[^/]+|@llamaindex\/[^/]+)@/;

for (const entry of ["main.ts", "lib/cli/run_command.ts", "systems/registry.ts"]) {
  Deno.test(`${entry} never loads a framework: no framework package and no adapter in its whole module graph`, async () => {
    const { modules, packages } = await wholeGraph(entry);
    assert.ok(modules.some((m) => m.endsWith(entry)));
    assert.deepEqual(packages.filter((p) => FRAMEWORK_PACKAGES.test(p)), []);
    const adapters = [...FRAMEWORKS.values()].map((m) => m.adapter.href);
    assert.deepEqual(modules.filter((m) => adapters.includes(m)), []);
    assert.deepEqual(modules.filter((m) => m.endsWith("systems/frameworks/child_runtime.ts")), []);
  });
}

Deno.test("an adapter's graph does hold its framework (the walk above would see one)", async () => {
  const { packages } = await wholeGraph("systems/frameworks/ai_sdk.ts");
  assert.ok(packages.some((p) => p.startsWith("ai@7.")), packages.join(", "));
});

Deno.test("a config naming no framework starts no framework process: all.yaml's systems have nothing to start", async () => {
  const loaded = await loadRun(join(ROOT, "configs/all.yaml"), { mock: true });
  const starters = loaded.config.systems.filter((s) => SYSTEMS.get(s.type)?.start !== undefined);
  assert.deepEqual(starters, []);
  const before = frameworkProcesses();
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  assert.deepEqual(frameworkProcesses(), before);
});
