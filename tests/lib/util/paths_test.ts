import assert from "node:assert/strict";
import { posix, relative, resolve, win32 } from "node:path";
import * as nodeUrl from "node:url";
import {
  basename,
  dirname,
  extname,
  fileURLToPath,
  isAbsolute,
  join,
  pathToFileURL,
  POSIX_PATHS,
  relativePath,
  resolvePath,
  windowsPathFunctions,
} from "../../../lib/util/paths.ts";
import { createRng } from "../../../lib/util/prng.ts";

const PIECES = [
  "",
  ".",
  "..",
  "...",
  "a",
  "b.c",
  ".d",
  "e.",
  "f..g",
  "h.tar.gz",
  "é ü",
  "x%y",
  "#?",
];

/** Paths built from the pieces that trip path code: dots, empty segments, runs of slashes. */
function paths(count: number, seed: number): string[] {
  const next = createRng(seed);
  const out: string[] = ["", "/", "//", "///", ".", "..", "./", "../", "a", "/a", "//a", "a//b"];
  while (out.length < count) {
    const n = Math.floor(next() * 5);
    let path = next() < 0.4 ? "/".repeat(1 + Math.floor(next() * 2)) : "";
    for (let i = 0; i < n; i++) {
      path += PIECES[Math.floor(next() * PIECES.length)];
      if (i < n - 1 || next() < 0.3) path += "/".repeat(1 + Math.floor(next() * 2));
    }
    out.push(path);
  }
  return out;
}

const CWD = "/work/dir";
const cwd = () => CWD;

Deno.test("the POSIX path functions answer as node:path's posix ones on 3,000 generated paths", () => {
  const all = paths(3000, 1);
  for (const p of all) {
    assert.equal(POSIX_PATHS.dirname(p), posix.dirname(p), `dirname(${JSON.stringify(p)})`);
    assert.equal(POSIX_PATHS.basename(p), posix.basename(p), `basename(${JSON.stringify(p)})`);
    assert.equal(POSIX_PATHS.extname(p), posix.extname(p), `extname(${JSON.stringify(p)})`);
    assert.equal(
      POSIX_PATHS.isAbsolute(p),
      posix.isAbsolute(p),
      `isAbsolute(${JSON.stringify(p)})`,
    );
    assert.equal(POSIX_PATHS.join(p), posix.join(p), `join(${JSON.stringify(p)})`);
    assert.equal(
      POSIX_PATHS.resolve(cwd, [p]),
      posix.resolve(CWD, p),
      `resolve(${JSON.stringify(p)})`,
    );
  }
  for (let i = 0; i + 2 < all.length; i += 3) {
    const [a, b, c] = [all[i], all[i + 1], all[i + 2]];
    const what = JSON.stringify([a, b, c]);
    assert.equal(POSIX_PATHS.join(a, b, c), posix.join(a, b, c), `join ${what}`);
    assert.equal(
      POSIX_PATHS.resolve(cwd, [a, b, c]),
      posix.resolve(CWD, a, b, c),
      `resolve ${what}`,
    );
    assert.equal(
      POSIX_PATHS.relative(cwd, a, b),
      posix.relative(posix.resolve(CWD, a), posix.resolve(CWD, b)),
      `relative ${what}`,
    );
  }
});

Deno.test("basename with a suffix answers as node:path's posix one for a file's path", () => {
  // With a trailing slash, a path of slashes or a suffix holding "/", node:path answers in ways
  // of its own ("/" with the suffix "a" is "/", "./" with "." is "."); ragbench asks none of them.
  const suffixes = ["", ".c", ".gz", ".tar.gz", "a", "b.c", "."];
  for (const p of paths(600, 2).filter((p) => p !== "" && !p.endsWith("/"))) {
    for (const suffix of suffixes) {
      assert.equal(
        POSIX_PATHS.basename(p, suffix),
        posix.basename(p, suffix),
        `basename(${JSON.stringify(p)}, ${JSON.stringify(suffix)})`,
      );
    }
  }
});

Deno.test("file URLs convert both ways as node:url's functions do", () => {
  const names = [
    "/a/b",
    "/a b/c#d?e",
    "/x%20y/%",
    "/é/ü/日本",
    "/tab\there",
    "/back\\slash",
    "/dir/",
    "/",
  ];
  for (const p of [...names, ...paths(400, 3).filter((p) => p.startsWith("/"))]) {
    const url = POSIX_PATHS.pathToFileURL(cwd, p);
    assert.equal(url.href, nodeUrl.pathToFileURL(p).href, `pathToFileURL(${JSON.stringify(p)})`);
    assert.equal(POSIX_PATHS.fileURLToPath(url), nodeUrl.fileURLToPath(url), url.href);
    assert.equal(POSIX_PATHS.fileURLToPath(url.href), nodeUrl.fileURLToPath(url.href), url.href);
  }
  assert.equal(POSIX_PATHS.pathToFileURL(cwd, "rel/x").href, "file:///work/dir/rel/x");
});

Deno.test("fileURLToPath refuses what is not a local file path, as node:url does", () => {
  for (const bad of ["http://example.com/a", "file://host/a", "file:///a%2Fb", "file:///a%2fb"]) {
    assert.throws(() => POSIX_PATHS.fileURLToPath(bad), TypeError, bad);
    assert.throws(() => nodeUrl.fileURLToPath(bad), TypeError, bad);
  }
  assert.throws(() => POSIX_PATHS.fileURLToPath("not a url"), TypeError);
});

Deno.test("the exported functions are this platform's (POSIX here), relative paths from Deno.cwd()", () => {
  assert.equal(join("a", "../b", "c/"), "b/c/");
  assert.equal(dirname("/a/b/"), "/a");
  assert.equal(basename("dir/file.txt", ".txt"), "file");
  assert.equal(extname("archive.tar.gz"), ".gz");
  assert.equal(isAbsolute("/x"), true);
  assert.equal(resolvePath("x"), `${Deno.cwd()}/x`);
  assert.equal(fileURLToPath(import.meta.url), new URL(import.meta.url).pathname);
  assert.equal(pathToFileURL("x").href, nodeUrl.pathToFileURL("x").href);
});

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
});

Deno.test("relativePath answers as node:path's relative, for relative and absolute ends", () => {
  const ends = ["", ".", "runs/x", "../up", "/abs/a/b", "/abs/c", Deno.cwd()];
  for (const from of ends) {
    for (const to of ends) {
      assert.equal(relativePath(from, to), relative(from, to), `${from} → ${to}`);
    }
  }
});

Deno.test("an absolute path is resolved without asking for the working directory", () => {
  let asked = 0;
  const counting = () => (asked++, CWD);
  assert.equal(POSIX_PATHS.resolve(counting, ["/a", "b"]), "/a/b");
  assert.equal(POSIX_PATHS.relative(counting, "/a", "/a/b"), "b");
  assert.equal(asked, 0);
  assert.equal(POSIX_PATHS.resolve(counting, ["b"]), "/work/dir/b");
  assert.equal(asked, 1);
});

Deno.test("on Windows the functions are node:path's win32 ones, relative paths from the working directory", () => {
  const asked: string[] = [];
  const windows = windowsPathFunctions(win32, {
    fileURLToPath: (u) => (asked.push(`path of ${u}`), "C:\\from\\url"),
    pathToFileURL: (p) => (asked.push(`url of ${p}`), new URL("file:///C:/to/url")),
  });
  const here = () => "C:\\work\\dir";
  assert.equal(windows.sep, "\\");
  assert.equal(windows.join("a", "..\\b", "c"), "b\\c");
  assert.equal(windows.dirname("C:\\a\\b"), "C:\\a");
  assert.equal(windows.isAbsolute("D:\\x"), true);
  assert.equal(windows.resolve(here, ["x", "y"]), "C:\\work\\dir\\x\\y");
  assert.equal(windows.resolve(here, ["D:\\x"]), "D:\\x");
  assert.equal(windows.relative(here, "x", "C:\\work\\y"), "..\\..\\y");
  assert.equal(windows.pathToFileURL(here, "a b").href, "file:///C:/to/url");
  assert.equal(windows.fileURLToPath("file:///C:/work/a%20b"), "C:\\from\\url");
  assert.deepEqual(asked, ["url of C:\\work\\dir\\a b", "path of file:///C:/work/a%20b"]);
});
