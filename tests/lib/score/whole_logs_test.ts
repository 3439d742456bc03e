import assert from "node:assert/strict";
import { WHOLE_LOGS_MAX, wholeLogs } from "../../../lib/score/whole_logs.ts";

Deno.test("wholeLogs gives Math.log's own doubles, grows to what is asked, and declines past its bound", () => {
  const small = wholeLogs(10)!;
  assert.ok(small.length > 10);
  for (let i = 1; i <= 10; i++) assert.equal(small[i], Math.log(i));
  const big = wholeLogs(70_001)!;
  for (const i of [1, 2, 3, 1000, 65_537, 70_001]) assert.equal(big[i], Math.log(i));
  // A smaller request after a bigger one is served from the same table.
  assert.equal(wholeLogs(5), big);
  assert.equal(wholeLogs(WHOLE_LOGS_MAX + 1), undefined);
});
