import assert from "node:assert/strict";
import { REACT_JSON_PROMPTS } from "../../lib/llm/react_json.ts";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import { parseManifest } from "../../lib/run/manifest.ts";
import { METRIC_DEFINITIONS, SCORER_VERSION } from "../../lib/score/definitions.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { AGENT_SEARCH_PROMPT } from "../../systems/agent_search.ts";
import { FINAL_ANSWER_PROMPT } from "../../systems/agent_loop.ts";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { unusedPort } from "../support/fake_openai_server.ts";
import { endpointConfig } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";

/** The rag arena config with its own copies of the question and mock files, so a test can edit them. */
async function editableRun() {
  const rag = (name: string) => Deno.readTextFileSync(join(ROOT, "arenas/rag", name));
  return await tempTree({
    "questions.yaml": rag("questions.yaml"),
    "mock.yaml": rag("mock.yaml"),
    "c.yaml": `name: rag
corpus: ${ROOT}arenas/rag/corpus.json
questions: questions.yaml
mock_script: mock.yaml
systems:
  - {type: closed_book, name: closed_book}
  - {type: agent_search, name: agent_search}
`,
  });
}

const sha256 = (path: string) => createHash("sha256").update(Deno.readFileSync(path)).digest("hex");

const manifestOf = (dir: string) =>
  parseManifest(Deno.readTextFileSync(join(dir, "run.json")), join(dir, "run.json"));

Deno.test("run.json records the version, hashes of every input, prompts, tool schemas, scorer, times and machine", async () => {
  await using t = await editableRun();
  const out = t.path("run");
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--out",
    out,
    "--limit",
    "2",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const m = manifestOf(out);
  assert.equal(
    m.ragbench_version,
    JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).version,
  );
  assert.match(m.config_sha256, /^[0-9a-f]{64}$/);
  assert.equal(m.mock, true);
  assert.deepEqual(m.inputs.corpus, [{
    path: join(ROOT, "arenas/rag/corpus.json"),
    sha256: sha256(join(ROOT, "arenas/rag/corpus.json")),
    files: 1,
  }]);
  assert.equal(m.inputs.questions[0].sha256, sha256(t.path("questions.yaml")));
  assert.equal(m.inputs.mock_script[0].sha256, sha256(t.path("mock.yaml")));
  assert.deepEqual(m.selection, { limit: 2, questions: 2 });
  const agent = m.systems.find((s) => s.name === "agent_search")!;
  assert.deepEqual(agent.tools, ["search"]);
  const promptsHash = createHash("sha256")
    .update(JSON.stringify([AGENT_SEARCH_PROMPT, FINAL_ANSWER_PROMPT, ...REACT_JSON_PROMPTS]))
    .digest("hex");
  assert.equal(agent.prompts_sha256, promptsHash);
  assert.match(agent.tool_schemas_sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(m.scorer, { version: SCORER_VERSION, metrics: { ...METRIC_DEFINITIONS } });
  assert.ok(Date.parse(m.started_at) <= Date.parse(m.ended_at!));
  assert.equal(m.sessions.length, 1);
  assert.deepEqual(m.machine, {
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpus: navigator.hardwareConcurrency,
    deno: Deno.version.deno,
  });
});

Deno.test("--resume with a changed question file refuses, naming the file, and leaves the run as it was", async () => {
  await using t = await editableRun();
  const out = t.path("run");
  assert.equal(
    (await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--limit", "2"]))
      .code,
    0,
  );
  const before = Deno.readTextFileSync(join(out, RESULTS));
  const manifest = Deno.readTextFileSync(join(out, "run.json"));
  Deno.writeTextFileSync(t.path("questions.yaml"), "\n# edited\n", { append: true });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--resume",
    out,
    "--limit",
    "2",
  ]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    [
      `--resume ${out}: this run differs from the one in the folder, so its results would mix two runs:`,
      `  questions: "${t.path("questions.yaml")}" changed`,
      "Resume with the same config and files, write a new run with --out, or add --force to continue anyway.",
    ].join("\n"),
  );
  assert.equal(Deno.readTextFileSync(join(out, RESULTS)), before);
  assert.equal(Deno.readTextFileSync(join(out, "run.json")), manifest);
  assert.throws(() => Deno.statSync(join(out, "run.lock")), Deno.errors.NotFound);
});

Deno.test("--resume --force continues a changed run, says what it overrode and records it in run.json", async () => {
  await using t = await editableRun();
  const out = t.path("run");
  assert.equal(
    (await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--limit", "2"]))
      .code,
    0,
  );
  Deno.writeTextFileSync(t.path("c.yaml"), "evaluation: {repeats: 2}\n", { append: true });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--resume",
    out,
    "--limit",
    "2",
    "--force",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /^--force: resuming despite: evaluation\.repeats: 1 → 2$/m);
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 8, "2 systems × 2 questions × 2 repeats, each once");
  assert.equal(new Set(lines.map((l) => `${l.system}/${l.question_id}/${l.repeat}`)).size, 8);
  const m = manifestOf(out);
  assert.equal(m.sessions.length, 2);
  assert.deepEqual(m.sessions[1].forced_differences, ["evaluation.repeats: 1 → 2"]);
  assert.equal(m.started_at, m.sessions[0].started_at);
  assert.equal(m.evaluation.repeats, 2);
});

Deno.test("--resume without --mock of a --mock run refuses, saying so", async () => {
  await using t = await tempTree({
    "c.yaml": endpointConfig(`http://127.0.0.1:${unusedPort()}/v1`),
  });
  const out = t.path("run");
  assert.equal(
    (await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--limit", "1"]))
      .code,
    0,
  );
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--resume",
    out,
    "--limit",
    "1",
  ]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /\n {2}mock: the earlier run used --mock; this one does not\n/);
  assert.equal((await readJsonl(join(out, RESULTS))).length, 1);
});

Deno.test("--resume of a run without run.json refuses unless --force", async () => {
  await using t = await editableRun();
  const out = t.path("run");
  const argv = ["run", t.path("c.yaml"), "--mock", "--limit", "2"];
  assert.equal((await runCli([...argv, "--out", out, "--systems", "closed_book"])).code, 0);
  Deno.removeSync(join(out, "run.json"));
  const refused = await runCli([...argv, "--resume", out]);
  assert.equal(refused.code, 2);
  assert.equal(
    refused.stderr,
    `Cannot check that --resume ${out} continues the same run: it has no run.json (an older ragbench made it, or ragbench did not). Add --force to continue it anyway.`,
  );
  const forced = await runCli([...argv, "--resume", out, "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal((await readJsonl(join(out, RESULTS))).length, 4);
  assert.equal(manifestOf(out).sessions[0].forced_differences.length, 1);
});

Deno.test("--resume keeps results unique by system, question and repeat when the file repeats a line", async () => {
  await using t = await editableRun();
  const out = t.path("run");
  const argv = ["run", t.path("c.yaml"), "--mock", "--limit", "2"];
  assert.equal((await runCli([...argv, "--out", out])).code, 0);
  const first = Deno.readTextFileSync(join(out, RESULTS)).split("\n")[0];
  Deno.writeTextFileSync(join(out, RESULTS), first + "\n", { append: true });
  const resumed = await runCli([...argv, "--resume", out]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /^resume: 1 repeated result lines dropped \(first kept\)$/m);
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 4);
  assert.match(
    Deno.readTextFileSync(join(out, "metrics_summary.csv")),
    /^closed_book,closed_book,mock:gpt-4o-mini,2,/m,
  );
});

Deno.test("a summary that cannot be written names the file, keeps the results and says how to resume (exit 1)", async () => {
  await using t = await editableRun();
  const out = t.path("run");
  const argv = ["run", t.path("c.yaml"), "--mock", "--limit", "1"];
  assert.equal((await runCli([...argv, "--out", out])).code, 0);
  const results = Deno.readTextFileSync(join(out, RESULTS));
  // A folder where the summary goes: the rename onto it fails, as a full disk would fail the write.
  Deno.removeSync(join(out, "metrics_summary.csv"));
  Deno.mkdirSync(join(out, "metrics_summary.csv/blocker"), { recursive: true });
  const failed = await runCli([...argv, "--resume", out]);
  assert.equal(failed.code, 1);
  assert.match(
    failed.stderr,
    new RegExp(
      `^Cannot write "${join(out, "metrics_summary.csv")}": .+\\.\\n` +
        `The results finished before it are kept in "${join(out, RESULTS)}"\\. ` +
        `Make room \\(or fix the permission\\), then continue with:\\n` +
        ` {2}ragbench run ${t.path("c.yaml")} --resume ${out} --mock --limit 1$`,
      "m",
    ),
  );
  assert.equal(Deno.readTextFileSync(join(out, RESULTS)), results);
  assert.throws(() => Deno.statSync(join(out, "run.lock")), Deno.errors.NotFound);
  assert.deepEqual([...Deno.readDirSync(out)].filter((e) => e.name.endsWith(".tmp")), []);
  Deno.removeSync(join(out, "metrics_summary.csv"), { recursive: true });
  const again = await runCli([...argv, "--resume", out]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    Deno.readTextFileSync(join(out, "metrics_summary.csv")),
    /^closed_book,closed_book,mock:gpt-4o-mini,1,/m,
  );
});

Deno.test("a custom-tool run under exactly the flags `permissions` prints works; run.json leaves the unreadable module unhashed", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  const config = "configs/custom_tool.yaml";
  const printed = await runCli(["permissions", config, "--mock", "--out", out]);
  assert.equal(printed.code, 0, printed.stderr);
  const flags = printed.stdout.split("\n")[1].split(" ").filter((f) => f.startsWith("--allow-"));
  const result = await execCli(flags, ["run", config, "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const m = manifestOf(out);
  assert.deepEqual(m.inputs.custom_tools, [
    { path: join(ROOT, "examples/custom_tool/unit_convert.ts"), sha256: null, files: 0 },
  ]);
  assert.deepEqual(m.systems.find((s) => s.name === "agent_with_converter")?.tools, [
    "search",
    "convert_length",
  ]);
});

Deno.test("--resume refuses when a named retriever's settings changed, though the system names the same one", async () => {
  await using t = await editableRun();
  const config = (k1: number) =>
    `name: rag
corpus: ${ROOT}arenas/rag/corpus.json
questions: questions.yaml
mock_script: mock.yaml
retrievers:
  small: {top_k: 3, bm25: {k1: ${k1}}}
systems:
  - {type: rag, name: rag, retriever: small}
`;
  Deno.writeTextFileSync(t.path("r.yaml"), config(1.5));
  const out = t.path("run");
  const args = ["run", t.path("r.yaml"), "--mock", "--limit", "2"];
  assert.equal((await runCli([...args, "--out", out])).code, 0);
  const rag = manifestOf(out).systems.find((s) => s.name === "rag")!;
  Deno.writeTextFileSync(t.path("r.yaml"), config(0.9));
  const result = await runCli([...args, "--resume", out]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /this run differs from the one in the folder/);
  assert.match(result.stderr, /"rag"/);
  assert.match(rag.config_sha256, /^[0-9a-f]{64}$/);
});
