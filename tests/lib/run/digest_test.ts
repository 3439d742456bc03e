import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { isAbsolute, relative } from "node:path";
import { digestPaths, hashValue, sha256Hex } from "../../../lib/run/digest.ts";
import { canonicalJson } from "../../../lib/util/canonical_json.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import { tempTree } from "../../support/temp.ts";

const DIGEST_MODULE = new URL("../../../lib/run/digest.ts", import.meta.url).href;
const SHA256_MODULE = new URL("../../../lib/util/sha256.ts", import.meta.url).href;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

Deno.test("digest: canonical JSON sorts keys at every level, so key order never changes a hash", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } }),
    '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
  );
  assert.equal(hashValue({ a: 1, b: 2 }), hashValue({ b: 2, a: 1 }));
  assert.notEqual(hashValue({ a: 1 }), hashValue({ a: "1" }));
  // A "__proto__" key (as JSON.parse or a config makes it: an own key) is part of the hash.
  assert.equal(
    canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":2}}')),
    '{"__proto__":{"x":2},"b":1}',
  );
  assert.notEqual(hashValue(JSON.parse('{"a":1,"__proto__":2}')), hashValue({ a: 1 }));
  // As recorded in run.json files by earlier versions (a resume compares them).
  assert.equal(
    hashValue(JSON.parse('{"where":{"__proto__":"x","10":1,"2":2},"z":[1,{"b":2,"a":1}]}')),
    "ae7d4a147652fd65f95a5cdc429579b10862f275f393ac1a673b5518289f4254",
  );
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("digest: a file hashes its bytes; a folder changes with any edit, addition or rename", async () => {
  await using t = await tempTree({ "one.txt": "abc", "corpus/a.md": "A", "corpus/sub/b.md": "B" });
  const [file] = await digestPaths([t.path("one.txt")]);
  assert.deepEqual(file, {
    path: t.path("one.txt"),
    sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    files: 1,
  });
  const folder = async () => (await digestPaths([t.path("corpus")]))[0];
  const first = await folder();
  assert.equal(first.files, 2);
  assert.equal((await folder()).sha256, first.sha256);
  await Deno.writeTextFile(t.path("corpus/sub/b.md"), "B!");
  const edited = await folder();
  assert.notEqual(edited.sha256, first.sha256);
  await Deno.rename(t.path("corpus/a.md"), t.path("corpus/c.md"));
  const renamed = await folder();
  assert.notEqual(renamed.sha256, edited.sha256);
  await Deno.writeTextFile(t.path("corpus/d.md"), "");
  assert.equal((await folder()).files, 3);
});

Deno.test("digest: a path that cannot be read is an io error naming it", async () => {
  await using t = await tempTree();
  await assert.rejects(
    () => digestPaths([t.path("gone.json")]),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "io" &&
      e.message === `Cannot hash "${t.path("gone.json")}" for run.json: no such file or folder.`,
  );
});

Deno.test("digest: large files keep node:crypto's digests", async () => {
  await using t = await tempTree();
  const big = new Uint8Array((1 << 20) + 17).map((_, i) => (i * 31) & 255);
  await Deno.writeFile(t.path("big.bin"), big);
  await Deno.writeFile(t.path("small.bin"), big.subarray(0, 1000));
  const [small, large] = await digestPaths([t.path("small.bin"), t.path("big.bin")]);
  assert.equal(small.sha256, createHash("sha256").update(big.subarray(0, 1000)).digest("hex"));
  assert.equal(large.sha256, createHash("sha256").update(big).digest("hex"));
});

Deno.test("digest: hashing switches to node:crypto from a megabyte of files on, one file or a folder of many", async () => {
  await using t = await tempTree();
  const chunk = new Uint8Array(4096).fill(7);
  await Deno.mkdir(t.path("few"));
  await Deno.mkdir(t.path("many"));
  for (let i = 0; i < 5; i++) await Deno.writeFile(t.path(`few/${i}.md`), chunk);
  for (let i = 0; i < 300; i++) await Deno.writeFile(t.path(`many/${i}.md`), chunk);
  await Deno.writeFile(t.path("big.bin"), new Uint8Array((1 << 20) + 1));
  // Each in a fresh process: the switch, once made, holds for the rest of a process.
  const nativeAfter = async (path: string) => {
    const script = `import { digestPaths } from ${JSON.stringify(DIGEST_MODULE)};
import { nativeSha256InUse } from ${JSON.stringify(SHA256_MODULE)};
await digestPaths([${JSON.stringify(path)}]);
console.log(nativeSha256InUse());`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", `--config=${CONFIG}`, "--no-check", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim();
  };
  assert.equal(await nativeAfter(t.path("few")), "false");
  assert.equal(await nativeAfter(t.path("many")), "true");
  assert.equal(await nativeAfter(t.path("big.bin")), "true");
});

Deno.test("digest: a folder's files are listed relative to it when it is given as a relative path", async () => {
  await using t = await tempTree({ "corpus/a.md": "A", "corpus/sub/b.md": "B" });
  const absolute = (await digestPaths([t.path("corpus")]))[0];
  // Relative to the working folder, which stays as it is: `deno test --parallel` runs other
  // test modules in this process meanwhile, and the working folder is the whole process's.
  const relativePath = relative(Deno.cwd(), t.path("corpus"));
  assert.ok(!isAbsolute(relativePath) && relativePath.endsWith("corpus"), relativePath);
  const relativeDigest = (await digestPaths([relativePath]))[0];
  assert.equal(relativeDigest.sha256, absolute.sha256);
  assert.equal(
    relativeDigest.sha256,
    sha256Hex(`a.md\0${sha256Hex("A")}\nsub/b.md\0${sha256Hex("B")}\n`),
  );
});
