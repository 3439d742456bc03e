import assert from "node:assert/strict";
import { relative, resolve } from "node:path";
import { relativePath, resolvePath } from "../../../lib/util/paths.ts";

const SEGMENTS: string[][] = [
  [],
  [""],
  ["."],
  ["configs/all.yaml"],
  ["configs", "../arenas", "rag/corpus.json"],
  ["/abs/dir", "rel/file"],
  ["rel", "/abs/later", "x"],
  ["/a/b/", "../../../.."],
  ["a//b/./c/"],
];

Deno.test("resolvePath answers as node:path's resolve, relative segments from the working directory", () => {
  for (const segments of SEGMENTS) {
    assert.equal(resolvePath(...segments), resolve(...segments), JSON.stringify(segments));
  }
  assert.equal(resolvePath("x"), `${Deno.cwd()}/x`);
});

Deno.test("relativePath answers as node:path's relative, for relative and absolute ends", () => {
  const ends = ["", ".", "runs/x", "../up", "/abs/a/b", "/abs/c", Deno.cwd()];
  for (const from of ends) {
    for (const to of ends) {
      assert.equal(relativePath(from, to), relative(from, to), `${from} → ${to}`);
    }
  }
});
