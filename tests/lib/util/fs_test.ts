import assert from "node:assert/strict";
import { RagbenchError } from "../../../lib/errors.ts";
import { writeChunksAtomic, writeFileAtomic } from "../../../lib/util/fs.ts";
import { tempTree } from "../../support/temp.ts";

Deno.test("writeChunksAtomic: text and byte pieces, small and past a megabyte, land in order", async () => {
  await using t = await tempTree({ "out.txt": "old content" });
  const big = "x".repeat(3 << 20);
  const pieces = [
    "a",
    new TextEncoder().encode("é-bytes "),
    ...Array.from({ length: 5000 }, (_, i) => `${i},`),
    big,
    new TextEncoder().encode(big),
    "z\n",
  ];
  await writeChunksAtomic(t.path("out.txt"), pieces);
  const expected = "aé-bytes " + Array.from({ length: 5000 }, (_, i) => `${i},`).join("") + big +
    big + "z\n";
  assert.equal(await Deno.readTextFile(t.path("out.txt")), expected);
  assert.deepEqual([...Deno.readDirSync(t.dir)].map((e) => e.name), ["out.txt"]);
});

Deno.test("writeChunksAtomic: a piece that fails leaves the old file and no temporary file", async () => {
  await using t = await tempTree({ "out.txt": "old content" });
  function* pieces() {
    yield "new ";
    throw new Error("the report generator failed");
  }
  await assert.rejects(
    () => writeChunksAtomic(t.path("out.txt"), pieces()),
    (e) =>
      e instanceof RagbenchError && e.code === "io" &&
      e.message.startsWith(`Cannot write "${t.path("out.txt")}"`),
  );
  assert.equal(await Deno.readTextFile(t.path("out.txt")), "old content");
  assert.deepEqual([...Deno.readDirSync(t.dir)].map((e) => e.name), ["out.txt"]);
});

Deno.test("writeChunksAtomic: a folder that cannot be written is an io error naming the file", async () => {
  const error = await writeChunksAtomic("/nonexistent-folder/out.txt", ["x"]).catch((e) => e);
  assert.ok(error instanceof RagbenchError && error.code === "io");
  assert.match(error.message, /^Cannot write "\/nonexistent-folder\/out.txt": /);
});

Deno.test("writeFileAtomic with tmpDir: the temporary file is made there, so only the file itself is written beside it", async () => {
  await using t = await tempTree({ "run/.keep": "", "out/.keep": "" });
  await writeFileAtomic(t.path("out/junit.xml"), "<xml/>", { tmpDir: t.path("run") });
  assert.equal(await Deno.readTextFile(t.path("out/junit.xml")), "<xml/>");
  assert.deepEqual([...Deno.readDirSync(t.path("out"))].map((e) => e.name).sort(), [
    ".keep",
    "junit.xml",
  ]);
  assert.deepEqual([...Deno.readDirSync(t.path("run"))].map((e) => e.name), [".keep"]);
});

Deno.test("writeFileAtomic with tmpDir on another file system (no rename across) writes the file in place", async () => {
  await using t = await tempTree({ "run/.keep": "" });
  const crossDevice = () => {
    throw Object.assign(new Error("Invalid cross-device link (os error 18)"), { code: "EXDEV" });
  };
  await writeFileAtomic(t.path("junit.xml"), "<xml/>", {
    tmpDir: t.path("run"),
    rename: crossDevice,
  });
  assert.equal(await Deno.readTextFile(t.path("junit.xml")), "<xml/>");
  assert.deepEqual([...Deno.readDirSync(t.path("run"))].map((e) => e.name), [".keep"]);
  // Any other failure of the rename is the write's failure.
  await assert.rejects(
    writeFileAtomic(t.path("other.xml"), "<xml/>", {
      tmpDir: t.path("run"),
      rename: () => {
        throw new Deno.errors.PermissionDenied("no");
      },
    }),
    /Cannot write ".*other\.xml": permission denied/,
  );
  assert.deepEqual([...Deno.readDirSync(t.path("run"))].map((e) => e.name), [".keep"]);
});
