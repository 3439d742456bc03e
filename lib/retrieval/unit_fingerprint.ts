/**
 * The fingerprint of the units an index is built from, part of a saved
 * index's key (`saved_indexes.ts`).
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Passage } from "../lexical/passages.ts";

/**
 * SHA-256 of every unit's id, document id, title and text, with the length
 * of each (so no two lists of units give the same bytes). Built for speed,
 * as a load pays for it (it reads every character of the corpus): texts are
 * joined about 1 MB at a time and encoded with one `encodeInto`, since each
 * call into `node:crypto`, each `subarray` and each small string costs more
 * here than the hashing of a passage.
 */
export function fingerprintUnits(units: readonly Passage[]): string {
  const encoder = new TextEncoder();
  const texts = createHash("sha256");
  const names = createHash("sha256");
  const lengths = new Uint32Array(units.length * 4 + 1);
  lengths[units.length * 4] = units.length;
  let batch: string[] = [];
  let nameBatch: string[] = [];
  let size = 0;
  let bytes = new Uint8Array(1 << 22);
  const flush = () => {
    const joined = batch.join("");
    if (joined.length * 3 > bytes.length) bytes = new Uint8Array(joined.length * 3);
    texts.update(bytes.subarray(0, encoder.encodeInto(joined, bytes).written));
    names.update(nameBatch.join("\u0000"));
    batch = [];
    nameBatch = [];
    size = 0;
  };
  for (let i = 0; i < units.length; i++) {
    const unit = units[i];
    lengths[i * 4] = unit.id.length;
    lengths[i * 4 + 1] = unit.doc_id.length;
    lengths[i * 4 + 2] = unit.title.length;
    lengths[i * 4 + 3] = unit.text.length;
    batch.push(unit.text);
    nameBatch.push(unit.id, unit.doc_id, unit.title);
    size += unit.text.length;
    if (size >= 1 << 20) flush();
  }
  flush();
  return createHash("sha256")
    .update(new Uint8Array(lengths.buffer))
    .update(texts.digest("hex"))
    .update(names.digest("hex"))
    .digest("hex");
}
