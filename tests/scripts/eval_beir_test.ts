import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";
import { CRANFIELD } from "../support/shared_data.ts";

const REFERENCE_RUN = `${CRANFIELD}reference/bm25s_snowball.top100.run`;

async function evalBeir(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", join(ROOT, "scripts/eval_beir.ts"), ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return {
    code: output.code,
    stdout: text.decode(output.stdout),
    stderr: text.decode(output.stderr),
  };
}

Deno.test("eval_beir scores a TREC run over Cranfield as trec_eval does and prints the peer table", async () => {
  const { code, stdout, stderr } = await evalBeir(["--beir", CRANFIELD, "--run", REFERENCE_RUN]);
  assert.equal(code, 0, stderr);
  // trec_eval's "all" line for this run: ndcg_cut_10 0.3730, map 0.3039, recall_100 0.7381,
  // recip_rank_at_10 0.5315.
  assert.match(stdout, /^run \S+bm25s_snowball\.top100\.run +0\.3730 +0\.3039 +0\.7381 +0\.5315$/m);
  assert.match(stdout, /^bm25s 0\.3\.11 .*Snowball.* 0\.373 \(ours 1\.000×\)/m);
  // The best peer of each metric: bm25s's nDCG@10 and MAP, rank_bm25's R@100 and MRR@10.
  assert.match(
    stdout,
    /^best peer \(each metric\) +0\.373 \(ours 1\.000×\) +0\.310 \(ours 0\.980×\) +0\.747 \(ours 0\.988×\) +0\.537 \(ours 0\.990×\)$/m,
  );
  assert.match(stdout, /225 judged queries/);
  assert.doesNotMatch(stdout, /paired/);
});

Deno.test("eval_beir ranks Cranfield as retrieval_only does: above the best peer, with a paired test against the previous default", async () => {
  const { code, stdout, stderr } = await evalBeir(["--beir", CRANFIELD, "--ablation"]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^ragbench \(default\) +0\.3786 +0\.3195 +0\.7487 +0\.5388$/m);
  assert.match(stdout, /^ragbench \(previous default\) +0\.3743 +0\.3141 +0\.7507 +0\.5380$/m);
  assert.match(
    stdout,
    /^best peer \(each metric\) +0\.373 \(ours 1\.015×\) +0\.310 \(ours 1\.031×\) +0\.747 \(ours 1\.002×\)/m,
  );
  // The README's row for ragbench itself is not a peer, but its ratio is printed.
  assert.match(stdout, /^ragbench search \(passages, best passage per document\)/m);
  assert.match(
    stdout,
    /ragbench \(default\) \/ best peer: nDCG@10 1\.015×, MAP 1\.031×, R@100 1\.002× \(at least the best peer on all three\)/,
  );
  assert.match(
    stdout,
    /^paired \(ragbench \(default\) - ragbench \(previous default\)\), per-query nDCG@10 over 225 queries: \+0\.0042 \[95% CI -?\d\.\d{4}, \+\d\.\d{4}\], sign-flip p = 0\.\d{4}$/m,
  );
  assert.match(
    stdout,
    /^paired \(ragbench \(default\) - ragbench \(previous default\)\), per-query R@100 over 225 queries: -0\.0020 \[95% CI -\d\.\d{4}, \+\d\.\d{4}\], sign-flip p = 0\.\d{4}$/m,
  );
  for (const change of ["document_ranking: whole", "abbreviations: keep", "single_letters: drop"]) {
    assert.match(
      stdout,
      new RegExp(`^\\+ ${change} +0\\.\\d{4} 0\\.\\d{4} 0\\.\\d{4}  paired`, "m"),
    );
  }
  assert.match(stdout, /^\+ query_repeats: once +0\.3743 0\.3146 0\.7497 {2}paired/m);
});

Deno.test("eval_beir refuses --run with several collections, and names an unreadable folder", async () => {
  const several = await evalBeir([
    "--beir",
    CRANFIELD,
    "--beir",
    CRANFIELD,
    "--run",
    REFERENCE_RUN,
  ]);
  assert.equal(several.code, 2);
  assert.match(several.stderr, /--run evaluates one collection: give one --beir FOLDER with it\./);
  const missing = await evalBeir(["--beir", "/nonexistent/beir"]);
  assert.equal(missing.code, 2);
  assert.match(
    missing.stderr,
    /Cannot load corpus "\/nonexistent\/beir\/corpus\.jsonl": cannot read it/,
  );
});

Deno.test("eval_beir names the file of a bad run line and exits 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ragbench_test_" });
  try {
    const run = join(dir, "bad.run");
    await Deno.writeTextFile(run, "1 Q0 51 1 9.9 tag\n1 Q0 486 2 tag\n");
    const { code, stderr } = await evalBeir(["--beir", CRANFIELD, "--run", run]);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /Cannot load run ".*bad\.run" \(line 2\): expected 6 fields \(qid Q0 docid rank score tag\), got 5/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Writes a small BEIR folder with a README peer table; returns its path. */
async function tinyCollection(dir: string, name: string, seed: number): Promise<string> {
  const folder = join(dir, name);
  await Deno.mkdir(join(folder, "qrels"), { recursive: true });
  const words = [
    "boundary",
    "layer",
    "heat",
    "transfer",
    "shock",
    "wave",
    "plate",
    "cone",
    "flutter",
    "wing",
    "pressure",
    "nozzle",
  ];
  const docs: string[] = [];
  for (let d = 0; d < 24; d++) {
    const length = 3 + ((d * 7 + seed) % 17);
    const text = Array.from({ length }, (_, i) => words[(d * (i + seed) + i * i) % words.length]);
    docs.push(JSON.stringify({ _id: `d${d}`, title: "", text: text.join(" ") }));
  }
  await Deno.writeTextFile(join(folder, "corpus.jsonl"), docs.join("\n") + "\n");
  const queries = ["boundary layer heat", "shock wave on a cone", "wing flutter pressure"];
  await Deno.writeTextFile(
    join(folder, "queries.jsonl"),
    queries.map((text, i) => JSON.stringify({ _id: `q${i}`, text })).join("\n") + "\n",
  );
  const qrels = ["query-id\tcorpus-id\tscore"];
  queries.forEach((_q, i) => {
    for (let d = i + seed; d < 24; d += 5) qrels.push(`q${i}\td${d}\t1`);
  });
  await Deno.writeTextFile(join(folder, "qrels", "test.tsv"), qrels.join("\n") + "\n");
  await Deno.writeTextFile(
    join(folder, "README.md"),
    [
      `# ${name}`,
      "",
      "| engine | k1 / b | nDCG@10 | MAP | R@100 | MRR@10 |",
      "|---|---|---:|---:|---:|---:|",
      "| Lucene 8.7 BM25, Porter | 0.9 / 0.4 | 0.500 | 0.400 | 0.900 | 0.600 |",
      "",
    ].join("\n"),
  );
  return folder;
}

Deno.test("eval_beir --length-study checks its scorer, emulates Lucene and holds each collection out in turn", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ragbench_test_" });
  try {
    const a = await tinyCollection(dir, "alpha", 1);
    const b = await tinyCollection(dir, "beta", 2);
    const { code, stdout, stderr } = await evalBeir(["--beir", a, "--beir", b, "--length-study"]);
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /^check: the study's scorer gives ragbench's default figures exactly on alpha, beta$/m,
    );
    // The Lucene emulation beside the README's row, with its paired tests.
    assert.match(
      stdout,
      /^k1 0\.9 b 0\.4 {2}alpha +[\d.]+ \/ [\d.]+ \/ [\d.]+ \[0\.500 \/ 0\.400 \/ 0\.900\]$/m,
    );
    assert.match(
      stdout,
      /^ {4}default - emulation: nDCG@10 [-+]\d\.\d{4} \(p \d\.\d{3}\) {2}MAP /m,
    );
    assert.match(
      stdout,
      /^k1 1\.2 b 0\.75 {2}beta +[\d.]+ \/ [\d.]+ \/ [\d.]+ \[no README row\]$/m,
    );
    for (
      const heading of [
        "## Collection statistics",
        "## By length",
        "## k1 x b",
        "## The values of b",
        "## Fixed settings",
        "## Collection-adaptive rules",
      ]
    ) assert.ok(stdout.includes(heading), heading);
    assert.match(stdout, /^# (no single k1 \/ b of the grid|some single setting) /m);
    for (const name of ["alpha", "beta"]) {
      assert.equal(stdout.match(new RegExp(`^  held out ${name} `, "gm"))?.length, 4, name);
    }
    assert.equal(stdout.match(/^ {2}fitted on all \(in-sample\) constant /gm)?.length, 4);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval_beir --length-study refuses one collection, --run, and a collection without peers", async () => {
  const one = await evalBeir(["--beir", CRANFIELD, "--length-study"]);
  assert.equal(one.code, 2);
  assert.match(one.stderr, /--length-study compares collections: give at least two --beir folders/);
  const dir = await Deno.makeTempDir({ prefix: "ragbench_test_" });
  try {
    const a = await tinyCollection(dir, "alpha", 1);
    const b = await tinyCollection(dir, "beta", 2);
    await Deno.writeTextFile(join(b, "README.md"), "# beta\n\nNo figures.\n");
    const run = await evalBeir(["--beir", a, "--run", REFERENCE_RUN, "--length-study"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--run evaluates one collection|--length-study compares collections/);
    const bare = await evalBeir(["--beir", a, "--beir", b, "--length-study"]);
    assert.equal(bare.code, 2);
    assert.match(
      bare.stderr,
      /--length-study needs the peers' figures of every collection: .*beta\/README\.md has no peer table\./,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
