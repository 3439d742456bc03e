import assert from "node:assert/strict";
import { shownText } from "../../../lib/util/shown_text.ts";
import { withinCpu } from "../../support/cpu_time.ts";

Deno.test("shownText keeps a Markdown table and code block line by line, with indentation", () => {
  const text = "Build it:\n\n```sh\nmake \\\n    install\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |";
  assert.equal(shownText(text), text);
});

Deno.test("shownText drops trailing blanks, repeated and edge blank lines, and reads every line end", () => {
  assert.equal(
    shownText("\n\n  first  \r\n\r\n\r\n\tsecond\t\rthird\ffourth"),
    "first\n\n\tsecond\nthird\nfourth",
  );
  assert.equal(shownText("a\u2028b\u2029c\vd"), "a\nb\nc\nd");
  assert.equal(shownText("   \n \n"), "");
  assert.equal(shownText("one line"), "one line");
});

Deno.test("shownText is linear: a megabyte of blank lines and spaces", () => {
  const text = "x" + " \n".repeat(500_000) + "y" + " ".repeat(500_000);
  assert.equal(withinCpu(1000, () => shownText(text)), "x\n\ny");
});
