/**
 * Random RE2 patterns and lines for the differential tests of the line
 * automaton (re2_automaton_test.ts, line_dfa_test.ts): small alphabets, so
 * that random lines often match, and every construct the automaton models.
 *
 * @module
 */

const LITERALS = [
  "a",
  "b",
  "k",
  "s",
  "K",
  "S",
  "x",
  "0",
  "_",
  " ",
  "-",
  ",",
  "é",
  "É",
  "\u212a",
  "\u017f",
  "ß",
  "😀",
  "σ",
  "{",
  "}",
  "]",
];
const ESCAPES = [
  "\\d",
  "\\D",
  "\\w",
  "\\W",
  "\\s",
  "\\S",
  "\\b",
  "\\B",
  "\\b",
  "\\.",
  "\\x41",
  "\\x6b",
  "\\x{e9}",
  "\\x{212A}",
  "\\x{17f}",
  "\\t",
  "\\-",
  "\\pL",
  "\\p{Greek}",
  "\\PL",
  "\\pN",
  "\\A",
  "\\z",
  "\\{",
];
const CLASS_ITEMS = [
  "a-f",
  "k",
  "s",
  "S",
  "x",
  "\\d",
  "\\W",
  "\\w",
  "\\s",
  "\\S",
  "[:alpha:]",
  "[:^digit:]",
  "[:upper:]",
  "[:punct:]",
  "[:word:]",
  "é-ê",
  "\\x{17F}",
  "\\x{2000}-\\x{3000}",
  "K",
  "0-9",
  "_",
  "-",
  "\\]",
  "\\pL",
  "😀",
  " ",
  ",",
  "j-l",
  "R-T",
];
const GROUPS = ["(", "(?:", "(?i:", "(?-i:", "(?s:", "(?U:", "(?P<g@>", "(?<g@>"];
const FLAGS = ["(?i)", "(?-i)", "(?U)", "(?s)"];
const QUANTIFIERS = ["*", "+", "?", "{2}", "{1,3}", "{2,}", "{0,2}", "{0}", "{1}"];
const ASCII_CHARS = "abkKsSx0_ -.,{}";
const OTHER_CHARS = ["é", "É", "\u212a", "\u017f", "ß", "😀", "σ", "Σ", "ê"];

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** A random RE2 pattern (it may be invalid: callers skip those RE2 refuses). */
export function randomPattern(random: Random): string {
  let groups = 0;
  const alternation = (depth: number): string => {
    const branches = [concatenation(depth)];
    while (random() < 0.2) branches.push(concatenation(depth));
    return branches.join("|");
  };
  const concatenation = (depth: number): string => {
    let out = "";
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      if (random() < 0.05) out += pick(random, FLAGS);
      out += atom(depth);
      if (random() < 0.3) {
        out += pick(random, QUANTIFIERS);
        if (random() < 0.2) out += "?";
      }
    }
    return out;
  };
  const atom = (depth: number): string => {
    const roll = random();
    if (roll < 0.35) return pick(random, LITERALS);
    if (roll < 0.52) return pick(random, ESCAPES);
    if (roll < 0.67) {
      let items = "";
      const count = 1 + Math.floor(random() * 3);
      for (let i = 0; i < count; i++) items += pick(random, CLASS_ITEMS);
      return `[${random() < 0.35 ? "^" : ""}${items}]`;
    }
    if (roll < 0.72) return ".";
    if (roll < 0.77) return random() < 0.5 ? "^" : "$";
    if (roll < 0.8) return `\\Q${pick(random, LITERALS)}.${random() < 0.5 ? "\\E" : ""}`;
    if (depth >= 3) return pick(random, LITERALS);
    const open = pick(random, GROUPS).replace("@", String(groups++));
    return `${open}${alternation(depth + 1)})`;
  };
  return alternation(0);
}

/** A random line of 0-15 characters, only ASCII when `ascii`. */
export function randomLine(random: Random, ascii: boolean): string {
  const length = Math.floor(random() * 16);
  let line = "";
  for (let i = 0; i < length; i++) {
    line += ascii || random() < 0.7 ? pick(random, [...ASCII_CHARS]) : pick(random, OTHER_CHARS);
  }
  return line;
}
