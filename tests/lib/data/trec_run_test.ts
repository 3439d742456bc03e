import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../../../lib/errors.ts";
import { parseTrecRun, readTrecRun } from "../../../lib/data/trec_run.ts";
import { CRANFIELD } from "../../support/shared_data.ts";
import { tempTree } from "../../support/temp.ts";

const REFERENCE = join(CRANFIELD, "reference");

Deno.test("readTrecRun reads a run file line by line as parseTrecRun parses its text (the Cranfield reference runs)", () => {
  const runs = [...Deno.readDirSync(REFERENCE)].filter((e) => e.name.endsWith(".run"));
  assert.ok(runs.length > 0, "no reference run");
  for (const { name } of runs) {
    const path = join(REFERENCE, name);
    assert.deepEqual(readTrecRun(path), parseTrecRun(Deno.readTextFileSync(path), path), name);
  }
});

Deno.test("readTrecRun names the line of a bad row and a last line without a newline, and a file it cannot read", async () => {
  await using t = await tempTree({ "r.run": "q1 Q0 d1 1 2.5 s\nq1 Q0 d2 2 x s\nq1 Q0 d1 3 1 s" });
  assert.throws(
    () => readTrecRun(t.path("r.run")),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.issues.map((i) => [i.position.line, i.message]).join("|") ===
        [
          '2,score "x" is not a finite number',
          '3,document "d1" is listed for query "q1" also on line 1',
        ].join("|"),
  );
  assert.throws(
    () => readTrecRun(t.path("missing.run")),
    (error: unknown) =>
      error instanceof ConfigError && /cannot read it: /.test(error.message) &&
      error.file === t.path("missing.run"),
  );
});
