import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { RagbenchError } from "../../../lib/errors.ts";
import {
  acquireRunLock,
  LOCK_FILE,
  lockedMessage,
  parseLockHolder,
  shellQuote,
} from "../../../lib/run/run_lock.ts";
import { tempTree } from "../../support/temp.ts";

const RESUME = "ragbench run c.yaml --resume run";

Deno.test("run lock: a second lock on the same folder is refused while the first is held, and free after release", async () => {
  await using t = await tempTree();
  const lock = await acquireRunLock(t.dir, { resume: RESUME });
  const holder = parseLockHolder(Deno.readTextFileSync(join(t.dir, LOCK_FILE)));
  assert.equal(holder?.pid, Deno.pid);
  await assert.rejects(
    () => acquireRunLock(t.dir, { resume: RESUME }),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "usage" &&
      e.message.startsWith(`"${t.dir}" is in use by another run (ragbench pid ${Deno.pid}`) &&
      e.message.endsWith("Wait for it to finish, or write this run elsewhere with --out."),
  );
  await lock.release();
  await lock.release();
  assert.throws(() => Deno.statSync(join(t.dir, LOCK_FILE)), Deno.errors.NotFound);
  const again = await acquireRunLock(t.dir, { resume: RESUME });
  await again.release();
});

Deno.test("run lock: a relative and an absolute path to one folder meet at the same lock", async () => {
  await using t = await tempTree();
  const lock = await acquireRunLock(t.dir, { resume: RESUME });
  try {
    const rel = relative(Deno.cwd(), t.dir);
    assert.notEqual(rel, t.dir);
    await assert.rejects(() => acquireRunLock(rel, { resume: RESUME }), /is in use by another run/);
  } finally {
    await lock.release();
  }
});

Deno.test("run lock: a lock file nobody holds is stale; the message gives the rm and resume commands and keeps the file", async () => {
  await using t = await tempTree({
    [LOCK_FILE]: JSON.stringify({
      pid: 4_000_000,
      host: "ci-7",
      started_at: "2026-01-02T03:04:05Z",
    }),
  });
  await assert.rejects(
    () => acquireRunLock(t.dir, { resume: RESUME }),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "usage" &&
      e.message === [
          `"${t.dir}" has a stale lock: run.lock was left by ragbench pid 4000000 on ci-7, started 2026-01-02T03:04:05Z, which is no longer running.`,
          "If no other ragbench is using the folder, remove the lock and continue the run:",
          `  rm ${join(t.dir, LOCK_FILE)}`,
          `  ${RESUME}`,
        ].join("\n"),
  );
  assert.ok(Deno.statSync(join(t.dir, LOCK_FILE)).isFile, "a stale lock is never removed silently");
});

Deno.test("run lock: an unreadable lock file is reported as such, not as a crash", async () => {
  await using t = await tempTree({ [LOCK_FILE]: "\u0000garbage" });
  await assert.rejects(
    () => acquireRunLock(t.dir, { resume: RESUME }),
    /has a stale lock: run\.lock was left by a ragbench run whose lock file is unreadable/,
  );
});

Deno.test("run lock: a folder that cannot hold the lock is an io error naming the file", async () => {
  await using t = await tempTree();
  await assert.rejects(
    () => acquireRunLock(join(t.dir, "missing"), { resume: RESUME }),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "io" &&
      e.message ===
        `Cannot create the lock "${join(t.dir, "missing", LOCK_FILE)}": no such file or folder.`,
  );
});

Deno.test("run lock: lock holder text that is not ours parses to null", () => {
  assert.equal(parseLockHolder("{}"), null);
  assert.equal(parseLockHolder('{"pid":"1","started_at":"x","host":null}'), null);
  assert.equal(parseLockHolder('{"__proto__":{"pid":1},"started_at":"x","host":null}'), null);
  assert.deepEqual(parseLockHolder('{"pid":1,"started_at":"x","host":null}'), {
    pid: 1,
    host: null,
    started_at: "x",
  });
});

Deno.test("run lock: paths in commands are shell-quoted only when needed", () => {
  assert.equal(shellQuote("runs/a-1.x"), "runs/a-1.x");
  assert.equal(shellQuote("my runs/it's"), `'my runs/it'\\''s'`);
  assert.equal(shellQuote("$(rm -rf ~)"), `'$(rm -rf ~)'`);
  assert.match(
    lockedMessage("d", null, { alive: true, resume: RESUME }),
    /^"d" is in use by another run \(a ragbench run whose lock file is unreadable\)/,
  );
});

Deno.test("run lock: an empty lock file may be a run starting: refused as in use, with the rm command", async () => {
  await using t = await tempTree({ [LOCK_FILE]: "" });
  await assert.rejects(
    () => acquireRunLock(t.dir, { resume: RESUME }),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "usage" &&
      e.message ===
        `"${t.dir}" is in use by a run that is starting (its run.lock is still empty). If no ragbench is running on it, remove the lock: rm ${
          join(t.dir, LOCK_FILE)
        }`,
  );
});

Deno.test("run lock: a forged lock file cannot put control characters or a huge text into the message", async () => {
  await using t = await tempTree({
    [LOCK_FILE]: JSON.stringify({
      pid: 7,
      host: "evil\u001b[2J\nhost",
      started_at: "x".repeat(1000),
    }),
  });
  const error = await acquireRunLock(t.dir, { resume: RESUME }).catch((e) => e as Error);
  assert.ok(error instanceof RagbenchError);
  assert.match(error.message, /left by ragbench pid 7 on evil\?\[2J\?host, started x{64}…, which/);
  assert.ok(error.message.length < 500);
});
