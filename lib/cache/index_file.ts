/**
 * Saved indexes in the cache folder (`indexes-v1/<key>.idx`): a file of
 * typed arrays ("sections") behind a small JSON header, each with a CRC-32,
 * written atomically and read back without copying.
 *
 * Layout (little-endian):
 *
 *     0   8 bytes  magic "RBINDEX\n"
 *     8   u32      format version ({@link INDEX_FILE_FORMAT})
 *     12  u32      header length H
 *     16  H bytes  header: UTF-8 JSON {kind, key, meta, bytes, sections: [{name, type, length, offset, crc}]}
 *     16+H u32     CRC-32 of the header bytes
 *     ...          each section at its `offset` (a multiple of 8), `length` elements of `type`
 *
 * What a reader refuses, each with a reason it can print: another magic or
 * format version, a file shorter or longer than its header says (a
 * truncated write), a header or section whose CRC-32 does not match (a
 * flipped bit), a header for another key or kind, a section out of place.
 * A CRC-32 (`node:zlib`, several GB/s) rather than SHA-256: it guards
 * against damage, not against someone forging a file in the user's own
 * cache folder, and SHA-256 at ~1 GB/s would cost a third of a load.
 *
 * Writers never leave a partial file under the final name: each writes a
 * temporary file of its own in the same folder and renames it over the
 * final one (atomic on POSIX), so concurrent writers of the same key (they
 * write equal contents) and readers never see half a file. Builders that
 * should build once take the lock of `index_lock.ts` first.
 *
 * @module
 */

import { z } from "zod";
import { crc32 } from "node:zlib";
import { dirname, join } from "../util/paths.ts";

/** Version of the file layout (the magic's format field); another value is refused. */
export const INDEX_FILE_FORMAT = 1;

/** The folder of saved indexes inside the cache folder (its name changes with the layout). */
export const INDEX_FOLDER = "indexes-v1";

const MAGIC = new TextEncoder().encode("RBINDEX\n");
const PREFIX = 16;

/** The element types a section may hold. */
export type SectionArray =
  | Int8Array
  | Uint8Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array;

const TYPES = {
  i8: Int8Array,
  u8: Uint8Array,
  u16: Uint16Array,
  i32: Int32Array,
  u32: Uint32Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;
type TypeName = keyof typeof TYPES;

const headerSchema = z.object({
  kind: z.string(),
  key: z.string(),
  meta: z.record(z.string(), z.unknown()),
  bytes: z.number().int().nonnegative(),
  sections: z.array(z.object({
    name: z.string(),
    type: z.enum(Object.keys(TYPES) as [TypeName, ...TypeName[]]),
    length: z.number().int().nonnegative(),
    offset: z.number().int().nonnegative(),
    crc: z.number().int().nonnegative(),
  })),
});

/** What a saved index holds besides its arrays. */
export interface IndexContents {
  /** What kind of index (`bm25`, `vectors`); a reader asking for another refuses the file. */
  kind: string;
  /** The content key the file is saved under. */
  key: string;
  /** Small facts a reader checks or reports (counts, settings); JSON. */
  meta: Record<string, unknown>;
  sections: ReadonlyMap<string, SectionArray>;
}

/** Outcome of {@link readIndexFile}. */
export type IndexRead =
  | { status: "ok"; contents: IndexContents }
  | { status: "missing" }
  /** The file exists but cannot be used; `problem` says why (for a warning). */
  | { status: "bad"; problem: string };

/** Path of the saved index of `key` in `dir` (the cache folder). */
export function indexPath(dir: string, key: string): string {
  return join(dir, INDEX_FOLDER, `${key}.idx`);
}

function typeOf(array: SectionArray): TypeName {
  if (array instanceof Int8Array) return "i8";
  if (array instanceof Uint8Array) return "u8";
  if (array instanceof Uint16Array) return "u16";
  if (array instanceof Int32Array) return "i32";
  if (array instanceof Uint32Array) return "u32";
  if (array instanceof Float32Array) return "f32";
  return "f64";
}

function bytesOf(array: SectionArray): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** The file's bytes, as a list of pieces to write in order. */
function encode(contents: IndexContents): Uint8Array[] {
  const encoder = new TextEncoder();
  // Offsets depend on the header's length, which depends on the offsets: lay out with a
  // fixed-width guess, and pad the header to it.
  const entries = [...contents.sections].map(([name, array]) => ({
    name,
    type: typeOf(array),
    length: array.length,
    offset: 0,
    crc: crc32(bytesOf(array)),
  }));
  const draft = (start: number, total: number) => {
    let at = start;
    for (const entry of entries) {
      entry.offset = at;
      at = align8(at + entry.length * TYPES[entry.type].BYTES_PER_ELEMENT);
    }
    return {
      json: JSON.stringify({
        kind: contents.kind,
        key: contents.key,
        meta: contents.meta,
        bytes: total,
        sections: entries,
      }),
      end: at,
    };
  };
  let room = 256;
  for (;;) {
    const start = align8(PREFIX + room + 4);
    const sized = draft(start, 0);
    const laidOut = draft(start, sized.end);
    const header = encoder.encode(laidOut.json);
    if (header.length > room) {
      room = header.length * 2;
      continue;
    }
    const head = new Uint8Array(start);
    head.set(MAGIC, 0);
    const view = new DataView(head.buffer);
    view.setUint32(8, INDEX_FILE_FORMAT, true);
    view.setUint32(12, room, true);
    const padded = new Uint8Array(room).fill(0x20);
    padded.set(header);
    head.set(padded, PREFIX);
    view.setUint32(PREFIX + room, crc32(padded), true);
    const pieces: Uint8Array[] = [head];
    let at = start;
    for (const [i, [, array]] of [...contents.sections].entries()) {
      if (entries[i].offset > at) pieces.push(new Uint8Array(entries[i].offset - at));
      pieces.push(bytesOf(array));
      at = entries[i].offset + array.byteLength;
    }
    if (laidOut.end > at) pieces.push(new Uint8Array(laidOut.end - at));
    return pieces;
  }
}

/**
 * Writes `contents` to `path` atomically: into a temporary file of this
 * writer's own beside it, then renamed over `path` (creating the folder).
 * Concurrent writers of one path each rename a whole file; the last wins.
 *
 * @throws {Deno.errors.PermissionDenied} and other file-system errors (the
 *   temporary file is removed first).
 */
export function writeIndexFile(path: string, contents: IndexContents): void {
  const folder = dirname(path);
  Deno.mkdirSync(folder, { recursive: true });
  const temporary = `${path}.${Deno.pid}-${crypto.randomUUID()}.tmp`;
  try {
    using file = Deno.openSync(temporary, { write: true, createNew: true });
    for (const piece of encode(contents)) {
      let written = 0;
      while (written < piece.length) written += file.writeSync(piece.subarray(written));
    }
    Deno.renameSync(temporary, path);
  } catch (error) {
    try {
      Deno.removeSync(temporary);
    } catch {
      // Already renamed or never created.
    }
    throw error;
  }
}

/**
 * Reads and checks the saved index at `path` (see the module docs for what
 * is refused); `kind` and `key` must be what the file says. The sections are
 * views of the file's bytes (one read, no copy).
 */
export function readIndexFile(path: string, expect: { kind: string; key: string }): IndexRead {
  let bytes: Uint8Array;
  try {
    bytes = readWhole(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return { status: "missing" };
    }
    return { status: "bad", problem: `cannot be read (${(error as Error).message})` };
  }
  return decode(bytes, expect);
}

/**
 * The file's bytes in one buffer of its size (`Deno.readFileSync` costs about twice the CPU
 * here: it reads into a buffer of its own and copies).
 */
function readWhole(path: string): Uint8Array {
  using file = Deno.openSync(path, { read: true });
  const size = file.statSync().size;
  const bytes = new Uint8Array(size);
  let got = 0;
  while (got < size) {
    const n = file.readSync(bytes.subarray(got));
    if (n === null || n === 0) break;
    got += n;
  }
  // A file cut while it was read reads as what it is: shorter than its header says.
  return got === size ? bytes : bytes.subarray(0, got);
}

/** {@link readIndexFile} over bytes already read (exported for tests). */
export function decode(input: Uint8Array, expect: { kind: string; key: string }): IndexRead {
  const bad = (problem: string): IndexRead => ({ status: "bad", problem });
  // Views need their element alignment; a file read whole starts at offset 0 of its buffer.
  const bytes = input.byteOffset % 8 === 0 ? input : input.slice();
  if (bytes.length < PREFIX + 4 || MAGIC.some((b, i) => bytes[i] !== b)) {
    return bad("is not a ragbench index file");
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = view.getUint32(8, true);
  if (format !== INDEX_FILE_FORMAT) {
    return bad(`has format ${format}, this ragbench reads format ${INDEX_FILE_FORMAT}`);
  }
  const room = view.getUint32(12, true);
  if (PREFIX + room + 4 > bytes.length) return bad("is truncated (inside its header)");
  const headerBytes = bytes.subarray(PREFIX, PREFIX + room);
  if (crc32(headerBytes) !== view.getUint32(PREFIX + room, true)) {
    return bad("has a damaged header (checksum mismatch)");
  }
  let header: z.infer<typeof headerSchema>;
  try {
    header = headerSchema.parse(JSON.parse(new TextDecoder().decode(headerBytes)));
  } catch {
    return bad("has an unreadable header");
  }
  if (header.bytes !== bytes.length) {
    return bad(
      `is ${bytes.length} bytes where its header says ${header.bytes} (${
        bytes.length < header.bytes ? "truncated" : "extra bytes"
      })`,
    );
  }
  if (header.kind !== expect.kind || header.key !== expect.key) {
    return bad(`holds a ${header.kind} index of key ${header.key.slice(0, 12)}…, not this one`);
  }
  const sections = new Map<string, SectionArray>();
  for (const section of header.sections) {
    const type = TYPES[section.type];
    const end = section.offset + section.length * type.BYTES_PER_ELEMENT;
    if (section.offset % 8 !== 0 || section.offset < PREFIX + room + 4 || end > bytes.length) {
      return bad(`has section ${section.name} out of place`);
    }
    const array = new type(
      bytes.buffer as ArrayBuffer,
      bytes.byteOffset + section.offset,
      section.length,
    );
    if (crc32(bytesOf(array)) !== section.crc) {
      return bad(`is damaged in section ${section.name} (checksum mismatch)`);
    }
    sections.set(section.name, array);
  }
  return {
    status: "ok",
    contents: { kind: header.kind, key: header.key, meta: header.meta, sections },
  };
}
