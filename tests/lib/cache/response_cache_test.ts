import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openResponseCache, RESPONSE_CACHE_FILE } from "../../../lib/cache/response_cache.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import { ROOT } from "../../support/cli.ts";
import { tempTree } from "../../support/temp.ts";

Deno.test("a recorded value reads back; an absent key is a plain miss", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.path("c"));
  try {
    cache.put("k1", "model", { content: "hi", n: [1, 2] });
    assert.deepEqual(cache.get("k1"), { found: true, value: { content: "hi", n: [1, 2] } });
    assert.deepEqual(cache.get("k2"), { found: false, corrupt: false });
    cache.put("k1", "model", { content: "replaced" });
    assert.deepEqual(cache.get("k1"), { found: true, value: { content: "replaced" } });
  } finally {
    cache.close();
  }
  assert.equal(cache.path, join(t.path("c"), RESPONSE_CACHE_FILE));
  const db = new DatabaseSync(cache.path);
  assert.equal(
    (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
    "wal",
  );
  db.close();
});

Deno.test("an entry whose value is not JSON is reported as corrupt, not thrown", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  cache.close();
  const db = new DatabaseSync(cache.path);
  db.prepare("INSERT INTO responses VALUES (?, ?, ?, ?)").run("bad", "model", "{not json", "x");
  db.close();
  const again = openResponseCache(t.dir);
  try {
    assert.deepEqual(again.get("bad"), { found: false, corrupt: true });
  } finally {
    again.close();
  }
});

Deno.test("a cache file that is not a database is a clear error naming it", async () => {
  await using t = await tempTree({ [RESPONSE_CACHE_FILE]: "this is not sqlite ".repeat(100) });
  const error = (() => {
    try {
      openResponseCache(t.dir);
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof RagbenchError);
  assert.equal(
    error.message,
    `Cannot open the response cache "${t.path(RESPONSE_CACHE_FILE)}": file is not a database. ` +
      "Delete the file (it only holds recorded responses) or choose another folder with --cache-dir DIR.",
  );
});

Deno.test("two processes recording at once leave every entry readable", async () => {
  await using t = await tempTree();
  const writer = (id: string) => `
    import { openResponseCache } from "${ROOT}lib/cache/response_cache.ts";
    const cache = openResponseCache(${JSON.stringify(t.dir)});
    for (let i = 0; i < 300; i++) cache.put("${id}-" + i, "model", { i, text: "x".repeat(i * 10) });
    cache.close();
  `;
  const spawn = (id: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`, "-"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    w.write(new TextEncoder().encode(writer(id))).then(() => w.close());
    return child.output();
  };
  const results = await Promise.all([spawn("a"), spawn("b")]);
  for (const r of results) assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  const cache = openResponseCache(t.dir);
  try {
    for (const id of ["a", "b"]) {
      for (let i = 0; i < 300; i++) {
        const got = cache.get(`${id}-${i}`);
        assert.ok(got.found, `${id}-${i}`);
        assert.deepEqual(got.value, { i, text: "x".repeat(i * 10) });
      }
    }
  } finally {
    cache.close();
  }
});
