import assert from "node:assert/strict";
import { join } from "node:path";
import { corporaOf, realCorpus, realQueries } from "../../scripts/real_corpus.ts";

async function withDatasets(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ragbench_real_corpus_" });
  try {
    await Deno.mkdir(join(dir, "cranfield"));
    await Deno.writeTextFile(
      join(dir, "cranfield", "corpus.jsonl"),
      '{"_id": "1", "title": "wings", "text": "delta wing flutter"}\n' +
        '{"_id": "2", "text": "jet noise"}\n',
    );
    await Deno.writeTextFile(
      join(dir, "cranfield", "queries.jsonl"),
      '{"_id": "q1", "text": "what is flutter"}\n\n{"_id": "q2", "text": "jet noise levels"}\n',
    );
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("real corpus: a collection repeated until its text reaches the size asked, copy k of a document is id~k", async () => {
  await withDatasets(async (datasets) => {
    const real = await realCorpus("cranfield", { chars: 60, datasets });
    assert.ok(!("missing" in real));
    // 27 characters a copy: three copies reach 60.
    assert.equal(real.copies, 3);
    assert.deepEqual(real.corpus.documents.map((d) => d.id), [
      "1~0",
      "2~0",
      "1~1",
      "2~1",
      "1~2",
      "2~2",
    ]);
    assert.equal(real.corpus.documents[2].title, "wings");
    assert.equal(real.corpus.documents[3].title, "");
  });
});

Deno.test("real corpus: the collection's own queries, taken again from the first when more are asked", async () => {
  await withDatasets(async (datasets) => {
    assert.deepEqual(await realQueries("cranfield", 3, { datasets }), [
      "what is flutter",
      "jet noise levels",
      "what is flutter",
    ]);
    assert.deepEqual(await realQueries("npl", 3, { datasets }), []);
  });
});

Deno.test("real corpus: a missing collection is named, so a benchmark can skip it", async () => {
  await withDatasets(async (datasets) => {
    const real = await realCorpus("med", { chars: 1, datasets });
    assert.ok("missing" in real);
    assert.match(real.missing, /med\/corpus\.jsonl/);
  });
});

Deno.test("real corpus: --corpus names both corpora, one of them, or is refused with the choices", () => {
  assert.deepEqual(corporaOf(undefined), ["synthetic", "cranfield"]);
  assert.deepEqual(corporaOf("both", "npl"), ["synthetic", "npl"]);
  assert.deepEqual(corporaOf("med"), ["med"]);
  assert.deepEqual(corporaOf("synthetic"), ["synthetic"]);
  assert.throws(() => corporaOf("__proto__"), {
    name: "RangeError",
    message: '--corpus must be both, synthetic or one of cranfield, npl, med, got "__proto__".',
  });
});
