import assert from "node:assert/strict";
import { csvCell, formatNumber, toCsv } from "../../../lib/report/csv.ts";

const cells: Array<[string, Parameters<typeof csvCell>[0], string]> = [
  ["plain text stays plain", "agent_search", "agent_search"],
  ["a comma is quoted", "a,b", '"a,b"'],
  ["a quote is doubled inside quotes", 'say "hi"', '"say ""hi"""'],
  ["a line break is quoted", "a\nb", '"a\nb"'],
  ["surrounding space is quoted", " x ", '" x "'],
  ["a formula is neutralised", '=HYPERLINK("http://x")', '"\'=HYPERLINK(""http://x"")"'],
  ["a leading plus is neutralised", "+1", "'+1"],
  ["a leading minus in text is neutralised", "-2+3", "'-2+3"],
  ["a leading at-sign is neutralised", "@SUM(A1)", "'@SUM(A1)"],
  ["a leading tab is neutralised", "\tx", "'\tx"],
  ["a negative number stays a number", -0.25, "-0.25"],
  ["an integer stays an integer", 42, "42"],
  ["a float is cut to 6 decimals", 1 / 3, "0.333333"],
  ["a tiny float rounds to zero", 1e-9, "0"],
  ["null is an empty cell", null, ""],
  ["a boolean is true/false", true, "true"],
];

for (const [name, value, expected] of cells) {
  Deno.test(`csv cell: ${name}`, () => assert.equal(csvCell(value), expected));
}

Deno.test("csv: header then rows in column order, newline-terminated", () => {
  const text = toCsv<{ a: string; b: number | null }>(["a", "b"], [{ a: "x", b: 1.5 }, {
    a: "=y",
    b: null,
  }]);
  assert.equal(text, "a,b\nx,1.5\n'=y,\n");
  assert.equal(formatNumber(-0.0000001), "0");
  assert.equal(formatNumber(Infinity), "");
});
