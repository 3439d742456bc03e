/**
 * Small real PDF files written by code, for tests: pages of text lines in
 * Helvetica, a correct cross-reference table, optionally a title in the
 * document information dictionary, and optionally a page whose content
 * stream is a decompression bomb.
 */

import { constants as zlib, deflateRawSync } from "node:zlib";

/** What {@link makePdf} writes. */
export interface PdfSpec {
  /** Each page's lines of text (ASCII). */
  pages: string[][];
  /** The document information dictionary's `/Title`. */
  title?: string;
  /**
   * A last page whose FlateDecode content stream inflates to this many
   * megabytes of spaces (from about a kilobyte per megabyte).
   */
  bombMb?: number;
  /** A last page whose content stream is this text, as is (malformed content). */
  rawPage?: string;
}

/** The bytes of a PDF as {@link PdfSpec} says. */
export function makePdf(spec: PdfSpec): Uint8Array {
  const encoder = new TextEncoder();
  const objects: Uint8Array[] = [];
  const add = (body: string | Uint8Array) => {
    objects.push(typeof body === "string" ? encoder.encode(body) : body);
    return objects.length;
  };
  const pageCount = spec.pages.length + (spec.bombMb ? 1 : 0) + (spec.rawPage ? 1 : 0);
  const catalog = add("<< /Type /Catalog /Pages 2 0 R >>");
  add(""); // 2: the page tree, written once the pages' numbers are known
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  const kids: number[] = [];
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  for (const lines of spec.pages) {
    const body = lines.map((line, i) =>
      `BT /F1 12 Tf 72 ${720 - 16 * i} Td (${escape(line)}) Tj ET`
    )
      .join("\n");
    const content = add(`<< /Length ${body.length} >>\nstream\n${body}\nendstream`);
    kids.push(add(pageObject(font, content)));
  }
  if (spec.bombMb) {
    const stream = bomb(spec.bombMb);
    const head = encoder.encode(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`);
    const tail = encoder.encode("\nendstream");
    const content = add(join([head, stream, tail]));
    kids.push(add(pageObject(font, content)));
  }
  if (spec.rawPage) {
    const content = add(`<< /Length ${spec.rawPage.length} >>\nstream\n${spec.rawPage}\nendstream`);
    kids.push(add(pageObject(font, content)));
  }
  objects[1] = encoder.encode(
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${pageCount} >>`,
  );
  const info = spec.title === undefined ? 0 : add(`<< /Title (${escape(spec.title)}) >>`);
  const parts: Uint8Array[] = [encoder.encode("%PDF-1.4\n")];
  let offset = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const piece = join([encoder.encode(`${i + 1} 0 obj\n`), body, encoder.encode("\nendobj\n")]);
    parts.push(piece);
    offset += piece.length;
  });
  const xref = [
    "xref",
    `0 ${objects.length + 1}`,
    "0000000000 65535 f ",
    ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n `),
    "trailer",
    `<< /Size ${objects.length + 1} /Root ${catalog} 0 R${info ? ` /Info ${info} 0 R` : ""} >>`,
    "startxref",
    String(offset),
    "%%EOF",
    "",
  ].join("\n");
  parts.push(encoder.encode(xref));
  return join(parts);
}

function pageObject(font: number, content: number): string {
  return `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ` +
    `/Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`;
}

/**
 * A zlib stream of `mb` megabytes of spaces: one megabyte deflated with a
 * sync flush (non-final, byte-aligned blocks), repeated, then a final empty
 * block. Its checksum is not that of the data: PDF readers do not check it.
 */
function bomb(mb: number): Uint8Array {
  const block = deflateRawSync(new Uint8Array(1 << 20).fill(32), {
    finishFlush: zlib.Z_SYNC_FLUSH,
  });
  const parts: Uint8Array[] = [new Uint8Array([0x78, 0x9c])];
  for (let i = 0; i < mb; i++) parts.push(block);
  parts.push(new Uint8Array([0x03, 0x00, 0, 0, 0, 0]));
  return join(parts);
}

function join(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
