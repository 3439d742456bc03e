import assert from "node:assert/strict";
import { jsonlWriter, openJsonlWriter, readJsonl } from "../../../lib/report/jsonl.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import { evalUnderHeap } from "../../support/small_heap.ts";
import { tempTree } from "../../support/temp.ts";

Deno.test("jsonl: appended lines are on disk at once, in order, one object a line", async () => {
  await using t = await tempTree();
  const path = t.path("r.jsonl");
  const writer = await openJsonlWriter(path);
  await Promise.all([writer.append({ n: 1 }), writer.append({ n: 2, text: "a\nb" })]);
  assert.equal(await Deno.readTextFile(path), '{"n":1}\n{"n":2,"text":"a\\nb"}\n');
  writer.close();
  writer.close();
});

Deno.test("jsonl: a line is in the file as soon as append returns, before anything is awaited", async () => {
  await using t = await tempTree();
  const path = t.path("r.jsonl");
  const writer = await openJsonlWriter(path);
  const first = writer.append({ n: 1 });
  assert.equal(Deno.readTextFileSync(path), '{"n":1}\n');
  const second = writer.append({ n: 2 });
  assert.equal(Deno.readTextFileSync(path), '{"n":1}\n{"n":2}\n');
  await Promise.all([first, second]);
  writer.close();
});

Deno.test("jsonl: a short write is continued until the whole line is written", async () => {
  const chunks: number[][] = [];
  const file = {
    writeSync(bytes: Uint8Array) {
      const n = Math.min(3, bytes.length);
      chunks.push([...bytes.subarray(0, n)]);
      return n;
    },
    close() {},
  };
  const writer = jsonlWriter(file, "r.jsonl");
  await writer.append({ text: "é and more" });
  assert.equal(new TextDecoder().decode(new Uint8Array(chunks.flat())), '{"text":"é and more"}\n');
  assert.ok(chunks.length > 5);
});

Deno.test("jsonl: a cut-off last line is ignored, and repaired away on resume", async () => {
  await using t = await tempTree({ "r.jsonl": '{"n":1}\n{"n":2}\n{"n":3, "par' });
  const path = t.path("r.jsonl");
  assert.deepEqual(await readJsonl(path), [{ n: 1 }, { n: 2 }]);
  assert.equal(
    (await Deno.readTextFile(path)).endsWith('"par'),
    true,
    "plain read leaves the file",
  );
  assert.deepEqual(await readJsonl(path, { repair: true }), [{ n: 1 }, { n: 2 }]);
  assert.equal(await Deno.readTextFile(path), '{"n":1}\n{"n":2}\n');
});

Deno.test("jsonl: a corrupt complete line is an error naming its line; a missing file is empty", async () => {
  await using t = await tempTree({ "r.jsonl": '{"n":1}\nnot json\n' });
  const error = await readJsonl(t.path("r.jsonl")).catch((e) => e);
  assert.ok(error instanceof RagbenchError);
  assert.match(error.message, /line 2 is not valid JSON/);
  assert.deepEqual(await readJsonl(t.path("none.jsonl")), []);
});

Deno.test("jsonl: a failed write (disk full) is an io error naming the file, and no later line is written", async () => {
  const written: string[] = [];
  let fail = false;
  const file = {
    writeSync(bytes: Uint8Array) {
      if (fail) throw new Error("No space left on device (os error 28)");
      written.push(new TextDecoder().decode(bytes));
      return bytes.length;
    },
    close() {},
  };
  const writer = jsonlWriter(file, "run/per_question_results.jsonl");
  await writer.append({ n: 1 });
  fail = true;
  const failure = (e: unknown) =>
    e instanceof RagbenchError && e.code === "io" &&
    e.message ===
      'Cannot write "run/per_question_results.jsonl": No space left on device (os error 28).';
  await assert.rejects(() => writer.append({ n: 2 }), failure);
  fail = false;
  await assert.rejects(() => writer.append({ n: 3 }), failure);
  await writer.flush();
  assert.deepEqual(written, ['{"n":1}\n']);
});

Deno.test("jsonl: lines longer than a read, across its edges, are read whole", async () => {
  // Three lines of ~700 KB around 1 MiB reads, one in unusual spacing, one blank line between.
  const big = (n: number) => `{"n": ${n},  "text": "${"é".repeat(350_000)}"}`;
  const text = `${big(1)}\n\n${big(2)}\n{"n":3}\n${big(4)}\n`;
  await using t = await tempTree({ "r.jsonl": text });
  const path = t.path("r.jsonl");
  const values = await readJsonl(path) as { n: number; text?: string }[];
  assert.deepEqual(values.map((v) => v.n), [1, 2, 3, 4]);
  assert.equal(values[1].text, "é".repeat(350_000));
});

Deno.test("jsonl: a cut-off last line longer than a read is dropped, and repaired away to the byte", async () => {
  const whole = `{"n":1}\n{"é":"${"x".repeat(10)}"}\n`;
  await using t = await tempTree({ "r.jsonl": whole + `{"n":3,"text":"${"y".repeat(2_500_000)}` });
  const path = t.path("r.jsonl");
  assert.deepEqual(await readJsonl(path, { repair: true }), [{ n: 1 }, { "é": "x".repeat(10) }]);
  assert.equal(Deno.readTextFileSync(path), whole);
});

Deno.test("jsonl: a line that is not JSON is named by its number, past the first read", async () => {
  const lines = Array.from(
    { length: 3_000 },
    (_, i) => JSON.stringify({ i, pad: "z".repeat(500) }),
  );
  lines[2_500] = "{not json";
  await using t = await tempTree({ "r.jsonl": lines.join("\n") + "\n" });
  await assert.rejects(
    () => readJsonl(t.path("r.jsonl")),
    (error: unknown) =>
      error instanceof RagbenchError && error.code === "data" &&
      error.message ===
        `"${t.path("r.jsonl")}" line 2501 is not valid JSON; move the file away or fix the line.`,
  );
});

Deno.test("jsonl: a results file is never read as one string (100 MB of lines under a 48 MB heap)", async () => {
  // Each line a small object padded with spaces: the values are small, the file is not. Read as one
  // string (as before) it cannot fit the heap; streamed it does.
  await using t = await tempTree();
  const path = t.path("big.jsonl");
  {
    using file = Deno.openSync(path, { write: true, create: true });
    const line = new TextEncoder().encode(`{"n":1}${" ".repeat(1_000)}\n`);
    const block = new Uint8Array(line.length * 1_000);
    for (let i = 0; i < 1_000; i++) block.set(line, i * line.length);
    for (let i = 0; i < 100; i++) file.writeSync(block);
  }
  const module = new URL("../../../lib/report/jsonl.ts", import.meta.url).href;
  const printed = await evalUnderHeap(
    48,
    `const { readJsonl } = await import(${JSON.stringify(module)});` +
      `console.log((await readJsonl(${JSON.stringify(path)})).length);`,
  );
  assert.equal(printed, "100000");
});
