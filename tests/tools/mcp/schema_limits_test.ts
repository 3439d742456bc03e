import assert from "node:assert/strict";
import {
  MAX_SCHEMA_CHARS,
  MAX_SCHEMA_DEPTH,
  schemaProblem,
} from "../../../tools/mcp/schema_limits.ts";

function nested(levels: number): unknown {
  let schema: unknown = { type: "string" };
  for (let i = 1; i < levels; i++) schema = { x: schema };
  return schema;
}

Deno.test("schema limits: depth and size are measured without recursion and stop early", () => {
  assert.equal(schemaProblem({ type: "object", properties: { q: { type: "string" } } }), null);
  assert.equal(schemaProblem(nested(MAX_SCHEMA_DEPTH)), null);
  assert.equal(
    schemaProblem(nested(MAX_SCHEMA_DEPTH + 1)),
    `it is nested more than ${MAX_SCHEMA_DEPTH} levels deep`,
  );
  assert.equal(
    schemaProblem(JSON.parse('{"a":'.repeat(50_000) + "1" + "}".repeat(50_000))),
    `it is nested more than ${MAX_SCHEMA_DEPTH} levels deep`,
  );
  const big = { type: "object", description: "x".repeat(MAX_SCHEMA_CHARS) };
  assert.equal(schemaProblem(big), `its JSON is longer than ${MAX_SCHEMA_CHARS} characters`);
  // The count follows the JSON text closely: a schema just under the limit passes.
  const under = { d: "x".repeat(MAX_SCHEMA_CHARS - 20) };
  assert.ok(JSON.stringify(under).length <= MAX_SCHEMA_CHARS);
  assert.equal(schemaProblem(under), null);
  const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 1]));
  assert.match(schemaProblem(wide) ?? "", /longer than/);
});
