import assert from "node:assert/strict";
import { PdfReader } from "../../../../lib/data/formats/pdf_process.ts";
import { makePdf } from "../../../support/pdf_fixture.ts";
import { isRunning } from "../../../support/processes.ts";

Deno.test("pdf reader: gives each page's text with its lines, and the PDF's title", async () => {
  const reader = new PdfReader();
  try {
    const read = await reader.read(makePdf({
      pages: [["Harbor manual", "Opening hours: 9 to 5."], ["Tides (daily)", "High at 06:10."]],
      title: "Harbor Manual",
    }));
    assert.deepEqual(read, {
      pages: ["Harbor manual\nOpening hours: 9 to 5.", "Tides (daily)\nHigh at 06:10."],
      title: "Harbor Manual",
    });
    const untitled = await reader.read(makePdf({ pages: [["One page."]] }));
    assert.deepEqual(untitled, { pages: ["One page."], title: "" });
    assert.equal(reader.started, 1, "one process reads file after file");
  } finally {
    await reader.close();
  }
});

Deno.test("pdf reader: garbage is an error naming the parser's complaint, and the process reads on", async () => {
  const reader = new PdfReader();
  try {
    const bad = await reader.read(new TextEncoder().encode("this is not a PDF at all"));
    assert.ok("error" in bad);
    assert.match(bad.error, /^it is not a readable PDF \(.+\)$/);
    const truncated = makePdf({ pages: [["cut short"]] }).slice(0, 40);
    assert.ok("error" in await reader.read(truncated));
    assert.deepEqual(await reader.read(makePdf({ pages: [["still fine"]] })), {
      pages: ["still fine"],
      title: "",
    });
    assert.equal(reader.started, 1);
  } finally {
    await reader.close();
  }
});

Deno.test("pdf reader: a decompression bomb hits the memory limit; the process dies, the next file gets a fresh one", async () => {
  const reader = new PdfReader({ memoryMb: 300, timeoutMs: 600_000 });
  try {
    await reader.read(makePdf({ pages: [["warm up"]] }));
    const pid = reader.pid;
    assert.ok(pid !== null);
    // ~2 MB of file that inflates to 2 GB of spaces.
    const bomb = makePdf({ pages: [["cover page"]], bombMb: 2000 });
    assert.ok(bomb.length < 4 * 1024 * 1024, `${bomb.length} bytes`);
    const read = await reader.read(bomb);
    assert.deepEqual(read, { error: "it needed more than 300 MB of memory to read" });
    assert.equal(isRunning(pid), false, "the reader process is gone");
    assert.deepEqual(await reader.read(makePdf({ pages: [["after"]] })), {
      pages: ["after"],
      title: "",
    });
    assert.equal(reader.started, 2);
  } finally {
    await reader.close();
  }
});

Deno.test("pdf reader: a file past its time budget is an error and its process is killed", async () => {
  const reader = new PdfReader({ timeoutMs: 5 });
  try {
    await reader.read(makePdf({ pages: [["warm up"]] })).catch(() => {});
    // 3,000 pages cannot be read in 5 ms.
    const pages = Array.from({ length: 3000 }, (_, i) => [`Page ${i + 1} text.`]);
    const before = reader.pid;
    const read = await reader.read(makePdf({ pages }));
    assert.deepEqual(read, { error: "it took longer than 5 ms to read" });
    assert.equal(reader.pid, null);
    if (before !== null) assert.equal(isRunning(before), false);
  } finally {
    await reader.close();
  }
});

Deno.test("pdf reader: close ends the process; a closed reader starts a fresh one when used again", async () => {
  const reader = new PdfReader();
  try {
    await reader.read(makePdf({ pages: [["x"]] }));
    const pid = reader.pid!;
    await reader.close();
    assert.equal(isRunning(pid), false);
    assert.equal(reader.pid, null);
  } finally {
    await reader.close();
  }
});

Deno.test("pdf reader: an aborted signal stops the wait and rejects with its reason", async () => {
  const controller = new AbortController();
  const reader = new PdfReader({ signal: controller.signal });
  try {
    await reader.read(makePdf({ pages: [["x"]] }));
    const pid = reader.pid!;
    const pages = Array.from({ length: 3000 }, (_, i) => [`Page ${i + 1}.`]);
    const pending = reader.read(makePdf({ pages }));
    controller.abort(new Error("stop now"));
    await assert.rejects(pending, /stop now/);
    assert.equal(isRunning(pid), false);
  } finally {
    await reader.close();
  }
});

Deno.test("pdf reader: deeply nested and malformed content streams end in an answer", async () => {
  const reader = new PdfReader({ timeoutMs: 30_000 });
  try {
    for (
      const raw of ["[".repeat(200_000), "<<".repeat(100_000), "BT (unterminated".repeat(10_000)]
    ) {
      const read = await reader.read(makePdf({ pages: [["first page"]], rawPage: raw }));
      assert.ok(
        "error" in read || read.pages[0] === "first page",
        JSON.stringify(read).slice(0, 200),
      );
    }
  } finally {
    await reader.close();
  }
});

Deno.test("pdf reader: a page that makes the parser spin costs its time budget, then reading goes on", async () => {
  // PDF.js handles nested graphics states (`q`) in quadratic time: 20,000 take ~50 s on a
  // 2-core machine, 100,000 about 25 times that. The budget stops it; a Worker could not.
  const reader = new PdfReader({ timeoutMs: 2000 });
  try {
    const spin = makePdf({ pages: [["first page"]], rawPage: "q ".repeat(100_000) });
    await reader.read(makePdf({ pages: [["warm up"]] }));
    const pid = reader.pid!;
    assert.deepEqual(await reader.read(spin), { error: "it took longer than 2 s to read" });
    assert.equal(isRunning(pid), false, "the spinning process was killed");
    assert.deepEqual(await reader.read(makePdf({ pages: [["after"]] })), {
      pages: ["after"],
      title: "",
    });
  } finally {
    await reader.close();
  }
});
