import assert from "node:assert/strict";
import {
  BM25_B,
  BM25_K1,
  BM25_QUERY_REPEATS,
  Bm25Index,
  type QueryRepeats,
  type SearchHit,
} from "../../../lib/lexical/bm25.ts";
import type { Passage } from "../../../lib/lexical/passages.ts";
import {
  type Analysis,
  DEFAULT_ANALYSIS,
  LEGACY_ANALYSIS,
  tokenize,
} from "../../../lib/lexical/tokenizer.ts";

/** A one-passage document whose title only repeats its id (so the title is not indexed). */
function passage(docId: string, text: string, title = docId): Passage {
  return { id: `${docId}#0`, doc_id: docId, index: 0, title, text };
}

function ids(hits: SearchHit[]): string[] {
  return hits.map((h) => h.passage.doc_id);
}

function indexOf(docs: Record<string, string>, options: { queryRepeats?: QueryRepeats } = {}) {
  return new Bm25Index(Object.entries(docs).map(([id, text]) => passage(id, text)), options);
}

const rankings: Array<
  { name: string; docs: Record<string, string>; query: string; order: string[] }
> = [
  {
    name: "more occurrences of a term rank higher (same length)",
    docs: {
      once: "apple pear plum fig",
      twice: "apple apple plum fig",
      none: "grape lime kiwi melon",
    },
    query: "apple",
    order: ["twice", "once"],
  },
  {
    name: "a shorter passage ranks higher for the same occurrences",
    docs: { long: "apple pear plum fig grape melon lime kiwi", short: "apple pear" },
    query: "apple",
    order: ["short", "long"],
  },
  {
    name: "a rare term outweighs a common one",
    docs: {
      common1: "lion alpha",
      common2: "lion beta",
      rare: "zebra gamma",
      common3: "lion delta",
    },
    query: "lion zebra",
    order: ["rare", "common1", "common2", "common3"],
  },
  {
    name: "matching more distinct terms ranks higher",
    docs: { one: "tower paris city", two: "tower eiffel city", three: "tower eiffel paris" },
    query: "eiffel tower paris",
    order: ["three", "one", "two"],
  },
  {
    name: "query words go through the tokenizer (case, plural, stopwords)",
    docs: { a: "The cities of Europe", b: "a city in Asia", c: "the town of cité" },
    query: "What are the CITY?",
    order: ["a", "b"],
  },
  {
    name: "passages without any query term are not returned",
    docs: { a: "alpha", b: "beta" },
    query: "gamma alpha",
    order: ["a"],
  },
];

for (const r of rankings) {
  Deno.test(`BM25: ${r.name}`, () => {
    assert.deepEqual(ids(indexOf(r.docs).search(r.query, 10)), r.order);
  });
}

Deno.test("BM25 score is the documented formula (k1 = 1.5, b = 0.75, Lucene idf)", () => {
  assert.equal(BM25_K1, 1.5);
  assert.equal(BM25_B, 0.75);
  const index = indexOf({ a: "apple pear", b: "plum fig grape", c: "apple apple plum fig" });
  const n = 3;
  const df = 2;
  const avgdl = (2 + 3 + 4) / 3;
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const expected = (tf: number, dl: number) =>
    idf * tf * (1.5 + 1) / (tf + 1.5 * (1 - 0.75 + 0.75 * dl / avgdl));
  const hits = index.search("apple", 5);
  assert.deepEqual(ids(hits), ["c", "a"]);
  assert.ok(Math.abs(hits[0].score - expected(2, 4)) < 1e-12, `${hits[0].score}`);
  assert.ok(Math.abs(hits[1].score - expected(1, 2)) < 1e-12, `${hits[1].score}`);
});

Deno.test("BM25 counts a term repeated hundreds of times in a passage exactly", () => {
  // Term counts of 255 and more are stored apart from the small ones, exactly (70,000 too).
  const counts = [254, 255, 256, 300, 70000];
  const docs: Record<string, string> = { other: "plum fig" };
  for (const tf of counts) docs[`t${tf}`] = `${"apple ".repeat(tf)}plum`;
  const index = indexOf(docs);
  const n = counts.length + 1;
  const df = counts.length;
  let total = 2;
  for (const tf of counts) total += tf + 1;
  const avgdl = total / n;
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const hits = index.search("apple", 10);
  for (const hit of hits) {
    const tf = Number(hit.passage.doc_id.slice(1));
    const want = idf * tf * 2.5 / (tf + 1.5 * (1 - 0.75 + 0.75 * (tf + 1) / avgdl));
    assert.ok(Math.abs(hit.score - want) < 1e-12, `${hit.passage.doc_id}: ${hit.score} vs ${want}`);
  }
  assert.equal(hits.length, counts.length);
});

Deno.test("BM25 gives the hand-computed scores of a worked example", () => {
  // N = 3, avgdl = 3; "apple" and "plum" each in 2 passages: idf = ln(1 + 1.5 / 2.5) = 0.470004.
  // Query "apple apple plum" with query_repeats: count (qtf 2 and 1), k1 = 1.5, b = 0.75:
  //   c (dl 4, apple x2, plum x1): 2 * 0.470004 * 2 * 2.5 / (2 + 1.5 * 1.25) + 0.470004 * 2.5 / (1 + 1.5 * 1.25)
  //   a (dl 2, apple x1):          2 * 0.470004 * 2.5 / (1 + 1.5 * 0.75)
  //   b (dl 3, plum x1):           0.470004 * 2.5 / (1 + 1.5 * 1)
  const docs = { a: "apple pear", b: "plum fig grape", c: "apple apple plum fig" };
  const hits = indexOf(docs, { queryRepeats: "count" }).search("apple apple plum", 5);
  assert.deepEqual(ids(hits), ["c", "a", "b"]);
  const expected = [1.621611, 1.105891, 0.470004];
  hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]) < 1e-5, `${h.score}`));
  // With query_repeats: once (the default) "apple" weighs once (qtf 1 and 1):
  //   c: 0.470004 * 2 * 2.5 / 3.875 + 0.470004 * 2.5 / 2.875 = 1.015155
  //   a: 0.470004 * 2.5 / 2.125 = 0.552946; b: 0.470004
  const once = indexOf(docs).search("apple apple plum", 5);
  assert.deepEqual(ids(once), ["c", "a", "b"]);
  [1.015155, 0.552946, 0.470004].forEach((want, i) =>
    assert.ok(Math.abs(once[i].score - want) < 1e-5, `${once[i].score}`)
  );
});

Deno.test("BM25 idf stays positive for a term in every passage", () => {
  const hits = indexOf({ a: "common x", b: "common y" }).search("common", 5);
  assert.equal(hits.length, 2);
  for (const h of hits) assert.ok(h.score > 0);
});

Deno.test("BM25 k1 and b can be set; b = 0 ignores passage length", () => {
  const passages = [passage("long", "apple pear plum fig grape"), passage("short", "apple")];
  const hits = new Bm25Index(passages, { b: 0 }).search("apple", 5);
  assert.equal(hits[0].score, hits[1].score);
  assert.deepEqual(ids(hits), ["long", "short"], "a tie keeps passage order");
  assert.throws(() => new Bm25Index(passages, { k1: -1 }), {
    name: "RangeError",
    message: "k1 must be >= 0, got -1.",
  });
  assert.throws(() => new Bm25Index(passages, { b: 2 }), {
    name: "RangeError",
    message: "b must be between 0 and 1, got 2.",
  });
});

Deno.test("BM25 breaks ties by passage order, not by id", () => {
  const forward = [passage("zeta", "same words"), passage("alpha", "same words")];
  assert.deepEqual(ids(new Bm25Index(forward).search("same", 5)), ["zeta", "alpha"]);
  const backward = [...forward].reverse();
  assert.deepEqual(ids(new Bm25Index(backward).search("same", 5)), ["alpha", "zeta"]);
});

Deno.test("BM25 ties across many passages stay in passage order within top k", () => {
  const passages: Passage[] = [];
  for (let i = 0; i < 50; i++) {
    passages.push(passage(`d${i}`, i % 2 ? "word other" : "word filler"));
  }
  const hits = new Bm25Index(passages).search("word", 7);
  assert.deepEqual(ids(hits), ["d0", "d1", "d2", "d3", "d4", "d5", "d6"]);
});

Deno.test("BM25 gives the same result for the same query twice", () => {
  const index = indexOf({ a: "eiffel tower paris", b: "tokyo tower", c: "paris city" });
  assert.deepEqual(index.search("tower paris", 3), index.search("tower paris", 3));
});

Deno.test("BM25 scores do not depend on query word order, even in the last bit", () => {
  const index = indexOf({ a: "eiffel tower paris", b: "tokyo tower", c: "paris city tower x" });
  const scores = (q: string) => index.search(q, 3).map((h) => [h.passage.id, h.score]);
  assert.deepEqual(scores("paris tower eiffel"), scores("eiffel tower paris"));
});

Deno.test("BM25 with query_repeats: count counts a repeated query term each time, as Lucene does", () => {
  const index = indexOf({ a: "apple pear", b: "apple apple kiwi", c: "pear fig" }, {
    queryRepeats: "count",
  });
  const once = index.search("apple", 5);
  const thrice = index.search("apple apple apple", 5);
  assert.deepEqual(ids(thrice), ids(once));
  for (const [i, hit] of thrice.entries()) {
    assert.ok(Math.abs(hit.score - 3 * once[i].score) < 1e-12, `${hit.score}`);
  }
  // The repeat changes the ranking when it outweighs a rarer word.
  assert.deepEqual(ids(index.search("fig pear", 5)), ["c", "a"]);
  assert.deepEqual(ids(index.search("apple apple apple apple pear", 5))[0], "a");
});

Deno.test("BM25 counts a repeated query term once by default (query_repeats: once)", () => {
  assert.equal(BM25_QUERY_REPEATS, "once");
  const index = indexOf({ a: "apple pear", b: "apple apple kiwi", c: "pear fig" });
  assert.equal(index.queryRepeats, "once");
  const once = index.search("apple", 5);
  assert.deepEqual(index.search("apple apple apple", 5), once);
  // The repeat no longer outweighs the rarer word: "a" holds both words, whatever the repeats.
  assert.deepEqual(
    index.search("apple apple apple apple pear", 5),
    index.search("apple pear", 5),
  );
});

Deno.test("BM25 applies its analysis to documents and queries", () => {
  const docs = { a: "the flowing rivers", b: "a flow of the river" };
  const snowball = indexOf(docs);
  assert.deepEqual(ids(snowball.search("flows", 5)), ["a", "b"]);
  const passages = Object.entries(docs).map(([id, text]) => passage(id, text));
  const plural = new Bm25Index(passages, { analysis: { ...LEGACY_ANALYSIS, stemmer: "plural" } });
  assert.deepEqual(ids(plural.search("flows", 5)), ["b"]);
  const none = new Bm25Index(passages, {
    analysis: { ...LEGACY_ANALYSIS, stemmer: "none", stopwords: "none" },
  });
  assert.deepEqual(ids(none.search("the", 5)).sort(), ["a", "b"]);
  assert.deepEqual(none.queryTerms("The flows"), ["the", "flows"]);
  assert.deepEqual(snowball.queryTerms("The flows"), ["flow"]);
});

Deno.test("BM25 returns at most k passages, best first", () => {
  const index = indexOf({ a: "xx yy", b: "xx", c: "xx yy zz", d: "ww" });
  assert.deepEqual(ids(index.search("xx yy", 1)), ["a"]);
  assert.deepEqual(ids(index.search("xx yy", 2)), ["a", "c"]);
  const all = index.search("xx yy", 50);
  assert.deepEqual(ids(all), ["a", "c", "b"]);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].score >= all[i].score);
});

Deno.test("BM25 returns nothing for unknown words, stopwords or an empty query", () => {
  const index = indexOf({ a: "apple" });
  assert.deepEqual(index.search("banana", 5), []);
  assert.deepEqual(index.search("the of and", 5), []);
  assert.deepEqual(index.search("", 5), []);
});

Deno.test("BM25 over no passages returns nothing", () => {
  assert.deepEqual(new Bm25Index([]).search("anything", 5), []);
});

Deno.test("BM25 rejects a k that is not a whole number >= 1", () => {
  const index = indexOf({ a: "apple" });
  for (const k of [0, -1, 1.5, NaN]) {
    assert.throws(() => index.search("apple", k), {
      name: "RangeError",
      message: "k must be a whole number >= 1.",
    });
  }
});

Deno.test("BM25 indexes a real title with every passage, but not a title that repeats the id", () => {
  const titled = passage("eiffel", "It is 330 m tall.", "Eiffel Tower");
  const untitled = passage("tokyo", "It is 333 m tall.", "tokyo");
  const index = new Bm25Index([titled, untitled]);
  assert.deepEqual(ids(index.search("eiffel", 5)), ["eiffel"]);
  assert.deepEqual(ids(index.search("tokyo", 5)), []);
});

Deno.test("BM25 scores an ASCII passage and its non-ASCII twin identically", () => {
  // The no-break space sends the twin down the Unicode path of the tokenizer.
  const text = "The Towers' 1,250 metres: don't O'Neill v1.2.3 8,848.86m";
  const index = new Bm25Index([passage("ascii", text), passage("unicode", text + "\u00a0")]);
  for (const query of ["tower", "1250 metre", "dont oneill", "1.2.3", "8848.86 m"]) {
    const hits = index.search(query, 5);
    assert.equal(hits.length, 2, query);
    assert.equal(hits[0].score, hits[1].score, query);
  }
});

Deno.test("BM25 stats count passages, terms and postings", () => {
  const stats = indexOf({ a: "apple pear", b: "apple fig fig" }).stats;
  assert.equal(stats.passages, 2);
  assert.equal(stats.terms, 3);
  assert.equal(stats.postings, 4);
  assert.ok(stats.bytes > 0);
});

/** Term counts of each passage's indexed text (title unless it repeats the id, then text). */
function termCounts(
  passages: Passage[],
  analysis: Readonly<Analysis> = DEFAULT_ANALYSIS,
): Array<Map<string, number>> {
  return passages.map((p) => {
    const counts = new Map<string, number>();
    const title = p.title !== "" && p.title !== p.doc_id ? tokenize(p.title, analysis) : [];
    for (const t of [...title, ...tokenize(p.text, analysis)]) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return counts;
  });
}

/**
 * BM25 written the plain way, straight from the documented formula: every passage scored,
 * terms added fewest-passages first, then alphabetically (the index's order, so results
 * must match to the last bit).
 */
function referenceSearch(
  passages: Passage[],
  query: string,
  k: number,
  counts = termCounts(passages),
  options: { analysis?: Readonly<Analysis>; queryRepeats?: QueryRepeats } = {},
): Array<[string, number]> {
  const n = passages.length;
  const lengths = counts.map((c) => [...c.values()].reduce((a, b) => a + b, 0));
  const avgdl = lengths.reduce((a, b) => a + b, 0) / n || 1;
  const df = new Map<string, number>();
  for (const c of counts) for (const t of c.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const qtf = new Map<string, number>();
  const once = (options.queryRepeats ?? "once") === "once";
  for (const t of tokenize(query, options.analysis)) {
    qtf.set(t, once ? 1 : (qtf.get(t) ?? 0) + 1);
  }
  const terms = [...qtf.keys()].filter((t) => df.has(t))
    .sort((x, y) => df.get(x)! - df.get(y)! || (x < y ? -1 : 1));
  const scored: Array<[number, number]> = [];
  for (const [i, c] of counts.entries()) {
    let score = 0;
    for (const t of terms) {
      const tf = c.get(t) ?? 0;
      if (tf === 0) continue;
      const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      const weight = qtf.get(t)! * idf * (1.5 + 1);
      score = score + weight * tf / (tf + 1.5 * (1 - 0.75 + 0.75 * lengths[i] / avgdl));
    }
    if (score > 0) scored.push([i, score]);
  }
  scored.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  return scored.slice(0, k).map(([i, score]) => [passages[i].id, score]);
}

/** A deterministic corpus whose word frequencies fall off steeply (a few words are everywhere). */
function randomCorpus(count: number): Passage[] {
  let state = 2024;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) / 16777216;
  };
  const word = () => `w${Math.floor(Math.pow(next(), 3) * 400)}`;
  const passages: Passage[] = [];
  for (let i = 0; i < count; i++) {
    const length = 3 + Math.floor(next() * 60);
    passages.push(passage(`d${i}`, Array.from({ length }, word).join(" "), `t${i % 7}`));
  }
  return passages;
}

const PRUNING_SETTINGS = [
  { analysis: DEFAULT_ANALYSIS, queryRepeats: "once" },
  // The old rule keeps the single letters of "w52" and "t3": terms in every passage.
  { analysis: LEGACY_ANALYSIS, queryRepeats: "count" },
] as const;

for (const settings of PRUNING_SETTINGS) {
  const label =
    `${settings.analysis.singleLetters} single letters, query repeats ${settings.queryRepeats}`;
  Deno.test(`BM25 search (with its pruning) returns exactly what scoring every passage returns (${label})`, () => {
    const passages = randomCorpus(600);
    const index = new Bm25Index(passages, settings);
    const counts = termCounts(passages, settings.analysis);
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) / 16777216;
    };
    for (let q = 0; q < 400; q++) {
      const words = Array.from(
        { length: 1 + Math.floor(next() * 5) },
        () => q % 3 === 0 ? `w${Math.floor(next() * 400)}` : `w${Math.floor(next() ** 3 * 400)}`,
      );
      if (q % 5 === 0) words.push(`t${q % 7}`);
      const query = words.join(" ");
      const k = [1, 3, 5, 10, 50, 65, 100, 1000][q % 8];
      const got = index.search(query, k).map((h) => [h.passage.id, h.score]);
      assert.deepEqual(got, referenceSearch(passages, query, k, counts, settings), query);
    }
  });
}

Deno.test("BM25 pruning keeps a passage that only common terms could lift, when it can still win", () => {
  // "rare" alone gives d0 a score; "common" is in every passage. With k = 2 the second place
  // must come from "common" alone, so the common term cannot be skipped.
  const passages = [
    passage("d0", "rare common"),
    passage("d1", "common filler"),
    passage("d2", "common common"),
  ];
  assert.deepEqual(
    new Bm25Index(passages).search("rare common", 2).map((h) => [h.passage.id, h.score]),
    referenceSearch(passages, "rare common", 2),
  );
  assert.deepEqual(ids(new Bm25Index(passages).search("rare common", 2)), ["d0", "d2"]);
});

Deno.test("BM25 builds the same index with the WebAssembly kernel as with the JavaScript scan", () => {
  let state = 99;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) / 16777216;
  };
  const pieces = [
    "Tower",
    "tower's",
    "TOWERS",
    "don't",
    "1,250",
    "3.5",
    "covid19",
    "the",
    "of",
    "café",
    "Straße",
    "東京",
    "a''b",
    "x",
    "connections",
    "generously",
    ",",
    ".",
    "-",
    "  ",
    "\n",
  ];
  const word = () =>
    next() < 0.7 ? `w${Math.floor(next() ** 3 * 300)}` : pieces[Math.floor(next() * pieces.length)];
  const passages: Passage[] = [];
  for (let i = 0; i < 800; i++) {
    const length = Math.floor(next() * 80);
    const text = Array.from({ length }, word).join(next() < 0.5 ? " " : "");
    passages.push(passage(`d${i}`, text, i % 3 === 0 ? `Title ${i % 11} Ünïcode` : `t${i % 5}`));
  }
  const fast = new Bm25Index(passages);
  const slow = new Bm25Index(passages, { kernel: false });
  assert.deepEqual(fast.stats, slow.stats);
  for (let q = 0; q < 300; q++) {
    const query = Array.from({ length: 1 + Math.floor(next() * 5) }, word).join(" ");
    const k = [1, 5, 10, 100][q % 4];
    const scored = (index: Bm25Index) => index.search(query, k).map((h) => [h.passage.id, h.score]);
    assert.deepEqual(scored(fast), scored(slow), query);
  }
});
