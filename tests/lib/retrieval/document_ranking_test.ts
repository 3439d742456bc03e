import assert from "node:assert/strict";
import { documentRanking } from "../../../lib/retrieval/document_ranking.ts";

Deno.test("documentRanking keeps each document at the rank of its best passage", () => {
  const ranking = documentRanking([
    { passage_id: "b#2", doc_id: "b", score: 9 },
    { passage_id: "a#0", doc_id: "a", score: 7 },
    { passage_id: "b#0", doc_id: "b", score: 6 },
    { passage_id: "c#1", doc_id: "c", score: 6 },
    { passage_id: "a#3", doc_id: "a", score: 1 },
  ]);
  assert.deepEqual(ranking, [
    { passage_id: "b#2", doc_id: "b", score: 9 },
    { passage_id: "a#0", doc_id: "a", score: 7 },
    { passage_id: "c#1", doc_id: "c", score: 6 },
  ]);
  assert.deepEqual(documentRanking([]), []);
});
