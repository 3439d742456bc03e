/**
 * The copy of porter2 in lib/vendor/porter2 (an ES module, so no run loads
 * Deno's CommonJS loader for it) stems exactly as the npm package it was
 * made from.
 */

import assert from "node:assert/strict";
import { stem as npmStem } from "porter2";
import { stem as vendoredStem } from "../../../lib/vendor/porter2/stem.js";
import { snowballStem } from "../../../lib/lexical/tokenizer.ts";
import { CRANFIELD } from "../../support/shared_data.ts";

/** Every distinct lower-case word of the Cranfield collection's titles and texts. */
function cranfieldWords(): Set<string> {
  const words = new Set<string>();
  for (const line of Deno.readTextFileSync(`${CRANFIELD}corpus.jsonl`).split("\n")) {
    if (line.trim() === "") continue;
    const doc = JSON.parse(line) as { title?: string; text?: string };
    for (
      const word of `${doc.title ?? ""} ${doc.text ?? ""}`.toLowerCase().match(/[a-z']+/g) ?? []
    ) {
      words.add(word);
    }
  }
  return words;
}

/** Stems and suffixes crossed, for the endings every step of the algorithm looks at. */
function generatedWords(): string[] {
  const stems = ["gener", "commun", "arsen", "hop", "tap", "fil", "bat", "cri", "ski", "y", "sky"];
  const suffixes = [
    "",
    "s",
    "es",
    "ies",
    "ied",
    "sses",
    "ss",
    "us",
    "ed",
    "eed",
    "eedly",
    "ing",
    "ingly",
    "edly",
    "ational",
    "tional",
    "enci",
    "anci",
    "abli",
    "entli",
    "izer",
    "ization",
    "ation",
    "ator",
    "alism",
    "aliti",
    "alli",
    "fulness",
    "ousli",
    "ousness",
    "iveness",
    "iviti",
    "biliti",
    "bli",
    "logi",
    "fulli",
    "lessli",
    "li",
    "icate",
    "ative",
    "alize",
    "iciti",
    "ical",
    "ful",
    "ness",
    "ement",
    "ment",
    "ent",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
    "ion",
    "sion",
    "tion",
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "e",
    "l",
    "ll",
    "'s'",
    "'",
  ];
  return stems.flatMap((s) => suffixes.map((x) => s + x));
}

Deno.test("the vendored porter2 stems every Cranfield word and generated word as the npm package does", () => {
  const words = [...cranfieldWords(), ...generatedWords()];
  assert.ok(words.length > 5_000, `only ${words.length} words to compare`);
  const differing = words.filter((w) => vendoredStem(w) !== npmStem(w));
  assert.deepEqual(differing.slice(0, 20), []);
});

Deno.test("the tokenizer's Snowball stemmer is the vendored copy", () => {
  for (const word of ["generously", "connections", "aerodynamically", "animadversion"]) {
    assert.equal(snowballStem(word), npmStem(word));
  }
  assert.equal(snowballStem("animadversion"), "animadvers");
});
