import assert from "node:assert/strict";
import { createRng } from "../../../lib/util/prng.ts";
import {
  closestMatch,
  editDistance,
  MAX_SUGGESTED_LENGTH,
  suggestion,
} from "../../../lib/util/did_you_mean.ts";
import { withinCpu } from "../../support/cpu_time.ts";

Deno.test("editDistance counts insertions, deletions, substitutions and adjacent swaps", () => {
  assert.equal(editDistance("calculator", "calculator"), 0);
  assert.equal(editDistance("calculater", "calculator"), 1);
  assert.equal(editDistance("serch", "search"), 1);
  assert.equal(editDistance("saerch", "search"), 1);
  assert.equal(editDistance("", "abc"), 3);
});

Deno.test("closestMatch suggests a near name, ignoring case, and nothing for a far one", () => {
  const names = ["calculator", "date_calc", "corpus_grep", "search"];
  assert.equal(closestMatch("Calculater", names), "calculator");
  assert.equal(closestMatch("corpus-grep", names), "corpus_grep");
  assert.equal(closestMatch("weather", names), undefined);
  assert.equal(closestMatch("x", []), undefined);
});

Deno.test("closestMatch: ties go to the earlier candidate", () => {
  assert.equal(closestMatch("cat", ["bat", "rat"]), "bat");
});

Deno.test("closestMatch gives no suggestion for a huge name, at once", () => {
  const huge = "a".repeat(4_000_000);
  const found = withinCpu(
    1000,
    () => closestMatch(huge, ["search", "a".repeat(MAX_SUGGESTED_LENGTH + 1)]),
  );
  assert.equal(found, undefined);
});

Deno.test("closestMatch skips candidates whose length rules them out, without missing a match", () => {
  const ids = Array.from({ length: 50_000 }, (_, i) => `document_${i}_${"x".repeat(i % 40)}`);
  ids.push("eiffel_tower");
  assert.equal(withinCpu(2000, () => closestMatch("eifel_tower", ids)), "eiffel_tower");
});

Deno.test("suggestion: a did-you-mean, or the list of valid names", () => {
  assert.equal(suggestion("serch", ["search", "calculator"]), 'did you mean "search"?');
  assert.equal(suggestion("zzz", ["a", "b"]), 'expected one of "a", "b"');
  assert.equal(suggestion("zzz", []), "");
  const many = Array.from({ length: 20 }, (_, i) => `name${i}`);
  assert.match(suggestion("zzzzzzzz", many), /"name11", …$/);
});

/** The full table, as the definition reads (no early exit, no row reuse). */
function referenceDistance(a: string, b: string): number {
  const d = Array.from(
    { length: a.length + 1 },
    (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i === 0 ? j : j === 0 ? i : 0),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(
        d[i - 1][j] + 1,
        d[i][j - 1] + 1,
        d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

Deno.test("editDistance equals the full table on random strings, and with a bound says only 'more than max'", () => {
  const random = createRng(3);
  const word = () =>
    Array.from({ length: Math.floor(random() * 14) }, () => "abcd"[Math.floor(random() * 4)]).join(
      "",
    );
  for (let i = 0; i < 3000; i++) {
    const a = word();
    const b = random() < 0.5 ? word() : a.slice(0, 3) + word();
    const exact = referenceDistance(a, b);
    assert.equal(editDistance(a, b), exact, `${a} / ${b}`);
    const max = Math.floor(random() * 6);
    assert.equal(editDistance(a, b, max), exact <= max ? exact : max + 1, `${a} / ${b} max ${max}`);
  }
});

/** closestMatch's rule with every distance computed: no shortcut. */
function referenceClosest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const limit = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

Deno.test("closestMatch's shortcuts (length, letters) never change its answer (random names, letters past 127 too)", () => {
  const random = createRng(11);
  // Letters that fold into the same bucket (a, á = 0xE1 → 0x61, ∀ = 0x2200 → 0x00) stress the bound.
  const letters = ["a", "b", "c", "d", "A", "á", "Ā", "\u2200", "\u0000", "_", "1"];
  const word = (max: number) =>
    Array.from(
      { length: 1 + Math.floor(random() * max) },
      () => letters[Math.floor(random() * letters.length)],
    ).join("");
  for (let i = 0; i < 1500; i++) {
    const name = word(12);
    const candidates = Array.from(
      { length: 1 + Math.floor(random() * 30) },
      () => random() < 0.3 ? name.slice(0, -1) + word(2) : word(12),
    );
    assert.equal(
      closestMatch(name, candidates),
      referenceClosest(name, candidates),
      JSON.stringify([name, candidates]),
    );
  }
});

Deno.test("closestMatch among 100,000 ids of one length finds the near one", () => {
  const ids = Array.from({ length: 100_000 }, (_, i) => `d${String(i).padStart(5, "0")}/doc`);
  assert.equal(closestMatch("d04217/dco", ids), "d04217/doc");
  assert.equal(closestMatch("eiffel_tower", ids), undefined);
});
