/**
 * Finds a string in a text in time linear in the text, whatever the two hold
 * (Knuth–Morris–Pratt over UTF-16 units). V8's `indexOf` is not linear: for a
 * needle such as 500 a's, a b and 499 more a's it compares about half the
 * needle at every position of a text of a's (~0.6 s per 2 MB), so a word a
 * model sends to `corpus_grep` could hold its worker for minutes on a large
 * corpus, and a worker cannot be stopped inside a synchronous scan. The
 * line scan uses this for long words; short ones keep `indexOf`, whose worst
 * case is bounded by their length.
 *
 * @module
 */

/** A string to find, with its failure table built once. */
export class KmpFinder {
  readonly #word: string;
  /** `#fail[i]`: length of the longest proper border of `word[0..i]`. */
  readonly #fail: Int32Array;

  constructor(word: string) {
    if (word.length === 0) throw new RangeError("KmpFinder needs a non-empty word");
    this.#word = word;
    const fail = new Int32Array(word.length);
    let k = 0;
    for (let i = 1; i < word.length; i++) {
      const c = word.charCodeAt(i);
      while (k > 0 && word.charCodeAt(k) !== c) k = fail[k - 1];
      if (word.charCodeAt(k) === c) k++;
      fail[i] = k;
    }
    this.#fail = fail;
  }

  /** The first index >= `from` where the word occurs in `text`, or -1 (as `indexOf`). */
  find(text: string, from: number): number {
    const word = this.#word;
    const fail = this.#fail;
    const m = word.length;
    let k = 0;
    for (let i = Math.max(from, 0); i < text.length; i++) {
      const c = text.charCodeAt(i);
      while (k > 0 && word.charCodeAt(k) !== c) k = fail[k - 1];
      if (word.charCodeAt(k) === c && ++k === m) return i - m + 1;
    }
    return -1;
  }
}
