import assert from "node:assert/strict";
import {
  type Passage,
  PASSAGE_MAX_WORDS,
  PASSAGE_MIN_WORDS,
  passagesOf,
  splitDocument,
  unitsOf,
} from "../../../lib/lexical/passages.ts";
import { CutKernel } from "../../../lib/lexical/cut_kernel.ts";
import { createRng } from "../../../lib/util/prng.ts";
import type { Document } from "../../../lib/types.ts";

function doc(id: string, text: string, title = `Title of ${id}`): Document {
  return { id, title, text, source: `${id}.txt` };
}

/** A sentence of `n` words, numbered from `from` so every word of a test is distinct. */
function sentence(n: number, from = 0): string {
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(`w${from + i}`);
  return words.join(" ") + ".";
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== "");
}

/** Every passage is a slice of the document; together they hold its words once, in order. */
function assertCovers(d: Document, passages: Passage[], spaced = true): void {
  if (spaced) assert.deepEqual(passages.flatMap((p) => words(p.text)), words(d.text));
  assert.equal(passages.map((p) => p.text.replace(/\s/g, "")).join(""), d.text.replace(/\s/g, ""));
  let at = 0;
  for (const [i, p] of passages.entries()) {
    assert.equal(p.index, i);
    assert.equal(p.id, `${d.id}#${i}`);
    assert.equal(p.doc_id, d.id);
    assert.equal(p.title, d.title);
    const found = d.text.indexOf(p.text, at);
    assert.ok(found >= at, `passage ${i} is a slice of the text, after the previous one`);
    at = found + p.text.length;
  }
}

Deno.test("a short document is one passage: its whole text, trimmed", () => {
  const d = doc("eiffel", "  The Eiffel Tower is 330 m tall.\n\nIt opened in 1889.  \n");
  assert.deepEqual(splitDocument(d), [{
    id: "eiffel#0",
    doc_id: "eiffel",
    index: 0,
    title: "Title of eiffel",
    text: "The Eiffel Tower is 330 m tall.\n\nIt opened in 1889.",
  }]);
});

Deno.test("an empty document is still one (empty) passage, so its title can be found", () => {
  const passages = splitDocument(doc("empty", ""));
  assert.equal(passages.length, 1);
  assert.equal(passages[0].text, "");
});

Deno.test("a document of exactly maxWords words is one passage", () => {
  const d = doc("d", sentence(PASSAGE_MAX_WORDS));
  assert.equal(splitDocument(d).length, 1);
});

Deno.test("a long document is cut at sentence ends into passages of about equal size", () => {
  let text = "";
  for (let s = 0; s < 30; s++) text += sentence(20, s * 20) + " ";
  const d = doc("long", text); // 600 words -> 3 passages of 200
  const passages = splitDocument(d);
  assertCovers(d, passages);
  assert.deepEqual(passages.map((p) => words(p.text).length), [200, 200, 200]);
  for (const p of passages) assert.ok(p.text.endsWith("."), "ends at a sentence end");
});

Deno.test("passages are balanced rather than filled greedily", () => {
  let text = "";
  for (let s = 0; s < 21; s++) text += sentence(10, s * 10) + " ";
  const d = doc("d", text); // 210 words -> 2 passages near 105, not 200 + 10
  const sizes = splitDocument(d).map((p) => words(p.text).length);
  assert.deepEqual(sizes, [110, 100]);
});

Deno.test("a paragraph end closes a passage once it has minWords words", () => {
  const paragraphs = [
    sentence(60, 0) + " " + sentence(60, 60),
    sentence(90, 120),
    sentence(90, 210),
  ];
  const d = doc("d", paragraphs.join("\n\n")); // 300 words; share 150, but paragraph 1 ends at 120
  const passages = splitDocument(d);
  assertCovers(d, passages);
  assert.deepEqual(passages.map((p) => words(p.text).length), [120, 180]);
  assert.equal(passages[0].text, paragraphs[0]);
});

Deno.test("a sentence longer than maxWords is cut into even pieces of at most maxWords", () => {
  const d = doc("run-on", sentence(450).slice(0, -1)); // no punctuation at all
  const passages = splitDocument(d);
  assertCovers(d, passages);
  assert.deepEqual(passages.map((p) => words(p.text).length), [150, 150, 150]);
});

Deno.test("a last passage under minWords / 2 words joins the one before", () => {
  const d = doc("d", sentence(200, 0) + " " + sentence(20, 200));
  const passages = splitDocument(d);
  assertCovers(d, passages);
  assert.deepEqual(passages.map((p) => words(p.text).length), [220]);
});

Deno.test("sentence ends after closing quotes and brackets; not inside numbers", () => {
  const text = `He said "${sentence(150, 0)}" Then (${sentence(100, 150)}) The value 3.5 ${
    sentence(60, 250)
  }`;
  const d = doc("d", text);
  const passages = splitDocument(d);
  assertCovers(d, passages);
  assert.ok(passages[0].text.endsWith('."'), passages[0].text.slice(-10));
});

Deno.test("Han and Kana characters count as words and 。 ends a sentence", () => {
  const sentenceCjk = "東京タワーは高い塔です" + "。"; // 11 characters = 11 words
  const d = doc("ja", sentenceCjk.repeat(40)); // 440 words
  const passages = splitDocument(d);
  assertCovers(d, passages, false);
  assert.deepEqual(passages.map((p) => p.text.length / sentenceCjk.length), [14, 14, 12]);
  for (const p of passages) assert.ok(p.text.endsWith("。"));
});

Deno.test("passagesOf keeps corpus order and gives unique ids", () => {
  const docs = [doc("b", sentence(300)), doc("a", "short"), doc("c", "")];
  const passages = passagesOf({ documents: docs, tables: [] });
  assert.deepEqual(passages.map((p) => p.id), ["b#0", "b#1", "a#0", "c#0"]);
  assert.deepEqual(passagesOf(docs), passages);
});

Deno.test("passage sizes can be chosen", () => {
  const d = doc("d", sentence(100));
  const passages = splitDocument(d, { maxWords: 30, minWords: 10 });
  assertCovers(d, passages);
  assert.deepEqual(passages.map((p) => words(p.text).length), [25, 25, 25, 25]);
});

Deno.test("bad passage sizes are rejected with a message naming the option", () => {
  assert.throws(
    () => splitDocument(doc("d", "x"), { maxWords: 0 }),
    { name: "RangeError", message: "maxWords must be a whole number of at least 1, got 0." },
  );
  assert.throws(
    () => splitDocument(doc("d", "x"), { maxWords: 50, minWords: 60 }),
    { name: "RangeError", message: "minWords must be a whole number from 0 to maxWords, got 60." },
  );
});

Deno.test("the default sizes are 100 to 200 words", () => {
  assert.equal(PASSAGE_MIN_WORDS, 100);
  assert.equal(PASSAGE_MAX_WORDS, 200);
});

Deno.test("the byte scan of ASCII texts finds the same units as the general scan", () => {
  const random = createRng(11);
  // Every ASCII character class the rule distinguishes: spaces and line ends, sentence ends,
  // closers, letters and other punctuation; long and short texts.
  const pieces = [
    " ",
    "  ",
    "\n",
    "\n\n",
    "\n \n",
    "\t",
    "\r\n",
    ".",
    "!",
    "?",
    '"',
    "'",
    ")",
    "]",
    "}",
    "a",
    "word",
    "x1",
    ",",
    "-",
    ";",
    "e.g",
    "...",
    '."',
    ".)",
    ' ("',
    "A.",
    "\x01",
  ];
  let checked = 0;
  for (let round = 0; round < 3000; round++) {
    const parts: string[] = [];
    const length = 1 + Math.floor(random() * (round % 10 === 0 ? 400 : 40));
    for (let i = 0; i < length; i++) parts.push(pieces[Math.floor(random() * pieces.length)]);
    const text = parts.join("");
    const general = unitsOf(text, { ascii: false });
    assert.deepEqual(unitsOf(text), general, JSON.stringify(text));
    assert.deepEqual(unitsOf(text, { kernel: false }), general, JSON.stringify(text));
    checked++;
  }
  assert.equal(checked, 3000);
});

Deno.test("the SIMD scan finds the JavaScript byte scan's units across its 64-byte steps", () => {
  const random = createRng(12);
  const pieces = [
    " ",
    "\n",
    "\n\n",
    "\n \n",
    "\t",
    "\x00",
    ".",
    "!",
    "?",
    '"',
    ")",
    "]",
    "}",
    "'",
    "a",
    "word",
    "End.",
    'said."',
    "(x)",
    "?!",
  ];
  for (let round = 0; round < 2000; round++) {
    let text = "";
    const length = 1 + Math.floor(random() * 300);
    for (let i = 0; i < length; i++) {
      const piece = pieces[Math.floor(random() * pieces.length)];
      // Now and then a long run of one piece, so words and spaces span whole steps.
      text += random() < 0.03 ? piece.repeat(1 + Math.floor(random() * 150)) : piece;
    }
    assert.deepEqual(unitsOf(text), unitsOf(text, { kernel: false }), JSON.stringify(text));
  }
  for (let at = 0; at < 200; at++) {
    for (const tail of ["a.\n\nb", "a. b", "a\n\n\nb", 'a." b', "a b.", "a\n \nb."]) {
      const text = "x ".repeat(at >> 1) + (at & 1 ? " " : "") + tail;
      assert.deepEqual(unitsOf(text), unitsOf(text, { kernel: false }), JSON.stringify(text));
    }
  }
  assert.deepEqual(unitsOf(""), []);
  assert.deepEqual(unitsOf(" \n\n "), []);
});

Deno.test("the SIMD scan makes room for a document of many units", () => {
  const text = "A. ".repeat(50_000) + "word ".repeat(70_000);
  const units = unitsOf(text);
  assert.equal(units.length, 50_001);
  assert.deepEqual(units, unitsOf(text, { kernel: false }));
});

Deno.test("a document with non-ASCII text is cut like its ASCII twin where the rule is the same", () => {
  // The general scan handles the non-ASCII text; the same layout in ASCII goes through bytes.
  const ascii = [sentence(120, 0), sentence(120, 200), "", sentence(30, 400)].join(" ");
  const accented = ascii.replaceAll("w", "é");
  const a = splitDocument(doc("a", ascii), { maxWords: 150, minWords: 50 });
  const b = splitDocument(doc("b", accented), { maxWords: 150, minWords: 50 });
  assert.deepEqual(a.map((p) => p.text.replaceAll("w", "é")), b.map((p) => p.text));
  assert.ok(a.length > 1);
});

Deno.test("the SIMD scan's word count, which decides one-passage documents, is the units' total", () => {
  const random = createRng(13);
  const kernel = new CutKernel();
  const pieces = [" ", "\n", "\n\n", "a", "word", "End.", "x!", "\t", '"', "?", "1,2"];
  for (let round = 0; round < 1000; round++) {
    let text = "";
    for (let i = Math.floor(random() * 400); i > 0; i--) {
      text += pieces[Math.floor(random() * pieces.length)];
    }
    let words = 0;
    for (const unit of unitsOf(text, { kernel: false })) words += unit.words;
    assert.equal(kernel.scan(text), words, JSON.stringify(text));
  }
  assert.equal(kernel.scan("café au lait"), -1);
});
