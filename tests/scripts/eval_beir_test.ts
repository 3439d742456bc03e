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
