/**
 * The Porter (1980) stemmer as Martin Porter's own C implementation has it
 * (with its two departures from the paper: `-bli` -> `-ble` and `-logi` ->
 * `-log`), which Lucene's `PorterStemFilter` is a translation of: the stemmer
 * of the Lucene peers in the shared collections' READMEs, used by the Lucene
 * replica of `scripts/eval_beir.ts --length-study`. ragbench itself stems with
 * Snowball's English stemmer (Porter2); this file is for measurement only.
 *
 * Words of one or two characters are returned unchanged, as in the C code.
 *
 * @module
 */

/** A word being stemmed: `b[0..k]` is the current stem, `j` a scan position. */
class Stemmer {
  b: string[];
  k: number;
  j = 0;

  constructor(word: string) {
    this.b = [...word];
    this.k = this.b.length - 1;
  }

  /** Whether `b[i]` is a consonant (`y` is one at the start or after a vowel). */
  cons(i: number): boolean {
    switch (this.b[i]) {
      case "a":
      case "e":
      case "i":
      case "o":
      case "u":
        return false;
      case "y":
        return i === 0 ? true : !this.cons(i - 1);
      default:
        return true;
    }
  }

  /** The number of vowel-consonant sequences in `b[0..j]`. */
  m(): number {
    let n = 0;
    let i = 0;
    for (;;) {
      if (i > this.j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > this.j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > this.j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }

  /** Whether `b[0..j]` holds a vowel. */
  vowelInStem(): boolean {
    for (let i = 0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }

  /** Whether `b[i-1..i]` is a double consonant. */
  doubleC(i: number): boolean {
    return i >= 1 && this.b[i] === this.b[i - 1] && this.cons(i);
  }

  /** Whether `b[i-2..i]` is consonant-vowel-consonant, the last not `w`, `x` or `y`. */
  cvc(i: number): boolean {
    if (i < 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const ch = this.b[i];
    return ch !== "w" && ch !== "x" && ch !== "y";
  }

  /** Whether `b[0..k]` ends with `s`; sets `j` to the end of the rest. */
  ends(s: string): boolean {
    const n = s.length;
    if (n > this.k + 1) return false;
    for (let i = 0; i < n; i++) if (this.b[this.k - n + 1 + i] !== s[i]) return false;
    this.j = this.k - n;
    return true;
  }

  /** Replaces `b[j+1..k]` with `s`. */
  setTo(s: string): void {
    this.b.length = this.j + 1;
    this.b.push(...s);
    this.k = this.j + s.length;
  }

  /** {@link setTo} when the stem before the suffix has a measure above 0. */
  r(s: string): void {
    if (this.m() > 0) this.setTo(s);
  }

  /** Plurals and `-ed`, `-ing`. */
  step1ab(): void {
    if (this.b[this.k] === "s") {
      if (this.ends("sses")) this.k -= 2;
      else if (this.ends("ies")) this.setTo("i");
      else if (this.b[this.k - 1] !== "s") this.k--;
    }
    if (this.ends("eed")) {
      if (this.m() > 0) this.k--;
    } else if ((this.ends("ed") || this.ends("ing")) && this.vowelInStem()) {
      this.k = this.j;
      if (this.ends("at")) this.setTo("ate");
      else if (this.ends("bl")) this.setTo("ble");
      else if (this.ends("iz")) this.setTo("ize");
      else if (this.doubleC(this.k)) {
        this.k--;
        const ch = this.b[this.k];
        if (ch === "l" || ch === "s" || ch === "z") this.k++;
      } else if (this.m() === 1 && this.cvc(this.k)) this.setTo("e");
    }
  }

  /** Final `y` to `i` when the stem holds a vowel. */
  step1c(): void {
    if (this.ends("y") && this.vowelInStem()) this.b[this.k] = "i";
  }

  /** The first of `pairs` (suffix, replacement) that ends the word, replaced by {@link r}. */
  replaceFirst(pairs: ReadonlyArray<readonly [string, string]>): void {
    for (const [suffix, replacement] of pairs) {
      if (this.ends(suffix)) {
        this.r(replacement);
        return;
      }
    }
  }

  /** Double suffixes to single ones. */
  step2(): void {
    const pairs = STEP2.get(this.b[this.k - 1]);
    if (pairs) this.replaceFirst(pairs);
  }

  /** `-ic-`, `-full`, `-ness` and the like. */
  step3(): void {
    const pairs = STEP3.get(this.b[this.k]);
    if (pairs) this.replaceFirst(pairs);
  }

  /** `-ant`, `-ence` and the like, when the measure of the rest is above 1. */
  step4(): void {
    const suffixes = STEP4.get(this.b[this.k - 1]);
    if (!suffixes) return;
    let found = false;
    for (const s of suffixes) {
      if (!this.ends(s)) continue;
      if (s === "ion" && !(this.j >= 0 && (this.b[this.j] === "s" || this.b[this.j] === "t"))) {
        continue;
      }
      found = true;
      break;
    }
    if (found && this.m() > 1) this.k = this.j;
  }

  /** A final `-e`, and `-ll` to `-l`, by measure. */
  step5(): void {
    this.j = this.k;
    if (this.b[this.k] === "e") {
      const a = this.m();
      if (a > 1 || (a === 1 && !this.cvc(this.k - 1))) this.k--;
    }
    if (this.b[this.k] === "l" && this.doubleC(this.k) && this.m() > 1) this.k--;
  }
}

const STEP2 = new Map<string, ReadonlyArray<readonly [string, string]>>([
  ["a", [["ational", "ate"], ["tional", "tion"]]],
  ["c", [["enci", "ence"], ["anci", "ance"]]],
  ["e", [["izer", "ize"]]],
  ["l", [["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"]]],
  ["o", [["ization", "ize"], ["ation", "ate"], ["ator", "ate"]]],
  ["s", [["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"]]],
  ["t", [["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"]]],
  ["g", [["logi", "log"]]],
]);

const STEP3 = new Map<string, ReadonlyArray<readonly [string, string]>>([
  ["e", [["icate", "ic"], ["ative", ""], ["alize", "al"]]],
  ["i", [["iciti", "ic"]]],
  ["l", [["ical", "ic"], ["ful", ""]]],
  ["s", [["ness", ""]]],
]);

const STEP4 = new Map<string, readonly string[]>([
  ["a", ["al"]],
  ["c", ["ance", "ence"]],
  ["e", ["er"]],
  ["i", ["ic"]],
  ["l", ["able", "ible"]],
  ["n", ["ant", "ement", "ment", "ent"]],
  ["o", ["ion", "ou"]],
  ["s", ["ism"]],
  ["t", ["ate", "iti"]],
  ["u", ["ous"]],
  ["v", ["ive"]],
  ["z", ["ize"]],
]);

/** The Porter stem of a lower-case word (see the module documentation). */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  const s = new Stemmer(word);
  s.step1ab();
  if (s.k > 0) {
    s.step1c();
    s.step2();
    s.step3();
    s.step4();
    s.step5();
  }
  return s.b.slice(0, s.k + 1).join("");
}
