/**
 * The subprocess side of PDF text extraction: reads PDF files from stdin,
 * one after the other, and writes each one's pages of text to stdout, one
 * JSON message a line. Started by `pdf_process.ts` as the hidden command
 * `ragbench __pdf-text MEMORY_BYTES`, with no permission at all (the files
 * come through stdin; a compiled ragbench revokes every permission first).
 *
 * A PDF is a program for a renderer: a hostile one can make the parser
 * inflate a small stream into gigabytes, or spin. Neither can harm the run
 * from here: a watchdog Worker (its own thread, so a busy parser cannot
 * starve it) kills this process when its resident memory passes
 * MEMORY_BYTES, with a marker line on stderr first, or when its parent
 * changes (ragbench died); the parent kills it when a file takes longer
 * than its time budget. Either way the parent reports the file and starts
 * a fresh process for the next one.
 *
 * Protocol. stdin: for each file, a line `{"size": N}` then exactly N bytes.
 * stdout: `{"type":"ready"}` once the PDF library is loaded; per file, a
 * `{"type":"page","text":...}` line for each page in order, then
 * `{"type":"done","title":...}` or `{"type":"error","message":...}`.
 *
 * @module
 */

// deno-lint-ignore-file no-console
import { pageText, type PdfTextItem } from "./pdf_page_text.ts";

/** The marker line the watchdog writes to stderr when memory passes the limit. */
export const PDF_MEMORY_MARKER = "\u001eragbench-pdf-memory-limit";

/** Most characters of text one page may give before the file is refused. */
export const MAX_PAGE_CHARS = 1_000_000;

const REVOCABLE = ["read", "write", "net", "env", "run", "ffi", "sys", "import"] as const;

/** Runs the child until stdin ends. `argv` is `[memoryBytes]`. */
export async function servePdfText(argv: readonly string[]): Promise<void> {
  for (const name of REVOCABLE) {
    try {
      Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
    } catch { /* not a permission of this Deno */ }
  }
  const encoder = new TextEncoder();
  const write = (message: unknown) => {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    let offset = 0;
    while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
  };
  // stdout carries the protocol: whatever the library prints goes to stderr.
  console.log =
    console.info =
    console.debug =
    console.warn =
      console.error;
  startWatchdog(Number(argv[0]));
  const { getDocumentProxy } = await import("unpdf");
  write({ type: "ready" });
  const input = frames(Deno.stdin.readable);
  for await (const bytes of input) {
    let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | null = null;
    let last: unknown;
    try {
      pdf = await getDocumentProxy(bytes, { verbosity: 0 });
      for (let n = 1; n <= pdf.numPages; n++) {
        const page = await pdf.getPage(n);
        const text = pageText((await page.getTextContent()).items as readonly PdfTextItem[]);
        page.cleanup();
        if (text.length > MAX_PAGE_CHARS) {
          throw new Error(
            `page ${n} holds over ${MAX_PAGE_CHARS.toLocaleString("en-US")} characters of text`,
          );
        }
        write({ type: "page", text });
      }
      const info = (await pdf.getMetadata().catch(() => null))?.info as
        | { Title?: unknown }
        | undefined;
      last = { type: "done", title: typeof info?.Title === "string" ? info.Title : "" };
    } catch (error) {
      last = { type: "error", message: describe(error) };
    } finally {
      try {
        await pdf?.loadingTask.destroy();
      } catch { /* the file is done with either way */ }
    }
    write(last);
  }
  Deno.exit(0);
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

/**
 * The files of the stream: each a `{"size": N}` line followed by N bytes,
 * copied once into a buffer of their size.
 */
async function* frames(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let head: number[] = [];
  let file: Uint8Array | null = null;
  let filled = 0;
  for await (const chunk of stream) {
    let at = 0;
    while (at < chunk.length) {
      if (file === null) {
        const newline = chunk.indexOf(10, at);
        const end = newline < 0 ? chunk.length : newline;
        for (let i = at; i < end; i++) head.push(chunk[i]);
        at = end;
        if (newline < 0) break;
        at++;
        const size = Number(JSON.parse(new TextDecoder().decode(new Uint8Array(head))).size);
        head = [];
        file = new Uint8Array(size);
        filled = 0;
        if (size === 0) {
          yield file;
          file = null;
          continue;
        }
      }
      const take = Math.min(file.length - filled, chunk.length - at);
      file.set(chunk.subarray(at, at + take), filled);
      filled += take;
      at += take;
      if (filled === file.length) {
        yield file;
        file = null;
      }
    }
  }
}

/** The watchdog thread (see the module doc): a Worker made from source, needing no permission. */
function startWatchdog(limitBytes: number): void {
  const source = `const limit = ${Number.isFinite(limitBytes) ? limitBytes : 0};
const parent = Deno.ppid;
setInterval(() => {
  if (Deno.ppid !== parent) Deno.kill(Deno.pid, "SIGKILL");
  const rss = Deno.memoryUsage().rss;
  if (limit > 0 && rss > limit) {
    Deno.stderr.writeSync(new TextEncoder().encode(${
    JSON.stringify(PDF_MEMORY_MARKER)
  } + " " + rss + "\\n"));
    Deno.kill(Deno.pid, "SIGKILL");
  }
}, 10);`;
  new Worker(`data:text/javascript,${encodeURIComponent(source)}`, { type: "module" });
}
