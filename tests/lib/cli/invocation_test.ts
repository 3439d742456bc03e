import assert from "node:assert/strict";
import { commandLine, LAUNCHED_AS, readInvocation } from "../../../lib/cli/invocation.ts";
import { resumeCommand } from "../../../lib/cli/resume_hint.ts";
import type { Need } from "../../../lib/plan/need.ts";

const where = {
  mainModule: "/repo/main.ts",
  standalone: false,
  execPath: "/usr/bin/deno",
  cwd: "/repo",
};

Deno.test("invocation: the launcher's hidden first words, a compiled binary, or deno run main.ts", () => {
  assert.deepEqual(readInvocation([LAUNCHED_AS, "deno task ragbench", "run", "c.yaml"], where), {
    invocation: { kind: "launcher", program: "deno task ragbench" },
    argv: ["run", "c.yaml"],
  });
  assert.deepEqual(
    readInvocation(["run", "c.yaml"], {
      ...where,
      standalone: true,
      execPath: "/repo/dist/ragbench",
    }),
    {
      invocation: { kind: "compiled", program: "dist/ragbench" },
      argv: ["run", "c.yaml"],
    },
  );
  assert.deepEqual(readInvocation(["--help"], { ...where, cwd: "/elsewhere" }), {
    invocation: { kind: "deno_run", program: "deno run /repo/main.ts", entry: "/repo/main.ts" },
    argv: ["--help"],
  });
  // An empty name is no launcher's: the words are ragbench's own (and will be refused).
  assert.equal(readInvocation([LAUNCHED_AS, " "], where).invocation.kind, "deno_run");
});

Deno.test("commandLine: words are shell-quoted; under deno run the flags the command needs come first", () => {
  const needs: Need[] = [
    { name: "read", value: "/repo/my configs/c.yaml", why: "the config" },
    { name: "write", value: "/repo/runs", why: "the run directory" },
  ];
  assert.equal(
    commandLine({ kind: "launcher", program: "ragbench" }, ["run", "my configs/c.yaml"], { needs }),
    "ragbench run 'my configs/c.yaml'",
  );
  assert.equal(
    commandLine(
      { kind: "deno_run", program: "deno run main.ts", entry: "main.ts" },
      ["run", "my configs/c.yaml"],
      { needs, unstable: true, cwd: "/repo" },
    ),
    "deno run --unstable-worker-options --unstable-raw-imports '--allow-read=my configs/c.yaml' --allow-write=runs main.ts run 'my configs/c.yaml'",
  );
});

Deno.test("the resume command in each form carries the options given", () => {
  const args = {
    configPath: "c.yaml",
    dir: "out",
    mock: true,
    systems: "a,b",
    junit: "ci/j.xml",
    cache: [["cache-dir", "/c"]] as Array<[string, string]>,
  };
  assert.equal(
    resumeCommand(args, { invocation: { kind: "launcher", program: "deno task ragbench" } }),
    "deno task ragbench run c.yaml --resume out --mock --systems a,b --junit ci/j.xml --cache-dir /c",
  );
  assert.equal(
    resumeCommand(args, {
      invocation: { kind: "deno_run", program: "deno run main.ts", entry: "main.ts" },
      needs: () => [{ name: "write", value: `${Deno.cwd()}/out`, why: "the run directory" }],
    }),
    "deno run --unstable-worker-options --unstable-raw-imports --allow-write=out main.ts run c.yaml --resume out --mock --systems a,b --junit ci/j.xml --cache-dir /c",
  );
});
