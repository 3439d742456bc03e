import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";

Deno.test("bench_report runs end to end on a small run and prints both ratios", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      join(ROOT, "scripts/bench_report.ts"),
      "--lines",
      "300",
      "--systems",
      "3",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.match(stdout, /^run: 300 lines, 3 systems, [\d.]+ MB of JSONL$/m);
  assert.match(stdout, /^time ratio report \/ parse: [\d.]+× \(target ≤ 3×\) (PASS|FAIL)$/m);
  assert.match(stdout, /^peak RSS \/ file size: [\d.]+× \(target < 2×\) (PASS|FAIL)$/m);
});
