import assert from "node:assert/strict";
import { type JunitLine, junitXml } from "../../../lib/report/junit.ts";

function line(extra: Partial<JunitLine>): JunitLine {
  return {
    system: "agent",
    question_id: "q1",
    repeat: 1,
    answer_score: 1,
    passed: true,
    latency_ms: 1500,
    error: null,
    checks: [{ type: "contains", passed: true, detail: "found" }],
    ...extra,
  };
}

Deno.test("junitXml: one testcase per line, failures carry the failed checks", () => {
  const xml = junitXml(["agent", "other"], [
    line({}),
    line({
      question_id: "q2",
      answer_score: 0.5,
      passed: false,
      checks: [
        { type: "contains", passed: true, detail: "found" },
        { type: "numeric_equals", passed: false, detail: "no number within 0 of 330" },
      ],
    }),
    line({
      question_id: "q3",
      answer_score: 0,
      passed: false,
      error: { kind: "timeout", message: "took > 300 s" },
    }),
    line({ system: "other", answer_score: null, passed: false, checks: [] }),
  ]);
  assert.equal(
    xml,
    `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="ragbench" tests="4" failures="1" errors="1" skipped="1" time="6.000">
  <testsuite name="agent" tests="3" failures="1" errors="1" skipped="0" time="4.500">
    <testcase classname="ragbench.agent" name="q1#1" time="1.500"/>
    <testcase classname="ragbench.agent" name="q2#1" time="1.500">
      <failure type="checks" message="1 of 2 checks failed">numeric_equals: no number within 0 of 330</failure>
    </testcase>
    <testcase classname="ragbench.agent" name="q3#1" time="1.500">
      <error type="timeout" message="took &gt; 300 s"/>
    </testcase>
  </testsuite>
  <testsuite name="other" tests="1" failures="0" errors="0" skipped="1" time="1.500">
    <testcase classname="ragbench.other" name="q1#1" time="1.500">
      <skipped message="no answer checks"/>
    </testcase>
  </testsuite>
</testsuites>
`,
  );
});

Deno.test("junitXml escapes markup and replaces characters XML cannot hold", () => {
  const xml = junitXml(["agent"], [
    line({
      question_id: 'q"<&>',
      passed: false,
      answer_score: 0,
      checks: [{
        type: "equals",
        passed: false,
        detail: "got </failure><x>\u0000\u001b\ud800 end",
      }],
    }),
  ]);
  assert.match(xml, /name="q&quot;&lt;&amp;&gt;#1"/);
  assert.match(xml, /equals: got &lt;\/failure&gt;&lt;x&gt;\uFFFD\uFFFD\uFFFD end<\/failure>/);
  const controls = [...xml].filter((c) => c.charCodeAt(0) < 0x20 && !"\t\n\r".includes(c));
  assert.deepEqual(controls, []);
});
