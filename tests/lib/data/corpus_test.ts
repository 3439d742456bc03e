import assert from "node:assert/strict";
import { loadCorpora, loadCorpus } from "../../../lib/data/corpus.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import { tempTree } from "../../support/temp.ts";

Deno.test("corpus: a JSON list keeps each document's id and sorts by id", async () => {
  await using t = await tempTree({
    "c.json": JSON.stringify([
      { id: "b", title: "Bee", text: "second" },
      { id: 7, text: "a number id" },
      { id: "a", text: "first", source: "x.txt" },
    ]),
  });
  const { corpus } = await loadCorpus(t.path("c.json"));
  assert.deepEqual(corpus.documents.map((d) => d.id), ["7", "a", "b"]);
  assert.deepEqual(corpus.documents[2], {
    id: "b",
    title: "Bee",
    text: "second",
    source: "c.json",
  });
  assert.equal(corpus.documents[0].title, "7");
  assert.equal(corpus.documents[1].source, "x.txt");
});

Deno.test("corpus: a folder gives ids from relative paths without extension, and keeps tables", async () => {
  await using t = await tempTree({
    "notes/harbor.txt": "The harbor opened in 1901.",
    "guide.md": "# Visitor guide\n\nOpen daily.",
    "prices.csv": 'product,price\nHarborShield, 12.50\n"Dock, large",30\n',
    "staff.json": JSON.stringify([{ name: "Ada", year: 2020, active: true }, { name: "Bo" }]),
    "image.png": "not text",
    ".hidden.txt": "skipped",
  });
  const { corpus, skipped } = await loadCorpus(t.dir);
  assert.deepEqual(corpus.documents.map((d) => [d.id, d.title, d.source]), [
    ["guide", "Visitor guide", "guide.md"],
    ["notes/harbor", "harbor", "notes/harbor.txt"],
  ]);
  assert.deepEqual(skipped, ["image.png"]);
  assert.deepEqual(corpus.tables.map((x) => x.source), ["prices.csv", "staff.json"]);
  assert.deepEqual(corpus.tables[0].columns, ["product", "price"]);
  assert.deepEqual(corpus.tables[0].rows, [
    { product: "HarborShield", price: "12.50" },
    { product: "Dock, large", price: "30" },
  ]);
  assert.deepEqual(corpus.tables[1].columns, ["name", "year", "active"]);
  assert.equal(corpus.tables[1].rows[0].year, 2020);
});

const failures: Array<
  { name: string; files: Record<string, string>; target: string; message: RegExp }
> = [
  {
    name: "a missing corpus",
    files: {},
    target: "nope.json",
    message: /^Cannot load corpus ".*nope\.json": no such file or folder\.$/,
  },
  {
    name: "invalid JSON",
    files: { "c.json": "[{" },
    target: "c.json",
    message: /^Cannot load corpus ".*c\.json": invalid JSON/,
  },
  {
    name: "a JSON object instead of a list",
    files: { "c.json": "{}" },
    target: "c.json",
    message: /expected a JSON list of documents \(\{id, title, text\}\), got object/,
  },
  {
    name: "a document without text",
    files: { "c.json": '[{"id": "a"}]' },
    target: "c.json",
    message: /document 1 has a bad field "text"/,
  },
  {
    name: "a duplicate id in a list",
    files: { "c.json": '[{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]' },
    target: "c.json",
    message: /documents 1 and 2 both have id "a"; ids must be unique\./,
  },
  {
    name: "an empty document in a list",
    files: { "c.json": '[{"id": "a", "text": "  \\n"}]' },
    target: "c.json",
    message: /document "a" is empty\./,
  },
  {
    name: "an empty file in a folder",
    files: { "docs/a.txt": "" },
    target: "docs",
    message: /"a\.txt" is empty\./,
  },
  {
    name: "two files giving one id",
    files: { "docs/a.txt": "one", "docs/a.md": "two" },
    target: "docs",
    message: /"a\.md" and "a\.txt" both give document id "a"; rename one of them\./,
  },
  {
    name: "a folder with nothing usable",
    files: { "docs/readme.pdf": "x" },
    target: "docs",
    message: /it holds no documents \(\.txt, \.md\) or tables \(\.csv, \.json\)\./,
  },
  {
    name: "a malformed CSV table",
    files: { "docs/t.csv": 'a,b\n"unclosed,2\n' },
    target: "docs",
    message: /^Cannot load corpus table "t\.csv": malformed CSV/,
  },
  {
    name: "a nested JSON table",
    files: { "docs/t.json": '[{"a": {"b": 1}}]' },
    target: "docs",
    message:
      /a JSON table must be a list of objects whose values are strings, numbers, booleans or null/,
  },
];

for (const f of failures) {
  Deno.test(`corpus: ${f.name} is an error naming the file`, async () => {
    await using t = await tempTree(f.files);
    const error = await loadCorpus(t.path(f.target)).then(() => null, (e) => e);
    assert.ok(error instanceof RagbenchError, `expected an error, got ${error}`);
    assert.match(error.message, f.message);
  });
}

Deno.test("corpora: several corpora merge in id order; an id in two of them is an error", async () => {
  await using t = await tempTree({
    "a.json": '[{"id": "z", "text": "zed"}]',
    "b/doc.txt": "a document",
    "b/t.csv": "k,v\n1,2\n",
    "c.json": '[{"id": "doc", "text": "clash"}]',
  });
  const { corpus } = await loadCorpora([t.path("a.json"), t.path("b")]);
  assert.deepEqual(corpus.documents.map((d) => d.id), ["doc", "z"]);
  assert.equal(corpus.tables.length, 1);
  const error = await loadCorpora([t.path("b"), t.path("c.json")]).catch((e) => e);
  assert.ok(error instanceof RagbenchError);
  assert.match(
    error.message,
    /^Cannot merge corpora: document id "doc" is in both ".*b" and ".*c\.json"; ids must be unique across the corpora of a config\.$/,
  );
});
