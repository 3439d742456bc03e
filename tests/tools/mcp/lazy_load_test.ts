import assert from "node:assert/strict";
import { ROOT } from "../../support/cli.ts";

interface InfoModule {
  specifier: string;
  dependencies?: Array<{ code?: { specifier: string }; isDynamic?: boolean }>;
}

/** Specifiers loaded when `entry` is imported (static `import` only; `import type` and `await import` skipped). */
async function staticClosure(entry: string): Promise<Set<string>> {
  const { stdout, success } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
  }).output();
  assert.ok(success);
  const info = JSON.parse(new TextDecoder().decode(stdout)) as {
    roots: string[];
    modules: InfoModule[];
  };
  const byName = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [...info.roots];
  while (stack.length) {
    const spec = stack.pop()!;
    if (seen.has(spec)) continue;
    seen.add(spec);
    for (const dep of byName.get(spec)?.dependencies ?? []) {
      if (dep.code && !dep.isDynamic) stack.push(dep.code.specifier);
    }
  }
  return seen;
}

for (
  const entry of [
    "main.ts",
    "lib/cli/run_command.ts",
    "lib/cli/permissions_command.ts",
    "lib/cli/tools_command.ts",
  ]
) {
  Deno.test(`${entry} does not load the MCP SDK until a server starts`, async () => {
    const loaded = [...await staticClosure(entry)];
    assert.deepEqual(loaded.filter((s) => s.includes("@modelcontextprotocol")), []);
    assert.ok(loaded.some((s) => s.endsWith(entry)));
  });
}
