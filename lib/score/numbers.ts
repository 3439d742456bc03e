/**
 * Finding the numbers written in an answer's prose, for `numeric_equals`.
 *
 * {@link extractNumbers} returns every number it reads, in text order, with
 * duplicates; a check passes when any of them is close enough, so the rule
 * errs towards offering a reading rather than missing one, but never invents
 * a sign or a magnitude the text does not write.
 *
 * The rule, one reading per number unless said otherwise:
 *
 * - Digits are ASCII `0`–`9` only. A number may be glued to letters on
 *   either side: `330m` → 330, `1889AD` → 1889, `1st` → 1, `COVID-19` → 19.
 * - Decimal point: `.` followed by a digit (`3.5 km` → 3.5). A period with no
 *   digit after it ends a sentence: `It is 330.` → 330. A leading dot is a
 *   decimal when it stands at the start, after a space, sign, bracket, quote
 *   or currency symbol (`.5`, `(-.5)` → 0.5, -0.5); after a letter or other
 *   punctuation it is not (`file.5` → 5).
 * - Dotted chains of three or more groups are versions, addresses or section
 *   numbers, not decimals: `version 2.0.1` → 2, 0, 1; `1.000.000` → 1, 0, 0
 *   (European thousands dots are not supported).
 * - Thousands separators: a comma (or a thin space U+2009 / narrow no-break
 *   space U+202F) between a leading group of 1–3 digits and groups of exactly
 *   three digits, one separator kind per number: `1,250` → 1250,
 *   `1,000,000` → 1000000, `$1,250.50` → 1250.5. Otherwise a comma separates:
 *   `1,25` → 1, 25; `2019,250` → 2019, 250; `3,5` → 3, 5 (no decimal
 *   comma). A plain or no-break space never groups digits (`1 250` → 1, 250:
 *   too often two numbers side by side). Known ambiguity: an unspaced list of
 *   three-digit numbers `100,200,300` reads as 100200300.
 * - Negative: `-` (U+002D) or `−` (U+2212), right before the digits (or a
 *   currency symbol: `-$5` → -5), is a sign only when it stands at the start
 *   or after a space, an opening bracket, a quote, or one of `= : ; , < > ~ ≈`.
 *   After a digit or letter it is a range, date or name hyphen:
 *   `2020-2021` → 2020, 2021; `2025-03-05` → 2025, 3, 5; `555-1234` → 555,
 *   1234; `F-16` → 16. A spaced dash is not a sign (`10 - 5` → 10, 5).
 *   The words `minus N` / `negative N` give -N, unless a number comes right
 *   before the word (`10 minus 4` is arithmetic: 10, 4). Dotted chains never
 *   take a sign. `-0` reads as 0.
 * - Scale words: a number followed by `thousand`, `million`, `billion` or
 *   `trillion` (optionally plural, after at most one space or hyphen), by
 *   `bn` (glued or after one space), or by a glued `k`/`K` not followed by a
 *   letter or digit, gives two readings, as written and scaled:
 *   `1.2 million` → 1.2, 1200000; `3bn` → 3, 3000000000; `5k` → 5, 5000.
 *   `m`/`M` are not scale words (`330m` is metres).
 * - Scientific notation glued to a plain number, `e`/`E`, optional sign, 1–3
 *   digits, then no letter or digit: `1.5e6` → 1500000 (one reading).
 *   `1.5 × 10^6` is not understood (→ 1.5, 10, 6).
 * - Nothing else is interpreted: `12.5%` → 12.5, `24/7` → 24, 7 (no
 *   fractions), `12:30` → 12, 30, `±0.5` → 0.5, `+5` → 5; number words
 *   (`five`) are not read. Values that overflow to infinity are dropped.
 *
 * @module
 */

/**
 * One numeric core. Alternatives in priority order: a dotted chain, a
 * separator-grouped number, a plain number (optionally with a glued exponent),
 * a leading-dot decimal. `(?<!\d)` keeps a match from starting inside digits.
 */
const CORE = new RegExp(
  [
    String.raw`(?<!\d)(?:`,
    String.raw`(?<chain>\d+(?:\.\d+){2,})`,
    String.raw`|(?<grouped>\d{1,3}(?<sep>[,\u2009\u202F])\d{3}(?!\d)`,
    String.raw`(?:\k<sep>\d{3}(?!\d))*(?:\.\d+)?)`,
    String.raw`|(?<plain>\d+(?:\.\d+)?)(?<exp>[eE][+\-]?\d{1,3}(?![\p{L}\p{N}]))?`,
    String.raw`|(?<dot>\.\d+)`,
    `)`,
  ].join(""),
  "gu",
);

/** What may stand before a leading-dot decimal for the dot to count. */
const BEFORE_LEADING_DOT = /[\s([{"'“‘$€£¥+\-−]/u;
/** What may stand before a `-`/`−` for it to count as a sign. */
const BEFORE_SIGN = /[\s([{"'“‘=:;,<>~≈]/u;
const CURRENCY = /[$€£¥]/u;
const SIGN_CHARS = "-−";
/**
 * `minus` / `negative` and 1–3 spaces, ending right before a number. Matched on
 * a 16-character window: too short for `^` to match mid-word at its start.
 */
const SIGN_WORD = /(?:^|[^\p{L}\p{N}])(?:minus|negative)\s{1,3}$/iu;

const SCALE_WORDS: ReadonlyMap<string, number> = new Map([
  ["thousand", 3],
  ["million", 6],
  ["billion", 9],
  ["trillion", 12],
]);
const SCALE_WORD = /^[ \-\u00A0]?(thousand|million|billion|trillion)s?(?!\p{L})/iu;
const SCALE_BN = /^ ?bn(?!\p{L})/iu;
const SCALE_K = /^k(?![\p{L}\p{N}])/iu;

/**
 * The numbers written in `text`, in text order, duplicates kept. A number
 * followed by a scale word appears twice, as written then scaled. See the
 * module documentation for the exact rule.
 */
export function extractNumbers(text: string): number[] {
  const found: number[] = [];
  for (const match of text.matchAll(CORE)) {
    const groups = match.groups ?? {};
    const start = match.index;
    const end = start + match[0].length;
    if (groups.chain !== undefined) {
      for (const part of groups.chain.split(".")) push(found, Number(part));
      continue;
    }
    let digits: string;
    let digitsStart = start;
    if (groups.grouped !== undefined) {
      digits = groups.grouped.replaceAll(groups.sep, "");
    } else if (groups.plain !== undefined) {
      digits = groups.plain + (groups.exp ?? "");
    } else {
      const before = start === 0 ? " " : text[start - 1];
      if (BEFORE_LEADING_DOT.test(before)) {
        digits = groups.dot;
      } else {
        digits = groups.dot.slice(1);
        digitsStart = start + 1;
      }
    }
    const sign = isNegative(text, digitsStart) ? -1 : 1;
    push(found, sign * Number(digits));
    if (groups.exp !== undefined) continue;
    const exponent = scaleAfter(text.slice(end, end + 12));
    if (exponent !== null) push(found, sign * Number(`${digits}e${exponent}`));
  }
  return found;
}

/** Whether the number whose first character is at `at` carries a minus sign. */
function isNegative(text: string, at: number): boolean {
  let i = at;
  if (i > 0 && CURRENCY.test(text[i - 1])) i--;
  if (i > 0 && SIGN_CHARS.includes(text[i - 1])) {
    return i === 1 || BEFORE_SIGN.test(text[i - 2]);
  }
  const windowStart = Math.max(0, at - 16);
  const word = SIGN_WORD.exec(text.slice(windowStart, at));
  if (word === null) return false;
  const wordStart = windowStart + word.index + (/^\p{L}/u.test(word[0]) ? 0 : 1);
  // "10 minus 4" is arithmetic, not a negative four.
  return !/\d[\s%]*$/u.test(text.slice(Math.max(0, wordStart - 8), wordStart));
}

/** The power of ten a scale word right after a number stands for, or null. */
function scaleAfter(rest: string): number | null {
  const word = SCALE_WORD.exec(rest);
  if (word !== null) return SCALE_WORDS.get(word[1].toLowerCase()) ?? null;
  if (SCALE_BN.test(rest)) return 9;
  if (SCALE_K.test(rest)) return 3;
  return null;
}

function push(found: number[], value: number): void {
  if (!Number.isFinite(value)) return;
  found.push(value === 0 ? 0 : value);
}
