import assert from "node:assert/strict";
import { COLLECT_AFTER_CHARS, collectAfterBigLoad } from "../../../lib/util/collect_garbage.ts";

Deno.test("collectAfterBigLoad: a small load is not worth a collection", async () => {
  assert.equal(await collectAfterBigLoad(0), false);
  assert.equal(await collectAfterBigLoad(COLLECT_AFTER_CHARS - 1), false);
});

Deno.test("collectAfterBigLoad: after a big load it returns the garbage, with no --expose-gc flag", async () => {
  // The test runner starts Deno without --expose-gc: the function exposes it itself.
  let garbage: Array<{ i: number; s: string }> | null = Array.from(
    { length: 1_000_000 },
    (_, i) => ({ i, s: `text ${i}` }),
  );
  const held = Deno.memoryUsage().heapUsed;
  assert.equal(garbage.length, 1_000_000);
  garbage = null;
  assert.equal(await collectAfterBigLoad(COLLECT_AFTER_CHARS), true);
  const after = Deno.memoryUsage().heapUsed;
  // A million small objects and strings are ~60 MB; at least half of it is returned at once.
  assert.ok(held - after > 30 * 2 ** 20, `${(held - after) / 2 ** 20} MB returned`);
  assert.equal(garbage, null);
});
