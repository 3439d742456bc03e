import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { yamlLibrary } from "../../../lib/util/yaml_library.ts";
import { staticGraph } from "../../support/static_graph.ts";

const PROBE = fileURLToPath(new URL("../../fixtures/util/yaml_loading_probe.ts", import.meta.url));

Deno.test("the yaml library loads only when a position is asked for, not to read or write a plain document", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", PROBE],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), [
    ["parsed", false],
    ["written", false],
    ["located line 3", true],
  ]);
});

Deno.test("the run command does not load the yaml library statically", async () => {
  const graph = await staticGraph("lib/cli/run_command.ts");
  assert.ok([...graph].some((s) => s.endsWith("lib/util/yaml_source.ts")), "graph was walked");
  assert.deepEqual([...graph].filter((s) => s.includes("npm:yaml@")), []);
});

Deno.test("yamlLibrary is the same module a static import gets", async () => {
  const imported = await import("yaml");
  assert.equal(yamlLibrary().parseDocument, imported.parseDocument);
  assert.equal(yamlLibrary(), yamlLibrary());
});
