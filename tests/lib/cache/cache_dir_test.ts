import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { resolveCacheDir } from "../../../lib/cache/cache_dir.ts";

function envOf(vars: Record<string, string>) {
  return (name: string) => vars[name];
}

Deno.test("the cache folder comes from --cache-dir, then RAGBENCH_CACHE_DIR, XDG_CACHE_HOME, HOME", () => {
  const all = {
    RAGBENCH_CACHE_DIR: "/r",
    XDG_CACHE_HOME: "/x",
    HOME: "/home/u",
  };
  assert.deepEqual(resolveCacheDir("rel/dir", envOf(all)), {
    dir: resolve(Deno.cwd(), "rel/dir"),
    from: "--cache-dir",
    variablesRead: [],
  });
  assert.deepEqual(resolveCacheDir(undefined, envOf(all)), {
    dir: "/r",
    from: "RAGBENCH_CACHE_DIR",
    variablesRead: ["RAGBENCH_CACHE_DIR"],
  });
  assert.deepEqual(resolveCacheDir(undefined, envOf({ XDG_CACHE_HOME: "/x", HOME: "/h" })), {
    dir: join("/x", "ragbench"),
    from: "XDG_CACHE_HOME",
    variablesRead: ["RAGBENCH_CACHE_DIR", "XDG_CACHE_HOME"],
  });
  assert.deepEqual(resolveCacheDir(undefined, envOf({ HOME: "/h" })), {
    dir: "/h/.cache/ragbench",
    from: "HOME",
    variablesRead: ["RAGBENCH_CACHE_DIR", "XDG_CACHE_HOME", "HOME"],
  });
});

Deno.test("a relative XDG_CACHE_HOME is ignored, as the XDG spec says", () => {
  assert.equal(
    resolveCacheDir(undefined, envOf({ XDG_CACHE_HOME: "cache", HOME: "/h" })).dir,
    "/h/.cache/ragbench",
  );
});

Deno.test("no variable set is an error saying to give --cache-dir", () => {
  assert.throws(
    () => resolveCacheDir(undefined, envOf({})),
    /none of RAGBENCH_CACHE_DIR.*--cache-dir DIR/,
  );
});
