import assert from "node:assert/strict";
import { join } from "node:path";
import { execCli, lineAfter, ROOT, runCli, runPrinted } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

function taskFlags(task: string): string {
  const command = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks[task] as string;
  return command.replace(/^deno run /, "").replace(/ main\.ts .*$/, "")
    .replace("$(deno eval 'console.log(Deno.execPath())')", Deno.execPath());
}

Deno.test("permissions --mock for all.yaml prints exactly the flags deno task bench runs with", async () => {
  const result = await execCli(["--allow-read"], ["permissions", "configs/all.yaml", "--mock"]);
  assert.equal(result.code, 0, result.stderr);
  const runFlags = result.stdout.split("\n")[1];
  assert.equal(runFlags, taskFlags("bench"));
  assert.doesNotMatch(runFlags, /--allow-net|--allow-env/);
  // The code agent's sandbox processes: the deno executable, nothing else.
  assert.ok(runFlags.endsWith(` --allow-run=${Deno.execPath()}`), runFlags);
  assert.match(
    result.stdout,
    /^--allow-run=\S+ +starting the code agent's sandbox processes \(deno run, no permissions\)$/m,
  );
  assert.match(result.stdout, /^--allow-write=runs +the run directory$/m);
});

Deno.test("permissions without --mock adds the API key variable and the model host, and nothing else", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
model: {name: llama3, base_url: "http://localhost:11434/v1", api_key_env: LOCAL_KEY}
systems: [{type: closed_book}]
`,
  });
  const result = await runCli([
    "permissions",
    t.path("c.yaml"),
    "--out",
    t.path("out"),
    "--cache",
    "off",
  ]);
  assert.equal(result.code, 0);
  const flags = result.stdout.split("\n")[1];
  assert.equal(
    flags,
    `--unstable-worker-options --unstable-raw-imports --allow-read=${t.path("c.yaml")},${
      t.path("corpus.json")
    },${t.path("q.yaml")},tools,lib,${t.path("out")} --allow-write=${
      t.path("out")
    } --allow-env=LOCAL_KEY --allow-net=localhost:11434`,
  );
});

Deno.test("permissions with a custom tool adds run for the tool's process; compile flags add its side effects", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
tools: {allow: [web], allow_network: true}
systems:
  - type: agent_search
    tools: [{name: web, path: "./tools.ts#web", side_effects: network}]
`,
  });
  const result = await runCli(["permissions", t.path("c.yaml"), "--mock"]);
  const lines = result.stdout.split("\n");
  assert.match(lines[1], new RegExp(`--allow-run=${Deno.execPath().replaceAll(".", "\\.")}$`));
  assert.doesNotMatch(lines[1], /--allow-net/, "the tool's process gets the network, not ragbench");
  assert.match(lines[4], /--include=.*builtin_worker\.ts/);
  assert.match(lines[4], /--allow-net --allow-run=ragbench$/);
  assert.match(lines[4], new RegExp(`--allow-read=.*${t.path("tools.ts").replaceAll(".", "\\.")}`));
});

Deno.test("run stops before any question, naming each missing permission flag", async () => {
  await using t = await tempTree();
  const result = await execCli(
    [`--allow-read=${ROOT}configs`],
    ["run", "configs/all.yaml", "--mock", "--out", t.path("out")],
  );
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^Cannot start the run: Deno did not grant these permissions:$/m);
  assert.match(result.stderr, /^ {2}--allow-read=arenas\/rag\/corpus\.json {2}\(the corpus\)$/m);
  assert.match(result.stderr, /--allow-write=.*out {2}\(the run directory\)$/m);
  assert.ok(
    result.stderr.includes(
      `  --allow-run=${Deno.execPath()}  (starting the code agent's sandbox processes (deno run, no permissions))\n`,
    ),
    result.stderr,
  );
  // The hint is a command that works as printed, with the options given: its flags then run it.
  const hint = lineAfter(result.stderr, "Print every flag the run needs with:");
  assert.equal(
    hint,
    `deno run --allow-read=configs/all.yaml main.ts permissions configs/all.yaml --out ${
      t.path("out")
    } --mock`,
  );
  assert.throws(() => Deno.statSync(t.path("out")), Deno.errors.NotFound);
  const printed = await runPrinted(hint);
  assert.equal(printed.code, 0, printed.stderr);
  const flags = printed.stdout.split("\n")[1];
  const run = await runPrinted(
    `deno run --no-prompt ${flags} main.ts run configs/all.yaml --out ${
      t.path("out")
    } --mock --limit 1 --quiet`,
  );
  assert.equal(run.code, 0, run.stderr);
});

Deno.test("run without --mock names the missing env and net flags", async () => {
  const result = await execCli(
    [`--allow-read=${ROOT}`, `--allow-write=${ROOT}runs`],
    ["run", "configs/rag.yaml"],
  );
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /--allow-env=OPENAI_API_KEY {2}\(the model API key \(model\.api_key_env\)\)/,
  );
  assert.match(result.stderr, /--allow-net=api\.openai\.com:443 {2}\(the model API\)/);
});

Deno.test("permissions for a BEIR config read the BEIR folder, once", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: {beir: data/scifact}
questions: {beir: data/scifact, split: dev}
systems: [{type: closed_book}]
`,
  });
  const result = await runCli(["permissions", t.path("c.yaml"), "--mock", "--out", t.path("out")]);
  assert.equal(result.code, 0, result.stderr);
  const flags = result.stdout.split("\n")[1];
  assert.match(
    flags,
    new RegExp(`--allow-read=${t.path("c.yaml")},${t.path("data/scifact")},tools`),
  );
});

Deno.test("permissions for an openai vector retriever adds the cache folder, its variables, the key and the host; --mock adds none", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
model: {name: llama3, base_url: "http://localhost:11434/v1", api_key_env: null}
retrievers:
  dense: {kind: vector, embedding: {base_url: "http://127.0.0.1:8080/v1", api_key_env: EMBED_KEY}}
  lexical: {kind: hybrid, embedding: {provider: hashing}}
  unused: {kind: vector, embedding: {base_url: "http://unused.example/v1"}}
systems:
  - {type: rag, retriever: dense}
  - {type: retrieval_only, retriever: lexical}
`,
  });
  const real = await runCli(["permissions", t.path("c.yaml"), "--cache-dir", t.path("cache")]);
  assert.equal(real.code, 0, real.stderr);
  const flags = real.stdout.split("\n")[1];
  assert.match(flags, new RegExp(`--allow-read=[^ ]*${t.path("cache")}`));
  assert.match(flags, new RegExp(`--allow-write=[^ ]*${t.path("cache")}`));
  assert.match(flags, / --allow-env=EMBED_KEY /);
  assert.match(flags, / --allow-net=localhost:11434,127\.0\.0\.1:8080$/);
  assert.match(real.stdout, /--allow-read=\S+cache +the embedding cache$/m);
  const noCacheDir = await execCli(["--allow-read", "--allow-env"], [
    "permissions",
    t.path("c.yaml"),
  ], { env: { RAGBENCH_CACHE_DIR: t.path("rb-cache") } });
  assert.equal(noCacheDir.code, 0, noCacheDir.stderr);
  assert.match(noCacheDir.stdout, /--allow-env=EMBED_KEY,RAGBENCH_CACHE_DIR /);
  assert.match(noCacheDir.stdout, /^--allow-env=RAGBENCH_CACHE_DIR +finding the cache folder$/m);
  const mock = await runCli(["permissions", t.path("c.yaml"), "--mock"]);
  assert.equal(mock.code, 0, mock.stderr);
  assert.doesNotMatch(mock.stdout.split("\n")[1], /--allow-env|--allow-net|cache/);
});
