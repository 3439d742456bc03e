/**
 * JUnit XML for CI (`--junit FILE`): one `<testsuite>` per system and one
 * `<testcase>` per system × question × repeat. A question that errored is an
 * `<error>` (its error kind and message); one whose checks did not all pass
 * is a `<failure>` listing the failed checks with their details; a question
 * with no answer checks (a retrieval-only data set) is `<skipped>`. Text is
 * XML-escaped, and characters XML 1.0 cannot hold (most control
 * characters, lone surrogates) are replaced with U+FFFD, so any answer a
 * model gave yields a well-formed file.
 *
 * @module
 */

/** The fields of a result line the JUnit file reads. */
export interface JunitLine {
  system: string;
  question_id: string;
  repeat: number;
  answer_score: number | null;
  passed: boolean | null;
  latency_ms: number;
  error: { kind: string; message: string } | null;
  checks: ReadonlyArray<{ type: string; passed: boolean; detail: string }>;
}

/** The whole JUnit XML document for `lines`, systems in the order given. */
export function junitXml(systems: readonly string[], lines: readonly JunitLine[]): string {
  const bySystem = new Map<string, JunitLine[]>(systems.map((s) => [s, []]));
  for (const line of lines) bySystem.get(line.system)?.push(line);
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  let seconds = 0;
  for (const system of systems) {
    const own = bySystem.get(system)!;
    const cases = own.map((line) => testCase(line));
    const f = own.filter((l) => kindOf(l) === "failure").length;
    const e = own.filter((l) => kindOf(l) === "error").length;
    const s = own.filter((l) => kindOf(l) === "skipped").length;
    const t = own.reduce((sum, l) => sum + l.latency_ms, 0) / 1000;
    tests += own.length;
    failures += f;
    errors += e;
    skipped += s;
    seconds += t;
    suites.push(
      `  <testsuite name="${attr(system)}" tests="${own.length}" failures="${f}" errors="${e}" ` +
        `skipped="${s}" time="${t.toFixed(3)}">\n${cases.join("")}  </testsuite>\n`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="ragbench" tests="${tests}" failures="${failures}" errors="${errors}" ` +
    `skipped="${skipped}" time="${seconds.toFixed(3)}">\n${suites.join("")}</testsuites>\n`;
}

type CaseKind = "pass" | "failure" | "error" | "skipped";

function kindOf(line: JunitLine): CaseKind {
  if (line.error) return "error";
  if (line.answer_score === null) return "skipped";
  return line.passed ? "pass" : "failure";
}

function testCase(line: JunitLine): string {
  const open = `    <testcase classname="ragbench.${attr(line.system)}" name="${
    attr(`${line.question_id}#${line.repeat}`)
  }" time="${(line.latency_ms / 1000).toFixed(3)}"`;
  switch (kindOf(line)) {
    case "pass":
      return `${open}/>\n`;
    case "skipped":
      return `${open}>\n      <skipped message="no answer checks"/>\n    </testcase>\n`;
    case "error":
      return `${open}>\n      <error type="${attr(line.error!.kind)}" message="${
        attr(line.error!.message)
      }"/>\n    </testcase>\n`;
    case "failure": {
      const failed = line.checks.filter((c) => !c.passed);
      const summary = `${failed.length} of ${line.checks.length} checks failed`;
      const body = failed.map((c) => `${c.type}: ${c.detail}`).join("\n");
      return `${open}>\n      <failure type="checks" message="${attr(summary)}">${
        text(body)
      }</failure>\n    </testcase>\n`;
    }
  }
}

// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
function clean(value: string): string {
  let out = "";
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    const ok = c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) ||
      (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
    out += ok ? ch : "\uFFFD";
  }
  return out;
}

function text(value: string): string {
  return clean(value).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function attr(value: string): string {
  return text(value).replaceAll('"', "&quot;").replaceAll("\n", "&#10;").replaceAll("\r", "&#13;")
    .replaceAll("\t", "&#9;");
}
