/**
 * The hash table under the term interner (term_interner.ts): keys are
 * non-empty runs of UTF-16 units, looked up by a range of a string or of
 * lower-cased ASCII bytes without making a string, with FNV-1a hashes the
 * interner's ASCII loop computes itself.
 *
 * @module
 */

/** FNV-1a offset basis (32-bit). */
export const FNV_OFFSET = 0x811c9dc5 | 0;
/** FNV-1a prime (32-bit). */
export const FNV_PRIME = 0x01000193;
/** Returned by a lookup that finds nothing. */
export const MISSING = -2;

/** The last mixing step of every hash of the table (after FNV-1a). */
export function finishHash(h: number): number {
  return h ^ (h >>> 15);
}

/** FNV-1a over UTF-16 units `text[s..e)`, the same function the ASCII path computes on bytes. */
export function hashRange(text: string, s: number, e: number): number {
  let h = FNV_OFFSET;
  for (let i = s; i < e; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return finishHash(h);
}

// Slot layout of UnitTable: 8 ints (32 bytes, two slots per cache line).
const SLOT = 8;
const S_HASH = 0;
/** Key length + 1; 0 marks an empty slot. */
const S_LENGTH = 1;
const S_VALUE = 2;
/** Offset in the pool of the key's units past the first {@link INLINE}. */
const S_POOL = 3;
/** The key's first 8 UTF-16 units, two per int, in ints 4..7. */
const S_UNITS = 4;
const INLINE = 8;

/** A {@link UnitTable}'s arrays, as saved with an index. */
export interface UnitTableImage {
  /** 8 ints a slot: hash, key length + 1, value, pool offset, the first 8 units. */
  slots: Int32Array<ArrayBuffer>;
  /** Units of the keys longer than 8, past their first 8. */
  pool: Uint16Array<ArrayBuffer>;
  /** Keys stored. */
  count: number;
}

/**
 * A hash table from non-empty strings, or ranges of a string or of ASCII
 * bytes, to int values. Open addressing with linear probing over FNV-1a
 * hashes, at most 60% full. A slot keeps a key's first eight characters
 * beside its hash, so most lookups touch a single cache line; longer keys
 * keep the rest in one shared pool.
 *
 * Why not a `Map<string, number>`: keying a `Map` needs a string per lookup,
 * and allocating and hashing hundreds of thousands of new strings per
 * second is what made the first version of the index build slow.
 */
export class UnitTable {
  #slots = new Int32Array(SLOT << 10);
  #mask = (1 << 10) - 1;
  #pool = new Uint16Array(1 << 12);
  #poolUsed = 0;
  #count = 0;

  /** Keys stored. */
  get size(): number {
    return this.#count;
  }

  /** The value of the lower-cased ASCII key `bytes[s..e)` whose hash is `h`, or MISSING. */
  findBytes(bytes: Uint8Array, s: number, e: number, h: number): number {
    const len = e - s;
    const slots = this.#slots;
    const mask = this.#mask;
    const inline = len < INLINE ? len : INLINE;
    probe: for (let j = h & mask;; j = (j + 1) & mask) {
      const at = j * SLOT;
      const stored = slots[at + S_LENGTH];
      if (stored === 0) return MISSING;
      if (slots[at + S_HASH] !== h || stored !== len + 1) continue;
      // Whole pairs of units, then the odd last one (its high half is 0).
      const pairs = inline & ~1;
      for (let k = 0; k < pairs; k += 2) {
        const pair = (bytes[s + k] | 32) | ((bytes[s + k + 1] | 32) << 16);
        if (slots[at + S_UNITS + (k >> 1)] !== pair) continue probe;
      }
      if (pairs !== inline && slots[at + S_UNITS + (pairs >> 1)] !== (bytes[s + pairs] | 32)) {
        continue;
      }
      const from = slots[at + S_POOL];
      const pool = this.#pool;
      for (let k = INLINE; k < len; k++) {
        if (pool[from + k - INLINE] !== (bytes[s + k] | 32)) continue probe;
      }
      return slots[at + S_VALUE];
    }
  }

  /** The value of the key `text[s..e)` whose hash is `h`, or MISSING. */
  findString(text: string, s: number, e: number, h: number): number {
    const len = e - s;
    const slots = this.#slots;
    const mask = this.#mask;
    const inline = len < INLINE ? len : INLINE;
    probe: for (let j = h & mask;; j = (j + 1) & mask) {
      const at = j * SLOT;
      const stored = slots[at + S_LENGTH];
      if (stored === 0) return MISSING;
      if (slots[at + S_HASH] !== h || stored !== len + 1) continue;
      for (let k = 0; k < inline; k += 2) {
        const high = k + 1 < len ? text.charCodeAt(s + k + 1) << 16 : 0;
        if (slots[at + S_UNITS + (k >> 1)] !== (text.charCodeAt(s + k) | high)) continue probe;
      }
      const from = slots[at + S_POOL];
      const pool = this.#pool;
      for (let k = INLINE; k < len; k++) {
        if (pool[from + k - INLINE] !== text.charCodeAt(s + k)) continue probe;
      }
      return slots[at + S_VALUE];
    }
  }

  /** The value of `key`, or MISSING. */
  get(key: string): number {
    return key === ""
      ? MISSING
      : this.findString(key, 0, key.length, hashRange(key, 0, key.length));
  }

  /** Stores `value` for `key` (non-empty, not stored yet) whose hash is `h`. */
  insert(key: string, h: number, value: number): void {
    if ((this.#count + 1) * 5 > (this.#mask + 1) * 3) this.#rehash((this.#mask + 1) * 2);
    this.#count++;
    const len = key.length;
    let from = 0;
    if (len > INLINE) {
      if (this.#poolUsed + len > this.#pool.length) {
        const pool = new Uint16Array(Math.max(this.#pool.length * 2, this.#poolUsed + len));
        pool.set(this.#pool);
        this.#pool = pool;
      }
      from = this.#poolUsed;
      for (let k = INLINE; k < len; k++) this.#pool[this.#poolUsed++] = key.charCodeAt(k);
    }
    const slots = this.#slots;
    const mask = this.#mask;
    let j = h & mask;
    while (slots[j * SLOT + S_LENGTH] !== 0) j = (j + 1) & mask;
    const at = j * SLOT;
    slots[at + S_HASH] = h;
    slots[at + S_LENGTH] = len + 1;
    slots[at + S_VALUE] = value;
    slots[at + S_POOL] = from;
    for (let k = 0; k < INLINE && k < len; k += 2) {
      const high = k + 1 < len ? key.charCodeAt(k + 1) << 16 : 0;
      slots[at + S_UNITS + (k >> 1)] = key.charCodeAt(k) | high;
    }
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#slots.byteLength + this.#pool.byteLength;
  }

  /**
   * The table's arrays as they are (not copies), for saving an index: `slots`
   * (8 ints a slot) and the used part of `pool`. {@link UnitTable.fromImage}
   * gives back a table with the same lookups.
   */
  image(): UnitTableImage {
    return { slots: this.#slots, pool: this.#pool.subarray(0, this.#poolUsed), count: this.#count };
  }

  /**
   * A table over saved arrays (kept, not copied). Checks what the lookups rely on, so a damaged
   * image cannot make a probe loop for ever or read outside the pool: a power-of-two slot count,
   * `count` equal to the slots in use and at most 60% of them, every long key's units inside the
   * pool, every value in `0..maxValue`.
   *
   * @throws {RangeError} naming what does not hold.
   */
  static fromImage(image: UnitTableImage, maxValue: number): UnitTable {
    const { slots, pool, count } = image;
    const size = slots.length / SLOT;
    if (!Number.isInteger(size) || size < 1 || (size & (size - 1)) !== 0) {
      throw new RangeError(`term table: ${slots.length} ints is not a power-of-two slot count`);
    }
    let used = 0;
    for (let at = 0; at < slots.length; at += SLOT) {
      const stored = slots[at + S_LENGTH];
      if (stored === 0) continue;
      used++;
      const len = stored - 1;
      const value = slots[at + S_VALUE];
      if (len < 1 || value < 0 || value > maxValue) {
        throw new RangeError(`term table: slot ${at / SLOT} holds a bad key length or value`);
      }
      const from = slots[at + S_POOL];
      if (len > INLINE && (from < 0 || from + len - INLINE > pool.length)) {
        throw new RangeError(`term table: slot ${at / SLOT} points outside the pool`);
      }
    }
    if (used !== count || count * 5 > size * 3) {
      throw new RangeError(`term table: ${used} slots in use, ${count} expected, of ${size}`);
    }
    const table = new UnitTable();
    table.#slots = slots;
    table.#mask = size - 1;
    table.#pool = pool;
    table.#poolUsed = pool.length;
    table.#count = count;
    return table;
  }

  /**
   * Frees the table's memory now (detaching its buffers returns them at once, where the
   * garbage collector might keep them for a while) and leaves it empty and usable.
   */
  clear(): void {
    this.#slots.buffer.transfer(0);
    this.#pool.buffer.transfer(0);
    this.#slots = new Int32Array(SLOT << 10);
    this.#mask = (1 << 10) - 1;
    this.#pool = new Uint16Array(1 << 12);
    this.#poolUsed = 0;
    this.#count = 0;
  }

  #rehash(size: number): void {
    const old = this.#slots;
    const slots = new Int32Array(size * SLOT);
    const mask = size - 1;
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at + S_LENGTH] === 0) continue;
      let j = old[at + S_HASH] & mask;
      while (slots[j * SLOT + S_LENGTH] !== 0) j = (j + 1) & mask;
      // Slot by slot, not `set(subarray(...))`: a view per slot made growing slow.
      const to = j * SLOT;
      for (let k = 0; k < SLOT; k++) slots[to + k] = old[at + k];
    }
    // Freed now rather than at the next garbage collection, to keep the build's peak down.
    old.buffer.transfer(0);
    this.#slots = slots;
    this.#mask = mask;
  }
}
