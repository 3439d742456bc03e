import assert from "node:assert/strict";
import {
  type DirState,
  freeRunDir,
  readDirState,
  runDirProblem,
} from "../../../lib/run/run_dir.ts";
import { tempTree } from "../../support/temp.ts";

const folder = (...entries: string[]): DirState => ({ kind: "folder", entries });
const out = { resume: false };
const resume = { resume: true };

Deno.test("run dir: --out accepts a missing or empty folder, or one holding only a lock", () => {
  assert.equal(runDirProblem("d", { kind: "missing" }, out), null);
  assert.equal(runDirProblem("d", folder(), out), null);
  assert.equal(runDirProblem("d", folder("run.lock"), out), null);
});

Deno.test("run dir: --out into a folder of other files is refused, naming a few of them", () => {
  assert.equal(
    runDirProblem("d", folder("metrics_summary.csv"), out),
    `--out d: the folder is not empty and holds no ragbench run ("metrics_summary.csv"); a run would overwrite files there. Choose a new or empty folder.`,
  );
  const many = folder("g", "f", "e", "d", "c", "b", "a");
  assert.match(
    runDirProblem("d", many, out)!,
    /holds no ragbench run \("a", "b", "c", "d", "e" and 2 more\)/,
  );
});

Deno.test("run dir: --out at an earlier run keeps pointing to --resume", () => {
  assert.equal(
    runDirProblem("d", folder("per_question_results.jsonl", "run.json"), out),
    `"d" already holds results; continue it with --resume d, or choose another --out.`,
  );
});

Deno.test("run dir: a regular file is named as a file for --out and --resume", () => {
  assert.equal(
    runDirProblem("r.txt", { kind: "file" }, out),
    "--out r.txt: that is a file, not a folder; name a folder (new or empty) for the run.",
  );
  assert.equal(
    runDirProblem("r.txt", { kind: "file" }, resume),
    "--resume r.txt: that is a file, not a folder; name a folder holding an earlier run.",
  );
});

Deno.test("run dir: --resume needs an existing folder with results", () => {
  assert.equal(
    runDirProblem("d", { kind: "missing" }, resume),
    "--resume d: there is no such folder.",
  );
  assert.equal(
    runDirProblem("d", folder("notes.txt"), resume),
    "--resume d: there is no per_question_results.jsonl to continue.",
  );
  assert.equal(runDirProblem("d", folder("per_question_results.jsonl"), resume), null);
});

Deno.test("run dir: readDirState tells a file, a folder's entries and a missing path apart", async () => {
  await using t = await tempTree({ "a.txt": "x", "sub/b.txt": "y" });
  assert.deepEqual(await readDirState(t.path("a.txt")), { kind: "file" });
  assert.deepEqual(await readDirState(t.path("nope")), { kind: "missing" });
  const state = await readDirState(t.dir);
  assert.equal(state.kind, "folder");
  assert.deepEqual(state.kind === "folder" && [...state.entries].sort(), ["a.txt", "sub"]);
});

Deno.test("run dir: readDirState names the file a path runs through", async () => {
  await using t = await tempTree({ "a.txt": "x", "sub/b.txt": "y" });
  const file = t.path("a.txt");
  assert.deepEqual(await readDirState(t.path("a.txt/x")), { kind: "under_file", file });
  assert.deepEqual(await readDirState(t.path("a.txt/x/y/z")), { kind: "under_file", file });
  assert.deepEqual(await readDirState(t.path("sub/b.txt/run")), {
    kind: "under_file",
    file: t.path("sub/b.txt"),
  });
  assert.equal(
    runDirProblem("r.txt/sub", { kind: "under_file", file: "r.txt" }, out),
    '--out r.txt/sub: "r.txt" is a file, so no folder can be made under it; name a path whose parent folders are folders.',
  );
});

Deno.test("run dir: the default folder gets a -2, -3 suffix when a run of the same second took it", () => {
  const taken = new Set(["runs/a-1", "runs/a-1-2"]);
  assert.equal(freeRunDir("runs/b-1", (p) => taken.has(p)), "runs/b-1");
  assert.equal(freeRunDir("runs/a-1", (p) => taken.has(p)), "runs/a-1-3");
});

Deno.test("run dir: a link to nothing is neither missing nor a folder", async () => {
  await using t = await tempTree();
  Deno.symlinkSync(t.path("nowhere"), t.path("dangling"));
  assert.deepEqual(await readDirState(t.path("dangling")), { kind: "other" });
  assert.equal(
    runDirProblem("d", { kind: "other" }, out),
    "--out d: that is neither a folder nor a file (a broken link, a device or a socket); name a folder.",
  );
});

Deno.test("run dir: a folder another run makes between the two looks is read as that folder, not as a broken link", async () => {
  await using t = await tempTree({ "run/run.lock": "" });
  // What a second run saw when the first made the folder just after its stat: the stat found
  // nothing, the lstat found the new folder.
  const racing = {
    stat: () => Promise.reject(new Deno.errors.NotFound("not yet")),
    lstat: (path: string) => Deno.lstat(path),
  };
  assert.deepEqual(await readDirState(t.path("run"), racing), {
    kind: "folder",
    entries: ["run.lock"],
  });
  assert.equal(runDirProblem("run", { kind: "folder", entries: ["run.lock"] }, out), null);
});
