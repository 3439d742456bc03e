import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { lineAfter, ROOT, runPrinted } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

/** The README's command that starts with `start` (in a sh block), the `deno install` one say. */
function readmeCommand(start: string): string {
  const readme = Deno.readTextFileSync(join(ROOT, "README.md"));
  const lines = readme.split("\n").filter((l) => l.startsWith(start));
  assert.equal(lines.length, 1, `the README has one line starting "${start}"`);
  return lines[0];
}

Deno.test("the README's deno install makes a ragbench command that works from any folder, hints included", async () => {
  await using t = await tempTree({ "work/.keep": "" });
  const root = t.path("deno");
  // The Deno running the tests first on PATH: the command's --allow-run names its executable.
  const path = `${root}/bin:${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`;
  const env = { PATH: path, DENO_INSTALL_ROOT: root };
  const install = await runPrinted(readmeCommand("deno install -g "), { env });
  assert.equal(install.code, 0, install.stderr);

  const work = t.path("work");
  const help = await runPrinted("ragbench --help", { cwd: work, env });
  assert.equal(help.code, 0, help.stderr);
  const start = help.stdout.match(/^Start with: (.*)$/m)?.[1];
  assert.equal(start, `ragbench run ${ROOT}configs/all.yaml --mock`);
  const first = await runPrinted(start!, { cwd: work, env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^agent_all_tools +21 +1\.000 /m);
  assert.ok(
    [...Deno.readDirSync(join(work, "runs"))].length === 1,
    "the run is in the folder's runs/",
  );

  const config = `${ROOT}configs/rag.yaml`;
  const args = `ragbench run ${config} --mock --out out --limit 1 --quiet`;
  assert.equal((await runPrinted(args, { cwd: work, env })).code, 0);
  const again = await runPrinted(args, { cwd: work, env });
  assert.equal(again.code, 2);
  const hint = lineAfter(again.stderr, "continue that run with:");
  assert.equal(hint, `ragbench run ${config} --resume out --mock --limit 1`);
  const resumed = await runPrinted(hint, { cwd: work, env });
  assert.equal(resumed.code, 0, resumed.stderr);

  const uninstall = await runPrinted(readmeCommand("deno uninstall -g "), { env });
  assert.equal(uninstall.code, 0, uninstall.stderr);
  assert.throws(() => Deno.statSync(join(root, "bin", "ragbench")), Deno.errors.NotFound);
});

Deno.test("a ragbench command whose --allow-run names another Deno says to install it again", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-run=/old/path/to/deno",
      "ragbench.ts",
      "--help",
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 2);
  assert.equal(
    stderr,
    `ragbench cannot start Deno (${Deno.execPath()}): it was started without --allow-run=${Deno.execPath()}. ` +
      "If it was installed with deno install, Deno has moved since; install it again " +
      "(see the README, Install).\n",
  );
});
