/**
 * `ragbench compare` marks a figure computed on rankings shallower than its
 * cut-off as the run's own table does, on Cranfield from the shared data
 * folder: run A ranks `bm25` at the default depth and `five` at `top_k: 5`;
 * run B ranks both at `top_k: 5`. `bm25`'s change sets a five-document
 * figure against a full one, and says so; `five`'s figures are shallow on
 * both sides, marked, with no such note; a full figure is never marked.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../support/cli.ts";
import { CRANFIELD } from "../support/shared_data.ts";
import { tempTree } from "../support/temp.ts";

function config(bm25: string): string {
  return `name: cranfield_depth
corpus: {beir: ${CRANFIELD}}
questions: {beir: ${CRANFIELD}, split: test}
retrievers:
  five: {top_k: 5}
systems:
  - {type: retrieval_only, name: bm25${bm25}}
  - {type: retrieval_only, name: five, retriever: five}
`;
}

const HELD =
  "a ranking held only 5 documents (the retriever's top_k passages came from no more), so metrics at larger cut-offs count fewer documents than they name";
const MIXED = (metrics: string, verb: string) =>
  `bm25: ${metrics} B's ${
    verb === "sets" ? "figure" : "figures"
  }, from rankings cut to as few as 5 documents, against A's, from rankings that reached the cut-off, so ${
    verb === "sets" ? "it measures" : "they measure"
  } the depth as much as the system`;

Deno.test("compare marks figures from rankings shallower than their cut-off, and a change between a shallow and a full figure, in text, md and json", async () => {
  await using t = await tempTree({
    "a.yaml": config(""),
    "b.yaml": config(", retriever: five"),
  });
  const [a, b] = [join(t.dir, "a"), join(t.dir, "b")];
  for (const [file, out] of [["a.yaml", a], ["b.yaml", b]]) {
    const run = await runCli(["run", t.path(file), "--mock", "--out", out, "--quiet"]);
    assert.equal(run.code, 0, run.stderr);
  }

  const text = await runCli(["compare", a, b]);
  assert.equal(text.code, 0, text.stderr);
  const row = (name: string) => text.stdout.split("\n").find((l) => l.startsWith(`${name} `))!;
  // bm25: A full (0.379, unmarked), B from five documents (0.321*), the change marked.
  assert.match(row("bm25"), /^bm25 +nDCG@10 +225 +0\.379 +0\.321\* +-0\.058\* /);
  // five: shallow in both runs, both figures marked, and so is their (zero) change.
  assert.match(row("five"), /^five +nDCG@10 +225 +0\.321\* +0\.321\* +0\.000\* /);
  const notes = text.stdout.split("\n").filter((l) => l.startsWith("* "));
  assert.deepEqual(notes, [
    `* five in A: ${HELD}`,
    `* bm25, five in B: ${HELD}`,
    `* ${MIXED("its change of nDCG@10 sets", "sets")}`,
  ]);

  const md = await runCli(["compare", a, b, "--format", "md"]);
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /\| bm25 \| nDCG@10 \| 0\.379 \| 0\.321\\\* \| -0\.058\\\* \[/);
  // The retrieval table: R@100 of bm25 falls from 0.749 to a five-document figure.
  assert.match(md.stdout, /\| bm25 \| 0\.749 → 0\.309\\\* \| -0\.439\\\* \[/);
  assert.ok(md.stdout.includes(`\\* bm25, five in B: ${HELD}`), md.stdout);
  assert.ok(
    md.stdout.includes(`\\* ${MIXED("its changes of nDCG@10 and recall@100 set", "set")}`),
    md.stdout,
  );

  const json = await runCli(["compare", a, b, "--format", "json"]);
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  const bm25 = doc.systems.find((s: { system: string }) => s.system === "bm25");
  assert.ok(bm25.depth.a >= 100, JSON.stringify(bm25.depth));
  assert.equal(bm25.depth.b, 5);
  assert.deepEqual(bm25.shallow, { a: false, b: true });
  assert.deepEqual(bm25.retrieval[0].shallow, { a: false, b: true });
  const five = doc.systems.find((s: { system: string }) => s.system === "five");
  assert.deepEqual(five.depth, { a: 5, b: 5 });
  assert.deepEqual(five.shallow, { a: true, b: true });
  assert.ok(doc.depth_notes.includes(`five in A: ${HELD}`), doc.depth_notes);

  // A run against itself: the full-depth figures unmarked, no change mixing depths.
  const same = await runCli(["compare", a, a]);
  assert.equal(same.code, 0, same.stderr);
  const line = same.stdout.split("\n").find((l) => l.startsWith("bm25 "))!;
  assert.ok(!line.includes("*"), line);
  assert.ok(!same.stdout.includes("measures the depth"), same.stdout);
});
