import assert from "node:assert/strict";
import {
  type ChildLike,
  KILL_AFTER_MS,
  planLaunch,
  SAME_PRESS_MS,
  shownCommand,
  type SignalHub,
  superviseChild,
} from "../../../lib/cli/launcher.ts";
import { COMMAND_NEEDS } from "../../../lib/cli/command_needs.ts";
import { LAUNCHED_AS } from "../../../lib/cli/invocation.ts";
import { COMMAND_NAMES, commandSpec } from "../../../main.ts";
import { ROOT } from "../../support/cli.ts";
import { tempTree } from "../../support/temp.ts";

const context = {
  program: "deno task ragbench",
  main: `${ROOT}main.ts`,
  specOf: commandSpec,
  cwd: ROOT.replace(/\/$/, ""),
};

Deno.test("every command main.ts knows declares what it needs (a new command must add its entry)", () => {
  for (const name of COMMAND_NAMES) {
    assert.ok(COMMAND_NEEDS.has(name), `lib/cli/command_needs.ts has no entry for "${name}"`);
  }
});

Deno.test("launch plan: run gets exactly the flags permissions prints; --show-permissions stays with the launcher", async () => {
  const plan = await planLaunch(
    ["run", "configs/rag.yaml", "--mock", "--show-permissions", "--limit", "2"],
    context,
  );
  assert.ok(plan.show);
  assert.deepEqual(plan.args, [
    "run",
    "--no-prompt",
    "--unstable-worker-options",
    "--unstable-raw-imports",
    "--allow-read=configs/rag.yaml,arenas/rag/corpus.json,arenas/rag/questions.yaml,arenas/rag/mock.yaml,tools,lib,runs",
    "--allow-write=runs",
    `${ROOT}main.ts`,
    LAUNCHED_AS,
    "deno task ragbench",
    "run",
    "configs/rag.yaml",
    "--mock",
    "--limit",
    "2",
  ]);
  assert.equal(
    shownCommand("/bin/deno", plan),
    `/bin/deno run --no-prompt --unstable-worker-options --unstable-raw-imports --allow-read=configs/rag.yaml,arenas/rag/corpus.json,arenas/rag/questions.yaml,arenas/rag/mock.yaml,tools,lib,runs --allow-write=runs ${ROOT}main.ts run configs/rag.yaml --mock --limit 2`,
  );
  // --verbose shows them too, and is passed on; after "--" nothing is the launcher's.
  assert.ok((await planLaunch(["run", "configs/rag.yaml", "--verbose"], context)).show);
  const after = await planLaunch(["run", "--", "--show-permissions"], context).catch((e) => e);
  assert.match(String(after), /--show-permissions/, "a positional after -- is the config's name");
});

Deno.test("launch plan: help, version, a typo of a command and --help of a command get no permission", async () => {
  for (
    const argv of [[], ["--help"], ["--version"], ["rnu", "configs/rag.yaml"], [
      "run",
      "--help",
    ], ["tools"]]
  ) {
    const plan = await planLaunch(argv, context);
    assert.deepEqual(plan.needs, [], argv.join(" "));
    assert.ok(!plan.args.some((a) => a.startsWith("--allow-")), argv.join(" "));
  }
});

Deno.test("launch plan: the commands that need no config get only what they read or write", async () => {
  await using t = await tempTree();
  const flags = async (argv: string[]) =>
    (await planLaunch(argv, context)).args.filter((a) => a.startsWith("--allow-"));
  assert.deepEqual(await flags(["permissions", "configs/rag.yaml", "--mock"]), [
    "--allow-read=configs/rag.yaml",
  ]);
  assert.deepEqual(await flags(["validate", "configs/rag.yaml"]), [
    "--allow-read=configs/rag.yaml,arenas/rag/corpus.json,arenas/rag/questions.yaml,arenas/rag/mock.yaml",
  ]);
  assert.deepEqual(await flags(["report", `${t.dir}/run/`, "--junit", t.path("j.xml")]), [
    `--allow-read=${t.dir}/run`,
    `--allow-write=${t.dir}/run,${t.path("j.xml")}`,
  ]);
  assert.deepEqual(await flags(["compare", t.path("a"), t.path("b")]), [
    `--allow-read=${t.path("a")},${t.path("b")}`,
  ]);
  assert.deepEqual(await flags(["merge", t.path("out/"), t.path("s1"), `${t.path("s2")}/`]), [
    `--allow-read=${t.path("s1")},${t.path("s2")},${t.path("out")}`,
    `--allow-write=${t.path("out")}`,
  ]);
  assert.deepEqual(await flags(["merge", "--help"]), []);
  assert.deepEqual(await flags(["tool", "calculator", "--args", '{"expression":"1+1"}']), [
    "--allow-read=tools,lib",
  ]);
  assert.deepEqual(
    await flags(["tool", "search", "--config", "configs/all.yaml", "--retriever", "bm25"]),
    [
      "--allow-read=configs/all.yaml,arenas/rag/corpus.json,arenas/tools/corpus",
    ],
  );
  assert.deepEqual(
    await flags(["tools", "--config", "configs/mcp_example.yaml"]).then((f) =>
      f.map((x) => x.replace(/=.*/, ""))
    ),
    ["--allow-read", "--allow-env", "--allow-run"],
  );
});

Deno.test("launch plan: a config that is not there is the config's error, not a permission's", async () => {
  await assert.rejects(
    planLaunch(["run", "configs/al.yaml", "--mock"], context),
    /^RagbenchError: Cannot read config "configs\/al\.yaml": no such file or folder\.$/,
  );
  await assert.rejects(
    planLaunch(["run", "configs/rag.yaml", "--mokc"], context),
    /Unknown option "--mokc" for "ragbench run" — did you mean "--mock"\? See deno task ragbench run --help\./,
  );
});

Deno.test("launch plan: permissions of a run that uses the cache folder gets the variables that find it", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
model: {name: m, base_url: "http://127.0.0.1:9/v1", api_key_env: KEY}
systems: [{type: closed_book}]
`,
  });
  const plan = await planLaunch(["permissions", t.path("c.yaml")], context);
  const names = plan.needs.map((n) => `${n.name} ${n.value}`);
  assert.equal(names[0], `read ${t.path("c.yaml")}`);
  // The default --cache read-write: which variables are read depends on this machine's.
  assert.ok(names.slice(1).every((n) => /^env (RAGBENCH_CACHE_DIR|XDG_CACHE_HOME|HOME)$/.test(n)));
  assert.ok(names.length >= 2, names.join("; "));
  const given = await planLaunch(
    ["permissions", t.path("c.yaml"), "--cache-dir", t.path("cache")],
    context,
  );
  assert.deepEqual(given.needs.map((n) => n.name), ["read"]);
});

/** A child that exits when told, and a hub whose signals the test sends. */
function fakes() {
  const sent: string[] = [];
  let exit!: (code: number) => void;
  const child: ChildLike = {
    status: new Promise((resolve) =>
      exit = (code) => resolve({ success: code === 0, code, signal: null })
    ),
    kill: (signal) => void sent.push(signal ?? "SIGTERM"),
  };
  const handlers = new Map<string, () => void>();
  const hub: SignalHub = {
    listen(signal, handler) {
      handlers.set(signal, handler);
      return () => handlers.delete(signal);
    },
  };
  return { sent, exit: (code: number) => exit(code), child, hub, handlers };
}

Deno.test("supervise: one Ctrl-C that arrives twice (terminal and deno task) is passed on once; a later one again", async () => {
  const f = fakes();
  const clock = { t: 1000 };
  const done = superviseChild(f.child, { signals: f.hub, now: () => clock.t });
  f.handlers.get("SIGINT")!();
  clock.t += 5;
  f.handlers.get("SIGINT")!();
  assert.deepEqual(f.sent, ["SIGINT"]);
  clock.t += SAME_PRESS_MS;
  f.handlers.get("SIGINT")!();
  assert.deepEqual(f.sent, ["SIGINT", "SIGINT"]);
  f.exit(130);
  assert.equal(await done, 130);
  assert.equal(f.handlers.size, 0, "the listeners are removed when the child exits");
});

Deno.test("supervise: SIGTERM and SIGHUP are passed on; a child that outlives them is killed", async () => {
  const f = fakes();
  const done = superviseChild(f.child, { signals: f.hub, killAfterMs: 50 });
  f.handlers.get("SIGTERM")!();
  f.handlers.get("SIGHUP")!();
  assert.deepEqual(f.sent, ["SIGTERM", "SIGHUP"]);
  await new Promise((r) => setTimeout(r, 120));
  assert.deepEqual(f.sent, ["SIGTERM", "SIGHUP", "SIGKILL"]);
  f.exit(137);
  assert.equal(await done, 137);
  assert.ok(KILL_AFTER_MS > 3000, "the default leaves the child's own quit (3 s) time to finish");
});
