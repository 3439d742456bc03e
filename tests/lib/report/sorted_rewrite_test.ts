import assert from "node:assert/strict";
import { RagbenchError } from "../../../lib/errors.ts";
import { rewriteSorted } from "../../../lib/report/sorted_rewrite.ts";
import { writeChunksAtomic } from "../../../lib/util/fs.ts";
import { writeFailure } from "../../../lib/cli/resume_hint.ts";
import { tempTree } from "../../support/temp.ts";

/** A line of a job, with a tag to tell lines of the same job apart. */
const line = (system: string, q: string, repeat: number, tag = "") =>
  JSON.stringify({ system, question_id: q, repeat, answer: `${system}/${q}/${repeat}${tag}` }) +
  "\n";

const ORDER = { systems: ["b", "a"], questions: ["q2", "q1", "q3"] };

function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

Deno.test("sorted rewrite: lines finished out of order come out by system, question, repeat; unknown ones last as they came", async () => {
  // As a resumed run with concurrency leaves them: earlier lines, then new ones in finishing order.
  const written = [
    line("a", "q1", 2),
    line("gone", "q1", 1),
    line("b", "q3", 1),
    line("a", "q2", 1),
    line("b", "q2", 1),
    line("a", "q9", 1),
    line("a", "q1", 1),
    line("b", "q1", 1),
  ];
  await using t = await tempTree({ "r.jsonl": written.join("") });
  const done = await rewriteSorted(t.path("r.jsonl"), ORDER);
  assert.deepEqual(done, { lines: 8, duplicates: 0, rewritten: true });
  assert.equal(
    await Deno.readTextFile(t.path("r.jsonl")),
    [
      line("b", "q2", 1),
      line("b", "q1", 1),
      line("b", "q3", 1),
      line("a", "q2", 1),
      line("a", "q1", 1),
      line("a", "q1", 2),
      line("gone", "q1", 1),
      line("a", "q9", 1),
    ].join(""),
  );
  assert.deepEqual(names(t.dir), ["r.jsonl"]);
});

Deno.test("sorted rewrite: a job's first line is kept, later ones dropped and counted", async () => {
  await using t = await tempTree({
    "r.jsonl": [
      line("a", "q1", 1, " first"),
      line("gone", "q1", 1, " first"),
      line("b", "q1", 1),
      line("a", "q1", 1, " second"),
      line("gone", "q1", 1, " second"),
    ].join(""),
  });
  const done = await rewriteSorted(t.path("r.jsonl"), ORDER);
  assert.deepEqual(done, { lines: 3, duplicates: 2, rewritten: true });
  assert.equal(
    await Deno.readTextFile(t.path("r.jsonl")),
    line("b", "q1", 1) + line("a", "q1", 1, " first") + line("gone", "q1", 1, " first"),
  );
});

Deno.test("sorted rewrite: a file in order already is left untouched", async () => {
  const text = line("b", "q2", 1) + line("a", "q1", 1) + line("a", "q1", 2);
  await using t = await tempTree({ "r.jsonl": text });
  const before = Deno.statSync(t.path("r.jsonl"));
  const done = await rewriteSorted(t.path("r.jsonl"), ORDER, {
    write: () => Promise.reject(new Error("must not write")),
  });
  assert.deepEqual(done, { lines: 3, duplicates: 0, rewritten: false });
  assert.equal(Deno.statSync(t.path("r.jsonl")).ino, before.ino);
  assert.equal(await Deno.readTextFile(t.path("r.jsonl")), text);
});

Deno.test("sorted rewrite: long lines and lines across read boundaries are copied byte for byte", async () => {
  const long = (n: number) =>
    JSON.stringify({ system: "a", question_id: `q${n}`, repeat: 1, text: "é".repeat(400_000) }) +
    "\n";
  await using t = await tempTree({ "r.jsonl": long(3) + long(1) + long(2) });
  await rewriteSorted(t.path("r.jsonl"), { systems: ["a"], questions: ["q1", "q2", "q3"] });
  assert.equal(await Deno.readTextFile(t.path("r.jsonl")), long(1) + long(2) + long(3));
});

Deno.test("sorted rewrite: a write that fails midway leaves the original file intact and no temporary file, and the message names the file", async () => {
  const text = [line("a", "q1", 1), line("b", "q1", 1), line("b", "q2", 1)].join("");
  await using t = await tempTree({ "r.jsonl": text });
  const path = t.path("r.jsonl");
  const error = await rewriteSorted(path, ORDER, {
    // The real atomic writer, with the disk filling up after the first line.
    write: (target, chunks) =>
      writeChunksAtomic(
        target,
        (function* () {
          let n = 0;
          for (const chunk of chunks) {
            if (n++ === 1) throw new Error("No space left on device (os error 28)");
            yield chunk;
          }
        })(),
      ),
  }).catch((e) => e);
  assert.ok(error instanceof RagbenchError && error.code === "io", String(error));
  assert.equal(
    error.message,
    `Cannot write "${path}": No space left on device (os error 28).`,
  );
  assert.equal(await Deno.readTextFile(path), text);
  assert.deepEqual(names(t.dir), ["r.jsonl"]);
  // What `ragbench run` prints: the file that keeps the results, and how to go on.
  const shown = writeFailure(error, { results: path, resume: "ragbench run c.yaml --resume d" });
  assert.ok(shown instanceof RagbenchError);
  assert.equal(
    shown.message,
    `Cannot write "${path}": No space left on device (os error 28).\n` +
      `The results finished before it are kept in "${path}". ` +
      "Make room (or fix the permission), then continue with:\n  ragbench run c.yaml --resume d",
  );
});

Deno.test("sorted rewrite: a file cut while it is sorted is left as it is, with a message naming it", async () => {
  const text = [line("a", "q1", 1), line("b", "q1", 1), line("b", "q2", 1)].join("");
  await using t = await tempTree({ "r.jsonl": text });
  const path = t.path("r.jsonl");
  let cut = "";
  const error = await rewriteSorted(path, ORDER, {
    write: (target, chunks) => {
      // Something else cuts the file between the scan and the copy.
      Deno.truncateSync(target, 10);
      cut = Deno.readTextFileSync(target);
      return writeChunksAtomic(target, chunks);
    },
  }).catch((e) => e);
  assert.ok(error instanceof RagbenchError && error.code === "io", String(error));
  assert.match(
    error.message,
    new RegExp(
      `^"${
        RegExp.escape(path)
      }" changed while it was being sorted \\(at byte \\d+\\), so it was left as it is\\.$`,
    ),
  );
  assert.equal(await Deno.readTextFile(path), cut);
  assert.deepEqual(names(t.dir), ["r.jsonl"]);
});

Deno.test("sorted rewrite: a line that names no job is refused with its number, and the file is kept", async () => {
  const text = line("a", "q1", 1) + '{"system":"a"}\n';
  await using t = await tempTree({ "r.jsonl": text });
  const path = t.path("r.jsonl");
  await assert.rejects(
    () => rewriteSorted(path, ORDER),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "data" &&
      e.message ===
        `"${path}" line 2 is not a result line (JSON with a system, question_id and repeat), so the file was left unsorted; move the file away or fix the line.`,
  );
  assert.equal(await Deno.readTextFile(path), text);
  await assert.rejects(
    () => rewriteSorted(t.path("none.jsonl"), ORDER),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "io" &&
      e.message.startsWith(`Cannot read "${t.path("none.jsonl")}": `),
  );
});
