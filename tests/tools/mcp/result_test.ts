import assert from "node:assert/strict";
import { convertCallResult, describeContent } from "../../../tools/mcp/result.ts";
import { Secrets } from "../../../tools/mcp/secrets.ts";

const same = (t: string) => t;

Deno.test("text content is joined; isError becomes an execution error the model reads", () => {
  assert.deepEqual(
    convertCallResult(
      { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      0.5,
      same,
    ),
    { output: "a\nb", error: null, cost_usd: 0.5 },
  );
  assert.deepEqual(
    convertCallResult({ content: [{ type: "text", text: "no stock" }], isError: true }, 0.1, same),
    { output: "", error: { kind: "execution", message: "no stock" }, cost_usd: 0.1 },
  );
  const long = convertCallResult(
    { content: [{ type: "text", text: "e".repeat(10_000) }], isError: true },
    0,
    same,
  );
  assert.ok(long.error!.message.length < 2100, "a huge error text is cut");
});

Deno.test("images, audio, resources and links are described in one line, never dumped", () => {
  assert.equal(
    describeContent({ type: "image", data: "A".repeat(4000), mimeType: "image/png" }),
    "[image content: image/png, 3000 bytes, not shown]",
  );
  assert.equal(
    describeContent({ type: "resource", resource: { uri: "file:///a.bin", blob: "QUJD" } }),
    "[embedded resource file:///a.bin (unknown type), 3 bytes, not shown]",
  );
  assert.equal(
    describeContent({ type: "resource_link", uri: "https://x/y", name: "y" }),
    '[resource link https://x/y "y"]',
  );
  assert.equal(describeContent({ type: "hologram" }), "[hologram content, not shown]");
});

Deno.test("doc ids in structured content or JSON text become data; other JSON does not", () => {
  const structured = { results: [{ doc_id: "k2", title: "K2" }] };
  assert.deepEqual(
    convertCallResult(
      { content: [{ type: "text", text: "found K2" }], structuredContent: structured },
      0,
      same,
    ).data,
    structured,
  );
  assert.deepEqual(
    convertCallResult({ content: [{ type: "text", text: '[{"doc_id":"nile"}]' }] }, 0, same).data,
    [{ doc_id: "nile" }],
  );
  assert.equal(
    convertCallResult({ content: [{ type: "text", text: '{"total": 3}' }] }, 0, same).data,
    undefined,
  );
  assert.equal(
    convertCallResult({ content: [{ type: "text", text: "[not json" }] }, 0, same).data,
    undefined,
  );
  const onlyStructured = convertCallResult(
    { content: [], structuredContent: { total: 3 } },
    0,
    same,
  );
  assert.equal(onlyStructured.output, '{"total":3}');
});

Deno.test("secrets are masked in output, errors and data", () => {
  const redact = (t: string) => t.split("tok-9").join("[secret]");
  const ok = convertCallResult(
    { content: [{ type: "text", text: '[{"doc_id":"tok-9"}]' }] },
    0,
    redact,
  );
  assert.equal(ok.output, '[{"doc_id":"[secret]"}]');
  assert.deepEqual(ok.data, [{ doc_id: "[secret]" }]);
  const bad = convertCallResult(
    { content: [{ type: "text", text: "bad tok-9" }], isError: true },
    0,
    redact,
  );
  assert.equal(bad.error!.message, "bad [secret]");
});

Deno.test("short values are not treated as secrets, so they cannot corrupt results", () => {
  const secrets = new Secrets();
  secrets.add("1");
  secrets.add("abcdef-token");
  assert.equal(secrets.redact("10152 days, key abcdef-token"), "10152 days, key [secret]");
});
