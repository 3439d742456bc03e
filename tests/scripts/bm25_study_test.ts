import assert from "node:assert/strict";
import { Bm25Index } from "../../lib/lexical/bm25.ts";
import { wholeDocument } from "../../lib/retrieval/bm25_retriever.ts";
import type { Document } from "../../lib/types.ts";
import { StudyIndex } from "../../scripts/bm25_study.ts";

const DOCS: Document[] = [
  { id: "a", title: "Flows", text: "Boundary layer flows over a flat plate; the layer thickens." },
  { id: "b", title: "", text: "Heat transfer in a boundary layer at high speed." },
  { id: "c1", title: "c1", text: "Supersonic flow past a cone. Flow flow flow." },
  { id: "d", title: "Plates", text: "Buckling of thin plates under heat." },
  { id: "e", title: "", text: "Heat heat heat transfer." },
  { id: "f", title: "Same words", text: "Heat transfer in a boundary layer at high speed." },
].map((d) => ({ ...d, source: "test" }));

const QUERIES = [
  "boundary layer heat transfer",
  "flow flow over plates",
  "supersonic cone",
  "what is the heat of a plate",
  "nothing matches xyzzy",
];

Deno.test("StudyIndex ranks exactly as Bm25Index does with the same k1, b and analysis", () => {
  const study = new StudyIndex(DOCS);
  for (const [k1, b] of [[1.5, 0.75], [0.9, 0.4], [2, 1], [1.2, 0]]) {
    const index = new Bm25Index(DOCS.map(wholeDocument), { k1, b });
    for (const query of QUERIES) {
      const expected = index.search(query, 10).map((h) => ({
        doc_id: h.passage.doc_id,
        score: h.score,
      }));
      assert.deepEqual(
        study.search(query, k1, study.linear(b), 10),
        expected,
        `${query} ${k1}/${b}`,
      );
    }
  }
});

Deno.test("StudyIndex: titles that repeat the id are not indexed; k1 per query; repeats counted on request", () => {
  const study = new StudyIndex(DOCS);
  // "c1" has its id as title: not indexed (it would add the term "1"), 7 terms of text.
  assert.equal(study.lengths[2], 7);
  assert.equal(study.lengths[0], 9); // title "Flows" + 8 terms of text
  assert.equal(study.distinct[4], 2);
  const norm = study.linear(0.75);
  const byCount = study.search("heat heat", 1.5, norm, 10, "count");
  const once = study.search("heat", 1.5, norm, 10);
  assert.deepEqual(byCount.map((h) => h.doc_id), once.map((h) => h.doc_id));
  byCount.forEach((h, i) => assert.equal(h.score, 2 * once[i].score));
  let seen = -1;
  const perQuery = study.search("boundary layer heat", (terms) => (seen = terms) * 0.5, norm, 10);
  assert.equal(seen, 3);
  assert.deepEqual(perQuery, study.search("boundary layer heat", 1.5, norm, 10));
});
