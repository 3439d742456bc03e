import assert from "node:assert/strict";
import { parse } from "yaml";
import { execCli, runCli, runPrinted } from "../support/cli.ts";
import { makePdf } from "../support/pdf_fixture.ts";
import { tempTree } from "../support/temp.ts";

const GUIDE = `# Harbor guide

The harbor of Port Elin opened in 1901 and has three piers for visiting boats.

The north pier is 120 metres long and hosts the ferry terminal all year.

\`\`\`sh
harbor-cli book --pier north
\`\`\`
`;

/** A folder of documents in several formats, and an empty output folder. */
async function docsFolder(extra: Record<string, string> = {}) {
  const t = await tempTree({
    "docs/guide.md": GUIDE,
    "docs/notes/history.rst":
      "History\n=======\n\nThe lighthouse was rebuilt in 1954 after a winter storm damaged it.\n",
    "docs/visit.html":
      "<title>Visiting</title><p>Visitors may walk the breakwater between April and October.</p>",
    "docs/readme.txt": "Tickets for the ferry are sold at the kiosk beside the terminal building.",
    ...extra,
  });
  await Deno.writeFile(
    t.path("docs/tides.pdf"),
    makePdf({ pages: [["High tide at the north pier is at 06:10 in January."]], title: "Tides" }),
  );
  return t;
}

Deno.test("init writes a config and questions for a folder of documents, validates them, and prints the next commands", async () => {
  await using t = await docsFolder();
  const result = await runCli(["init", t.path("docs"), "--dir", t.path("bench")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /^Wrote .*bench\/ragbench\.yaml and .*bench\/questions\.yaml: 8 example questions from the 5 documents of /,
  );
  assert.match(result.stdout, /bench\/ragbench\.yaml: OK\n/);
  assert.match(result.stdout, /corpus: +5 documents, 0 tables/);
  assert.match(result.stdout, /questions: 8\n/);
  assert.match(result.stdout, /ragbench run .*bench\/ragbench\.yaml --mock\n/);
  assert.match(
    result.stdout,
    /export OPENAI_API_KEY=\.\.\.\n +ragbench run .*bench\/ragbench\.yaml$/,
  );
  assert.doesNotMatch(result.stderr, /warning/);

  const config = parse(await Deno.readTextFile(t.path("bench/ragbench.yaml")));
  assert.deepEqual(config.corpus, { path: "../docs", on_error: "skip" });
  assert.deepEqual(config.model, {
    name: "gpt-4o-mini",
    base_url: null,
    api_key_env: "OPENAI_API_KEY",
  });
  assert.deepEqual(config.systems.map((s: { type: string }) => s.type), [
    "closed_book",
    "rag",
    "rag",
    "agent_search",
  ]);
  assert.deepEqual(config.retrievers.hybrid.kind, "hybrid");

  const text = await Deno.readTextFile(t.path("bench/questions.yaml"));
  const questions = parse(text) as Array<
    { id: string; evidence?: string[]; checks: { type: string }[] }
  >;
  const types = new Set(questions.flatMap((q) => q.checks.map((c) => c.type)));
  assert.deepEqual([...types].sort(), [
    "contains",
    "equals",
    "exact_match",
    "icontains",
    "iregex",
    "max_tool_calls",
    "min_tool_calls",
    "not_contains",
    "numeric_equals",
    "token_f1",
    "tool_used",
  ]);
  const ids = new Set(["guide", "notes/history", "visit", "readme", "tides"]);
  for (const q of questions) for (const id of q.evidence ?? []) assert.ok(ids.has(id), id);
  // Every example has a comment above it saying what its check does.
  for (
    const type of ["numeric_equals", "icontains", "contains", "equals", "exact_match", "token_f1"]
  ) {
    assert.match(text, new RegExp(`^# ${type}: `, "m"));
  }
});

Deno.test("init: the first --mock run of the starter benchmark runs every system and says what it measured", async () => {
  await using t = await docsFolder();
  assert.equal((await runCli(["init", t.path("docs"), "--dir", t.path("bench")])).code, 0);
  const run = await runCli([
    "run",
    t.path("bench/ragbench.yaml"),
    "--mock",
    "--out",
    t.path("out"),
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^agent_search +8 /m);
  assert.match(run.stdout, /nDCG@5 +R@5/);
  assert.match(run.stdout, /Measured with --mock and no mock script: no model answered\./);
  const lines = (await Deno.readTextFile(t.path("out/per_question_results.jsonl"))).trim().split(
    "\n",
  )
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 32);
  assert.ok(lines.every((l) => l.error === null));
  // The search agent found each answerable question's document.
  const agent = lines.filter((l) => l.system === "agent_search" && l.retrieval.relevant > 0);
  assert.ok(agent.length >= 6);
  for (const l of agent) assert.equal(l.retrieval.metrics["recall@5"], 1, l.question_id);
});

Deno.test("init sets the model, endpoint and key variable from its options", async () => {
  await using t = await docsFolder();
  const result = await runCli([
    "init",
    t.path("docs"),
    "--dir",
    t.path("bench"),
    "--model",
    "llama3.2",
    "--base-url",
    "http://127.0.0.1:11434/v1",
    "--api-key-env",
    "none",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const config = parse(await Deno.readTextFile(t.path("bench/ragbench.yaml")));
  assert.deepEqual(config.model, {
    name: "llama3.2",
    base_url: "http://127.0.0.1:11434/v1",
    api_key_env: null,
  });
  assert.match(result.stdout, /now: llama3\.2 at http:\/\/127\.0\.0\.1:11434\/v1, no key/);
  assert.doesNotMatch(result.stdout, /export /);
});

Deno.test("init refuses to overwrite either file, says what to do, and changes nothing", async () => {
  for (const existing of ["ragbench.yaml", "questions.yaml"]) {
    await using t = await docsFolder({ [`bench/${existing}`]: "mine\n" });
    const result = await runCli(["init", t.path("docs"), "--dir", t.path("bench")]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      new RegExp(
        `^Cannot write ".*bench/${
          existing.replace(".", "\\.")
        }": it exists, and ragbench init never overwrites a file\\. Run the benchmark that is there \\(ragbench run .*bench/ragbench\\.yaml --mock\\), or write a new one into another folder with --dir NEW_FOLDER, or move ragbench\\.yaml and questions\\.yaml out of ".*bench" first\\.$`,
      ),
    );
    assert.deepEqual([...Deno.readDirSync(t.path("bench"))].map((e) => e.name), [existing]);
    assert.equal(await Deno.readTextFile(t.path(`bench/${existing}`)), "mine\n");
  }
});

Deno.test("init: a missing, default-missing, file or empty DOCS is an error saying what to give", async () => {
  await using t = await tempTree({ "file.md": "# A file", "empty/.keep": "" });
  const cases: Array<[string[], RegExp]> = [
    [
      ["init", t.path("nope"), "--dir", t.path("b1")],
      /^Cannot use ".*nope" as the documents folder: it does not exist\. Give the folder that holds your documents: ragbench init PATH\/TO\/DOCS\.$/,
    ],
    [
      ["init", t.path("file.md"), "--dir", t.path("b2")],
      /^Cannot use ".*file\.md" as the documents folder: it is a file, not a folder\. Give the folder that holds your documents: ragbench init .+$/,
    ],
    [
      ["init", t.path("empty"), "--dir", t.path("b3")],
      /^Cannot load corpus ".*empty": it holds no documents \(\.txt, \.md, \.markdown, \.rst, \.html, \.htm, \.pdf\) or tables \(\.csv, \.json\)\.$/,
    ],
    [
      ["init", t.path("empty"), "--base-url", "localhost:8080"],
      /^--base-url "localhost:8080" is not an http\(s\) URL/,
    ],
    [
      ["init", t.path("empty"), "--api-key-env", "MY-KEY"],
      /^--api-key-env "MY-KEY" is not an environment variable name/,
    ],
  ];
  for (const [argv, message] of cases) {
    const result = await runCli(argv);
    assert.equal(result.code, 2, argv.join(" "));
    assert.match(result.stderr, message);
  }
  for (const dir of ["b1", "b2", "b3"]) {
    assert.equal(await Deno.stat(t.path(dir)).then(() => true, () => false), false, dir);
  }
  // Without DOCS, ./docs is meant; here there is none.
  const none = await execCli([`--allow-read=${t.dir}`, `--allow-write=${t.dir}`], ["init"], {
    cwd: t.dir,
  });
  assert.equal(none.code, 2);
  assert.match(
    none.stderr,
    /^ragbench init needs a folder of documents, and there is no "docs" here\. Give the folder that holds your documents: ragbench init PATH\/TO\/DOCS\.$/m,
  );
});

Deno.test("init: unreadable files are left out and listed; a folder of nothing readable is an error", async () => {
  await using t = await docsFolder({
    "docs/empty.md": "",
    "junk/a.md": " ",
    "junk/b.html": "<script>x</script>",
  });
  await Deno.writeFile(t.path("docs/broken.pdf"), new TextEncoder().encode("%PDF-1.7 not really"));
  const result = await runCli(["init", t.path("docs"), "--dir", t.path("bench")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /from the 5 documents of .* \(unreadable files left out, below\)\./);
  assert.match(
    result.stderr,
    /corpus: skipped 2 unreadable files \(on_error: skip\): broken\.pdf \(it is not a readable PDF .*\), empty\.md \(it is empty\)/,
  );
  const junk = await runCli(["init", t.path("junk"), "--dir", t.path("bench2")]);
  assert.equal(junk.code, 2);
  assert.match(junk.stderr, /it holds no documents .*; every one was unreadable/);
});

Deno.test("init without write access to --dir names the flag it needs before reading anything", async () => {
  await using t = await docsFolder();
  const result = await execCli([`--allow-read=${t.dir}`], [
    "init",
    t.path("docs"),
    "--dir",
    t.path("bench"),
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(
      `^ragbench init was not granted what it needs: --allow-write=${
        t.path("bench")
      } --allow-run=${Deno.execPath()} \\(the benchmark folder; reading the documents' PDF files`,
    ),
  );
});

Deno.test("init started by deno run prints next commands that carry their flags and work as printed", async () => {
  await using t = await docsFolder();
  const bench = t.path("bench");
  const init = await execCli(
    [`--allow-read`, `--allow-write=${bench}`, `--allow-run=${Deno.execPath()}`],
    ["init", t.path("docs"), "--dir", bench],
  );
  assert.equal(init.code, 0, init.stderr);
  const printed = (pattern: RegExp) => {
    const line = init.stdout.split("\n").map((l) => l.trim()).find((l) => pattern.test(l));
    assert.ok(line, `no line matching ${pattern} in:\n${init.stdout}`);
    return line;
  };
  const validate = printed(/^deno run .* validate .*bench\/ragbench\.yaml$/);
  const mockRun = printed(/^deno run .* run .*bench\/ragbench\.yaml --mock$/);
  for (const line of [validate, mockRun]) assert.match(line, /--unstable-raw-imports/);
  assert.equal((await runPrinted(validate)).code, 0);
  // The run folder moved out of the repository: every flag naming "runs" names it instead.
  const out = t.path("run");
  const run = await runPrinted(`${mockRun.replaceAll(/(?<=[=,])runs(?=[ ,])/g, out)} --out ${out}`);
  assert.equal(run.code, 0, run.stderr);
});

Deno.test("ragbench started by deno run without the unstable flags says which flags to add", async () => {
  await using t = await docsFolder();
  const init = await runCli(["init", t.path("docs"), "--dir", t.path("bench")]);
  assert.equal(init.code, 0, init.stderr);
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      `--allow-run=${Deno.execPath()}`,
      "main.ts",
      "validate",
      t.path("bench/ragbench.yaml"),
    ],
    cwd: new URL("../..", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 2, stderr);
  assert.match(
    stderr,
    // (A slow corpus load prints its time first.)
    /^(corpus: loaded .*\n)?ragbench was started without Deno's --unstable-worker-options --unstable-raw-imports flags, which it needs \(TypeError: "bytes" is not a valid module type\.\)\. Start it with --unstable-worker-options --unstable-raw-imports after "deno run", or through "deno task ragbench", which adds them\.\n$/,
  );
});
