import assert from "node:assert/strict";
import { LUCENE_STOPWORDS, luceneLength, luceneTerms } from "../../scripts/lucene_replica.ts";

Deno.test("luceneLength reads back Lucene 8's one-byte lengths: exact below 24, 4 significant bits above", () => {
  for (let n = 0; n < 24; n++) assert.equal(luceneLength(n), n);
  // 24 + 16 = 40 is (1)000 << 1; 41 rounds down to it; 100 = 24 + 76 -> 24 + (1001 << 3) = 96.
  assert.equal(luceneLength(24), 24);
  assert.equal(luceneLength(31), 31);
  assert.equal(luceneLength(40), 40);
  assert.equal(luceneLength(41), 40);
  assert.equal(luceneLength(100), 96);
  assert.equal(luceneLength(1_000_000), 24 + (0b1111 << 16));
  // Never above the length, and non-decreasing.
  let last = 0;
  for (let n = 0; n < 5000; n++) {
    const l = luceneLength(n);
    assert.ok(l <= n && l >= last, `${n} -> ${l}`);
    last = l;
  }
});

Deno.test("luceneTerms: Lucene's 33 stopwords (no and not included), possessives, Porter, single letters kept", () => {
  assert.equal(LUCENE_STOPWORDS.size, 33);
  assert.deepEqual(
    luceneTerms("The Tower's heights are NOT what I measured, e.g. in 1950s"),
    // Where letters and digits touch the spans split (Lucene keeps "1950s" whole): "1950", "s".
    ["tower", "height", "what", "i", "measur", "e.g", "1950", "s"],
  );
  // ragbench's own list drops what, keeps not; Lucene's keeps what and drops not.
  assert.ok(LUCENE_STOPWORDS.has("not") && !LUCENE_STOPWORDS.has("what"));
});
