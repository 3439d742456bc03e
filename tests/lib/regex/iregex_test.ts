import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadEngine } from "../../../lib/regex/re2_instance.ts";
import { runCheck } from "../../../lib/score/checks.ts";
import { matchIregex, validateIregex } from "../../../lib/regex/iregex.ts";

await loadEngine();

const HOSTILE = fileURLToPath(new URL("../../fixtures/score/iregex_hostile.ts", import.meta.url));

Deno.test("iregex (a+)+$ against 40 a then b, and against a 1 MB answer, finishes", async () => {
  // A backtracking engine takes days here; the subprocess is killed after 30 s, so a regression
  // fails this test instead of hanging the suite.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--no-prompt", "--unstable-raw-imports", "--allow-read", HOSTILE],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `scoring did not finish: ${stderr}`);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), [
    { type: "iregex", passed: false, detail: "/(a+)+$/i does not match the answer" },
    { type: "iregex", passed: false, detail: "/(a+)+$/i does not match the answer" },
    { type: "iregex", passed: false, detail: "/(a+)+$/i does not match the answer" },
  ]);
});

Deno.test("iregex still matches at the end of a long answer", () => {
  assert.deepEqual(runCheck({ type: "iregex", pattern: "(a+)+$" }, "b" + "a".repeat(50), []), {
    type: "iregex",
    passed: true,
    detail: `/(a+)+$/i matches "${"a".repeat(50)}"`,
  });
});

Deno.test("iregex ignores case beyond ASCII and reads JavaScript \\u escapes", () => {
  assert.deepEqual(matchIregex("été", "L'ÉTÉ indien"), { kind: "match", text: "ÉTÉ" });
  assert.deepEqual(matchIregex("\\u00e9t\\u{E9}", "ÉTÉ"), { kind: "match", text: "ÉTÉ" });
  assert.deepEqual(matchIregex("(?<word>tall)", "TALL"), { kind: "match", text: "TALL" });
});

Deno.test("iregex matches an answer holding a lone surrogate without losing text", () => {
  assert.deepEqual(matchIregex("x y", "\ud800x y"), { kind: "match", text: "x y" });
});

const PATTERNS: [string, string | null][] = [
  ["(not|no) (found|information)", null],
  ["\\p{L}+", null],
  ["\\-", null],
  ["(", "missing ): ( (iregex patterns use RE2 syntax)"],
  ["a{2,1}", "invalid repetition size: {2,1} (iregex patterns use RE2 syntax)"],
  ["\\p{Foo}", "invalid character class range: \\p{Foo} (iregex patterns use RE2 syntax)"],
  [
    "(a)\\1",
    "back-references such as \\1 are not supported: iregex runs on RE2, which matches in " +
    "linear time and so cannot do this",
  ],
  [
    "x(?!y)",
    'look-ahead such as "(?!...)" is not supported: iregex runs on RE2, which matches in ' +
    "linear time and so cannot do this",
  ],
  ["a".repeat(1001), "the pattern is 1001 characters long; at most 1000 are allowed"],
];

for (const [pattern, error] of PATTERNS) {
  Deno.test(`validateIregex(${JSON.stringify(pattern.slice(0, 20))}) is ${JSON.stringify(error)}`, async () => {
    assert.equal(await validateIregex(pattern), error);
  });
}

Deno.test("iregex: an answer too large for the regex engine fails the check, saying so", () => {
  const answer = "a".repeat(8_000_000);
  assert.deepEqual(runCheck({ type: "iregex", pattern: "b" }, answer, []), {
    type: "iregex",
    passed: false,
    detail: "/b/i could not be matched: the answer (8000000 characters) is too large for the " +
      "regex engine",
  });
  // The engine still answers afterwards.
  assert.deepEqual(matchIregex("b", "abc"), { kind: "match", text: "b" });
});
