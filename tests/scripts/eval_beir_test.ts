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
  const { code, stdout, stderr } = await evalBeir(["--run", REFERENCE_RUN]);
  assert.equal(code, 0, stderr);
  // trec_eval's "all" line for this run: ndcg_cut_10 0.3730, map 0.3039, recall_100 0.7381,
  // recip_rank_at_10 0.5315.
  assert.match(stdout, /^ragbench \(this script\) +0\.373 +0\.304 +0\.738 +0\.532$/m);
  assert.match(stdout, /^bm25s 0\.3\.11 .*Snowball.* 0\.373 \(ours 1\.00×\)/m);
  assert.match(stdout, /225 judged queries/);
});

Deno.test("eval_beir names the file of a bad run line and exits 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ragbench_test_" });
  try {
    const run = join(dir, "bad.run");
    await Deno.writeTextFile(run, "1 Q0 51 1 9.9 tag\n1 Q0 486 2 tag\n");
    const { code, stderr } = await evalBeir(["--run", run]);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /Cannot load run ".*bad\.run" \(line 2\): expected 6 fields \(qid Q0 docid rank score tag\), got 5/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
