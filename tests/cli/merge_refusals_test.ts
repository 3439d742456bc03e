import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");
const RESULTS = "per_question_results.jsonl";

/** Runs shard i/n of the rag config into `dir`. */
async function shard(dir: string, spec: string, extra: string[] = []): Promise<void> {
  const run = await runCli([
    "run",
    CONFIG,
    "--mock",
    "--quiet",
    "--shard",
    spec,
    "--out",
    dir,
    ...extra,
  ]);
  assert.equal(run.code, 0, run.stderr);
}

function lines(dir: string): string[] {
  return Deno.readTextFileSync(join(dir, RESULTS)).trimEnd().split("\n");
}

Deno.test("merge refuses a missing shard, naming it and the command that runs it; --allow-partial says what is missing everywhere", async () => {
  await using t = await tempTree();
  await shard(t.path("a"), "1/3");
  await shard(t.path("c"), "3/3");
  const refused = await runCli(["merge", t.path("out"), t.path("a"), t.path("c")]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Cannot merge: 1 shard of 3 is missing: 2\/3\./);
  assert.match(refused.stderr, /ragbench run .*configs\/rag\.yaml --shard 2\/3 --out DIR2 --mock/);
  assert.match(refused.stderr, /or pass --allow-partial/);
  assert.equal(
    (() => {
      try {
        Deno.statSync(t.path("out"));
        return true;
      } catch {
        return false;
      }
    })(),
    false,
    "nothing written",
  );

  const partial = await runCli([
    "merge",
    t.path("out"),
    t.path("a"),
    t.path("c"),
    "--allow-partial",
  ]);
  assert.equal(partial.code, 0, partial.stderr);
  const missing = JSON.parse(Deno.readTextFileSync(t.path("out/run.json"))).partial;
  const expectedMissing = missing.run_jobs - lines(t.path("a")).length - lines(t.path("c")).length;
  assert.deepEqual(missing.missing_shards, ["2/3"]);
  assert.equal(missing.missing_jobs, expectedMissing);
  const note = new RegExp(
    `Partial run: ${expectedMissing} of the run's ${missing.run_jobs} jobs have no result \\(shard 2/3 not merged\\)`,
  );
  assert.match(partial.stderr, note);
  assert.match(Deno.readTextFileSync(t.path("out/summary.md")), note);
  assert.match(
    Deno.readTextFileSync(t.path("out/report.html")).replaceAll("&#39;", "'"),
    note,
  );
  // report RUN_DIR keeps saying it.
  Deno.removeSync(t.path("out/summary.md"));
  assert.equal((await runCli(["report", t.path("out")])).code, 0);
  assert.match(Deno.readTextFileSync(t.path("out/summary.md")), note);
});

Deno.test("merge refuses folders of different runs, a shard given twice, a whole run and a folder that is no run", async () => {
  await using t = await tempTree();
  await shard(t.path("a1"), "1/2");
  await shard(t.path("a2"), "2/2");
  await shard(t.path("limited"), "2/2", ["--limit", "3"]);
  await shard(t.path("three"), "2/3");
  const whole = await runCli(["run", CONFIG, "--mock", "--quiet", "--out", t.path("whole")]);
  assert.equal(whole.code, 0, whole.stderr);

  const foreign = await runCli(["merge", t.path("out"), t.path("a1"), t.path("limited")]);
  assert.equal(foreign.code, 2);
  assert.match(foreign.stderr, /".*limited" is not a shard of the same run as ".*a1":/);
  assert.match(foreign.stderr, /--limit: null → 3/);
  assert.match(foreign.stderr, /Merge the folders of one sharded run, each shard once\./);

  const counts = await runCli(["merge", t.path("out"), t.path("a1"), t.path("three")]);
  assert.equal(counts.code, 2);
  assert.match(counts.stderr, /shard count: 2 → 3 \(--shard I\/N with another N\)/);

  Deno.mkdirSync(t.path("copy"));
  for (const entry of Deno.readDirSync(t.path("a1"))) {
    if (entry.isFile) {
      Deno.copyFileSync(join(t.path("a1"), entry.name), join(t.path("copy"), entry.name));
    }
  }
  const twice = await runCli(["merge", t.path("out"), t.path("a1"), t.path("copy"), t.path("a2")]);
  assert.equal(twice.code, 2);
  assert.match(
    twice.stderr,
    /shard 1\/2 is given 2 times \(".*a1", ".*copy"\): give each shard once\./,
  );

  const notShard = await runCli(["merge", t.path("out"), t.path("a1"), t.path("whole")]);
  assert.equal(notShard.code, 2);
  assert.match(notShard.stderr, /".*whole" is a whole run \(made without --shard\), not a shard/);

  const noRun = await runCli(["merge", t.path("out"), t.path("a1"), t.path("nothing")]);
  assert.equal(noRun.code, 2);
  assert.match(noRun.stderr, /".*nothing" is not a run folder: run\.json cannot be read/);

  const version = JSON.parse(Deno.readTextFileSync(t.path("a2/run.json")));
  version.ragbench_version = "0.0.1";
  Deno.writeTextFileSync(t.path("a2/run.json"), JSON.stringify(version));
  const versions = await runCli(["merge", t.path("out"), t.path("a1"), t.path("a2")]);
  assert.equal(versions.code, 2);
  assert.match(versions.stderr, /ragbench version: 0\.1\.0 → 0\.0\.1/);

  const into = await runCli(["merge", t.path("a1"), t.path("a1")]);
  assert.equal(into.code, 2);
  assert.match(into.stderr, /is one of the shard folders: merge into a new folder/);
  const none = await runCli(["merge", t.path("out")]);
  assert.equal(none.code, 2);
  assert.match(
    none.stderr,
    /Missing SHARD_DIR — usage: ragbench merge OUT SHARD_DIR\.\.\. \[options\]/,
  );
});

Deno.test("merge refuses a shard that lacks jobs and prints the resume command that completes it", async () => {
  await using t = await tempTree();
  await shard(t.path("a"), "1/2");
  await shard(t.path("b"), "2/2");
  const all = lines(t.path("b"));
  Deno.writeTextFileSync(t.path("b/" + RESULTS), all.slice(0, 2).join("\n") + "\n");
  const refused = await runCli(["merge", t.path("out"), t.path("a"), t.path("b")]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    new RegExp(`shard 2/2 \\(".*b"\\): 2 of ${all.length} jobs; finish it with:`),
  );
  const command = /finish it with:\n\s+ragbench (run .*)/.exec(refused.stderr)![1];
  assert.match(command, /--shard 2\/2 --resume .*b --mock$/);
  // The printed command completes the shard (resume works per shard), and the merge then goes on.
  const resumed = await runCli(command.split(" "));
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(lines(t.path("b")).length, all.length);
  const merged = await runCli(["merge", t.path("out"), t.path("a"), t.path("b")]);
  assert.equal(merged.code, 0, merged.stderr);
});

Deno.test("merge refuses a line that is another shard's job, and a shard still running", async () => {
  await using t = await tempTree();
  await shard(t.path("a"), "1/2");
  await shard(t.path("b"), "2/2");
  const moved = lines(t.path("a"))[0];
  Deno.writeTextFileSync(t.path("b/" + RESULTS), [...lines(t.path("b")), moved].join("\n") + "\n");
  const refused = await runCli(["merge", t.path("out"), t.path("a"), t.path("b")]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /".*b\/per_question_results\.jsonl" line \d+ \(system "closed_book", question ".*", repeat 1\) is a job of shard 1\/2, not of shard 2\/2/,
  );

  Deno.writeTextFileSync(t.path("a/run.lock"), "{}");
  const locked = await runCli(["merge", t.path("out"), t.path("a"), t.path("b")]);
  assert.equal(locked.code, 2);
  assert.match(locked.stderr, /".*a" has a run\.lock: its run is still going/);
});

Deno.test("--resume of a shard refuses another --shard or none", async () => {
  await using t = await tempTree();
  await shard(t.path("a"), "1/2");
  const other = await runCli([
    "run",
    CONFIG,
    "--mock",
    "--quiet",
    "--shard",
    "2/2",
    "--resume",
    t.path("a"),
  ]);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /--shard: 1\/2 → 2\/2/);
  const none = await runCli(["run", CONFIG, "--mock", "--quiet", "--resume", t.path("a")]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--shard: 1\/2 → none \(the whole run\)/);
  const bad = await runCli(["run", CONFIG, "--mock", "--shard", "3/2"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--shard takes INDEX\/COUNT/);
});
