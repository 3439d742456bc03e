import assert from "node:assert/strict";
import { describeSkipped, loadCorpora, loadCorpus } from "../../../lib/data/corpus.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import { evalUnderHeap } from "../../support/small_heap.ts";
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
  assert.deepEqual(skipped, [{ path: "image.png", reason: "not_a_document" }]);
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
    message:
      /^Cannot read corpus file "a\.txt": it is empty\. To leave such files out instead, write the corpus as \{path: .*docs, on_error: skip\}\.$/,
  },
  {
    name: "two files giving one id",
    files: { "docs/a.txt": "one", "docs/a.md": "two" },
    target: "docs",
    message: /"a\.md" and "a\.txt" both give document id "a"; rename one of them\./,
  },
  {
    name: "a folder with nothing usable",
    files: { "docs/readme.docx": "x" },
    target: "docs",
    message:
      /it holds no documents \(\.txt, \.md, \.markdown, \.rst, \.html, \.htm, \.pdf\) or tables \(\.csv, \.json\)\./,
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

Deno.test("corpus: a binary file named .md is skipped and reported, not made a document", async () => {
  await using t = await tempTree({ "a.txt": "Plain text." });
  // The start of an ELF executable: NUL bytes and invalid UTF-8.
  await Deno.writeFile(
    t.path("tool.md"),
    new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0xff]),
  );
  const { corpus, skipped } = await loadCorpus(t.dir);
  assert.deepEqual(corpus.documents.map((d) => d.id), ["a"]);
  assert.deepEqual(skipped, [{ path: "tool.md", reason: "binary" }]);
  assert.deepEqual(describeSkipped(skipped), [
    "corpus: skipped 1 binary file (a NUL byte in the first 8 KB): tool.md",
  ]);
});

Deno.test("corpus: invalid UTF-8 in a document is refused with the file and byte offset", async () => {
  await using t = await tempTree({});
  // "café ok\nna" in UTF-8 (11 bytes), then a Latin-1 "ï" (0xEF) that starts no valid sequence.
  const bytes = [...new TextEncoder().encode("café ok\nna"), 0xef, 0x76, 0x65];
  await Deno.writeFile(t.path("latin1.txt"), new Uint8Array(bytes));
  await assert.rejects(
    () => loadCorpus(t.dir),
    (error: Error) => {
      assert.ok(error instanceof RagbenchError);
      assert.equal(
        error.message,
        `Cannot read corpus file "${
          t.path("latin1.txt")
        }": it is not valid UTF-8 (byte 11, line 2); save it as UTF-8, or remove it from the corpus folder. ` +
          `To leave such files out instead, write the corpus as {path: ${t.dir}, on_error: skip}.`,
      );
      return true;
    },
  );
});

Deno.test("corpus: a link inside the folder is followed; outside, broken and looping links are reported", async () => {
  await using outside = await tempTree({ "secret.txt": "Not part of the corpus." });
  await using t = await tempTree({
    "docs/real.txt": "The real document.",
    "tables/t.csv": "a,b\n1,2\n",
  });
  await Deno.symlink(t.path("docs/real.txt"), t.path("alias.txt"));
  await Deno.symlink("tables", t.path("linked_tables"));
  await Deno.symlink(outside.path("secret.txt"), t.path("leak.txt"));
  await Deno.symlink(outside.dir, t.path("leak_dir"));
  await Deno.symlink(t.path("missing.txt"), t.path("dead.txt"));
  await Deno.symlink("..", t.path("docs/up"));
  const { corpus, skipped } = await loadCorpus(t.dir);
  assert.deepEqual(corpus.documents.map((d) => d.id), ["alias", "docs/real"]);
  assert.equal(corpus.documents[0].text, "The real document.");
  assert.deepEqual(corpus.tables.map((x) => x.source), ["linked_tables/t.csv", "tables/t.csv"]);
  const real = (p: string) => Deno.realPathSync(p);
  assert.deepEqual(skipped, [
    { path: "dead.txt", reason: "link_broken", target: t.path("missing.txt") },
    { path: "docs/up", reason: "link_loop", target: real(t.dir) },
    { path: "leak.txt", reason: "link_outside", target: real(outside.path("secret.txt")) },
    { path: "leak_dir", reason: "link_outside", target: real(outside.dir) },
  ]);
  assert.deepEqual(describeSkipped(skipped), [
    `corpus: skipped 4 symbolic links not followed: dead.txt -> ${
      t.path("missing.txt")
    } (broken), docs/up -> ${real(t.dir)} (a loop), leak.txt -> ${
      real(outside.path("secret.txt"))
    } (outside the corpus folder), leak_dir -> ${real(outside.dir)} (outside the corpus folder)`,
  ]);
});

Deno.test("corpus: a link chain that loops is skipped, not followed forever", async () => {
  await using t = await tempTree({ "a.txt": "A." });
  await Deno.symlink(t.path("y.txt"), t.path("x.txt"));
  await Deno.symlink(t.path("x.txt"), t.path("y.txt"));
  const { corpus, skipped } = await loadCorpus(t.dir);
  assert.deepEqual(corpus.documents.map((d) => d.id), ["a"]);
  assert.deepEqual(skipped.map((s) => [s.path, s.reason]), [
    ["x.txt", "link_loop"],
    ["y.txt", "link_loop"],
  ]);
});

Deno.test("corpus: a folder load reports nothing when it is quick", async () => {
  await using t = await tempTree({ "a.txt": "A.", "b.txt": "B." });
  const lines: string[] = [];
  await loadCorpus(t.dir, { progress: (line) => lines.push(line) });
  assert.deepEqual(lines, []);
});

Deno.test("corpus: a slow folder load reports files read and the end", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1200; i++) files[`d${String(i).padStart(4, "0")}.txt`] = `Doc ${i}.`;
  await using t = await tempTree(files);
  const lines: string[] = [];
  let now = 0;
  // Every clock reading advances 0.7 s, so the load looks slow.
  await loadCorpus(t.dir, { progress: (line) => lines.push(line), clock: () => (now += 700) });
  // Quiet for the first second, then at most a line a second.
  assert.deepEqual(lines, [
    `corpus: reading "${t.dir}": 500 of 1200 files (1.4 s)`,
    "corpus: loaded 1200 documents and 0 tables in 2.8 s",
  ]);
});

Deno.test("corpus: a JSONL list is read a line at a time: lines across read edges, blank lines, CRLF and a last line without a newline", async () => {
  const doc = (i: number) =>
    JSON.stringify({ id: `d${i}`, text: `é ${"word ".repeat(i * 40_000)}` });
  // Lines of 0-1.6 MB: several cross the 1 MiB reads.
  const text = [doc(0), "", doc(1) + "\r", doc(2), "   ", doc(3), doc(4)].join("\n");
  await using t = await tempTree({ "c.jsonl": text });
  const { corpus } = await loadCorpus(t.path("c.jsonl"));
  assert.deepEqual(corpus.documents.map((d) => d.id), ["d0", "d1", "d2", "d3", "d4"]);
  assert.equal(corpus.documents[4].text, `é ${"word ".repeat(160_000)}`);
  assert.equal(corpus.documents[0].source, "c.jsonl");
});

Deno.test("corpus: in a JSONL list, invalid UTF-8 past the first read and bad JSON are placed by byte and line", async () => {
  const first = JSON.stringify({ id: "a", text: "x".repeat(1_200_000) }) + "\n";
  const bytes = [
    ...new TextEncoder().encode(first + '{"id": "b", "text": "caf'),
    0xe9,
    ...new TextEncoder().encode('"}\n'),
  ];
  await using t = await tempTree({
    "bad.jsonl": '{"id": "a", "text": "x"}\n{"id": "b", "text": oops}\n',
  });
  await Deno.writeFile(t.path("latin1.jsonl"), new Uint8Array(bytes));
  await assert.rejects(
    () => loadCorpus(t.path("latin1.jsonl")),
    (error: Error) => {
      assert.ok(error instanceof RagbenchError);
      assert.equal(
        error.message,
        `Cannot read corpus file "${t.path("latin1.jsonl")}": it is not valid UTF-8 (byte ${
          new TextEncoder().encode(first).length + 24
        }, line 2); save it as UTF-8, or remove it from the corpus folder.`,
      );
      return true;
    },
  );
  await assert.rejects(
    () => loadCorpus(t.path("bad.jsonl")),
    (error: Error) =>
      error instanceof RagbenchError && error.message.startsWith(
        `Cannot load corpus "${t.path("bad.jsonl")}:2": invalid JSON (`,
      ),
  );
});

Deno.test("corpus: a binary JSONL file is refused as binary", async () => {
  await using t = await tempTree({});
  await Deno.writeFile(t.path("c.jsonl"), new Uint8Array([0x7b, 0x00, 0x7d, 0x0a]));
  await assert.rejects(
    () => loadCorpus(t.path("c.jsonl")),
    (error: Error) =>
      error instanceof RagbenchError &&
      error.message ===
        `Cannot load corpus "${
          t.path("c.jsonl")
        }": it is a binary file (a NUL byte in its first 8 KB), not a JSON list of documents.`,
  );
});

Deno.test("corpus: a JSONL list is never read as one string (100 MB of lines under a 48 MB heap)", async () => {
  // Small documents padded with spaces after each object: the documents fit the heap, the file
  // as one string does not. V8 refuses any string past ~536 million characters, so a JSONL corpus
  // larger than that could not load at all (and was reported as invalid UTF-8).
  await using t = await tempTree();
  const path = t.path("c.jsonl");
  {
    using file = Deno.openSync(path, { write: true, create: true });
    const encoder = new TextEncoder();
    for (let block = 0; block < 100; block++) {
      const lines = Array.from(
        { length: 1_000 },
        (_, i) => `{"id":"d${block * 1_000 + i}","text":"t"}${" ".repeat(1_000)}\n`,
      );
      file.writeSync(encoder.encode(lines.join("")));
    }
  }
  const module = new URL("../../../lib/data/corpus.ts", import.meta.url).href;
  const printed = await evalUnderHeap(
    48,
    `const { loadCorpus } = await import(${JSON.stringify(module)});` +
      `console.log((await loadCorpus(${JSON.stringify(path)})).corpus.documents.length);`,
  );
  assert.equal(printed, "100000");
});

Deno.test("corpus: each JSON document is taken or refused as its schema says, read with or without it", async () => {
  // Well-formed documents are read without the schema's copy; everything else goes through it.
  const cases: [unknown, string | RegExp][] = [
    [{ id: "a", text: "t", extra: [1, 2], __proto__x: 1 }, "a|a|t|c.json"],
    [JSON.parse('{"id": "a", "text": "t", "__proto__": {"title": "polluted"}}'), "a|a|t|c.json"],
    [{ id: "a", title: "T", text: "t", source: "s" }, "a|T|t|s"],
    [{ id: 12, text: "t" }, "12|12|t|c.json"],
    [{ id: "", text: "t" }, /document 1 has a bad field "id"/],
    [{ id: 1.5, text: "t" }, /document 1 has a bad field "id"/],
    [{ id: "a", title: null, text: "t" }, /document 1 has a bad field "title"/],
    [{ id: "a", text: "t", source: 3 }, /document 1 has a bad field "source"/],
    [{ id: "a", text: ["t"] }, /document 1 has a bad field "text"/],
    [["a", "t"], /document 1 has a bad entry/],
    ["a", /document 1 has a bad entry/],
    [null, /document 1 has a bad entry/],
  ];
  for (const [item, expected] of cases) {
    await using t = await tempTree({ "c.json": JSON.stringify([item]) });
    const loading = loadCorpus(t.path("c.json"));
    if (expected instanceof RegExp) {
      await assert.rejects(loading, { name: "RagbenchError", message: expected });
      continue;
    }
    const [doc] = (await loading).corpus.documents;
    assert.equal([doc.id, doc.title, doc.text, doc.source].join("|"), expected);
    assert.equal(Object.getPrototypeOf(doc), Object.prototype);
  }
});
