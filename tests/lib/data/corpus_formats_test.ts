import assert from "node:assert/strict";
import { describeSkipped, loadCorpus } from "../../../lib/data/corpus.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import { makePdf } from "../../support/pdf_fixture.ts";
import { staticGraph } from "../../support/static_graph.ts";
import { tempTree } from "../../support/temp.ts";

Deno.test("corpus folder: Markdown, reStructuredText, HTML and PDF files are documents with titles", async () => {
  await using t = await tempTree({
    "guide/setup.md": "# Setup guide #\n\nInstall it.\n\n```sh\nmake install\n```\n",
    "notes.markdown": "# Release notes\n\n| version | date |\n|---|---|\n| 1.2 | 2026-01-05 |\n",
    "api.rst": "=========\nAPI guide\n=========\n\nCall ``start()`` first.\n",
    "plain.rst": "No title here, just text.\n",
    "site/index.html": "<title>Home page</title><p>Welcome to the <b>harbor</b>.</p>",
    "site/old.htm": "<h1>Old page</h1><p>Kept for history.</p>",
    "readme.txt": "A text file.",
  });
  await Deno.writeFile(
    t.path("manual.pdf"),
    makePdf({ pages: [["Chapter one", "Tides rise."], ["Chapter two"]], title: "Harbor Manual" }),
  );
  await Deno.writeFile(t.path("scan_notes.pdf"), makePdf({ pages: [["Only page."]] }));
  const { corpus, skipped } = await loadCorpus(t.dir);
  assert.deepEqual(skipped, []);
  const byId = new Map(corpus.documents.map((d) => [d.id, d]));
  assert.deepEqual([...byId.keys()], [
    "api",
    "guide/setup",
    "manual",
    "notes",
    "plain",
    "readme",
    "scan_notes",
    "site/index",
    "site/old",
  ]);
  const titles = Object.fromEntries(corpus.documents.map((d) => [d.id, d.title]));
  assert.deepEqual(titles, {
    api: "API guide",
    "guide/setup": "Setup guide",
    manual: "Harbor Manual",
    notes: "Release notes",
    plain: "plain",
    readme: "readme",
    scan_notes: "scan notes",
    "site/index": "Home page",
    "site/old": "Old page",
  });
  assert.equal(byId.get("notes")!.text.includes("| 1.2 | 2026-01-05 |\n"), true, "lines kept");
  assert.equal(byId.get("site/index")!.text, "Welcome to the harbor.");
  assert.equal(byId.get("site/index")!.source, "site/index.html");
  const manual = byId.get("manual")!;
  assert.equal(manual.text, "Chapter one\nTides rise.\n\nChapter two");
  assert.deepEqual(manual.pages, [0, 25]);
  assert.equal(manual.text.slice(manual.pages![1]), "Chapter two");
  assert.equal(byId.get("readme")!.pages, undefined);
});

/** A folder with one good document and one file of each unreadable kind. */
async function unreadableFolder() {
  const t = await tempTree({
    "good.md": "# Good\n\nReadable.",
    "empty.md": "  \n",
    "scripts_only.html": "<script>var a = 1;</script>",
    "table.csv": 'a,b\n"unclosed,2\n',
  });
  await Deno.writeFile(t.path("latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
  await Deno.writeFile(t.path("broken.pdf"), new TextEncoder().encode("%PDF-1.4 garbage"));
  await Deno.writeFile(t.path("no_text.pdf"), makePdf({ pages: [[]] }));
  return t;
}

Deno.test("corpus folder: on_error: skip leaves out and lists every unreadable file, with why", async () => {
  await using t = await unreadableFolder();
  const { corpus, skipped } = await loadCorpus({ path: t.dir, on_error: "skip" });
  assert.deepEqual(corpus.documents.map((d) => d.id), ["good"]);
  assert.deepEqual(corpus.tables, []);
  assert.deepEqual(skipped.map((s) => [s.path, s.reason]), [
    ["broken.pdf", "unreadable"],
    ["empty.md", "unreadable"],
    ["latin1.txt", "unreadable"],
    ["no_text.pdf", "unreadable"],
    ["scripts_only.html", "unreadable"],
    ["table.csv", "unreadable"],
  ]);
  const [line] = describeSkipped(skipped);
  assert.match(line, /^corpus: skipped 6 unreadable files \(on_error: skip\): /);
  assert.match(line, /broken\.pdf \(it is not a readable PDF \(.+\)\)/);
  assert.match(line, /empty\.md \(it is empty\)/);
  assert.match(line, /latin1\.txt \(it is not valid UTF-8 \(byte 3, line 1\)/);
  assert.match(line, /no_text\.pdf \(it has no text \(a scanned PDF needs OCR first\)\)/);
  assert.match(line, /scripts_only\.html \(it has no text/);
  assert.match(line, /table\.csv \(malformed CSV/);
});

Deno.test("corpus folder: by default an unreadable file stops the load, naming it and on_error: skip", async () => {
  await using t = await tempTree({ "good.md": "fine" });
  await Deno.writeFile(t.path("broken.pdf"), new TextEncoder().encode("%PDF-1.4 garbage"));
  for (const source of [t.dir, { path: t.dir, on_error: "stop" as const }]) {
    const error = await loadCorpus(source).then(() => null, (e) => e);
    assert.ok(error instanceof RagbenchError);
    assert.equal(error.code, "data");
    assert.match(
      error.message,
      /^Cannot read corpus file "broken\.pdf": it is not a readable PDF \(.+\)\. To leave such files out instead, write the corpus as \{path: .+, on_error: skip\}\.$/,
    );
  }
});

Deno.test("corpus folder: a folder whose every document is unreadable says so, even with skip", async () => {
  await using t = await tempTree({ "a.md": "", "b.html": "<style>x</style>" });
  const error = await loadCorpus({ path: t.dir, on_error: "skip" }).then(() => null, (e) => e);
  assert.ok(error instanceof RagbenchError);
  assert.match(
    error.message,
    /it holds no documents .*; every one was unreadable \(corpus: skipped 2 unreadable files \(on_error: skip\): a\.md \(it is empty\), b\.html \(it has no text/,
  );
});

Deno.test("corpus folder: an HTML file over the size cap is refused unread", async () => {
  await using t = await tempTree({ "ok.md": "fine" });
  const big = new Uint8Array(32 * 1024 * 1024 + 1).fill(0x61);
  await Deno.writeFile(t.path("huge.html"), big);
  const { skipped } = await loadCorpus({ path: t.dir, on_error: "skip" });
  assert.deepEqual(skipped, [{
    path: "huge.html",
    reason: "unreadable",
    detail: "it is 33,554,433 bytes, over the 32 MB an HTML file may be",
  }]);
});

Deno.test("corpus folder: the HTML and PDF libraries are not in the static graph of a run", async () => {
  for (const entry of ["main.ts", "lib/plan/setup.ts", "lib/data/corpus.ts"]) {
    const graph = [...await staticGraph(entry)];
    assert.deepEqual(
      graph.filter((s) => /htmlparser2|unpdf|html_text|pdf_child/.test(s)),
      [],
      entry,
    );
  }
});
