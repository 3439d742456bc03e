/**
 * A `Uint32Array` that grows by doubling as numbers are pushed: the line
 * index is built before its size is known, and a plain `number[]` of a
 * million lines costs several times the memory and a copy at the end anyway.
 *
 * @module
 */

/** Numbers pushed one at a time into a doubling `Uint32Array`. */
export class GrowingUint32 {
  #values: Uint32Array;
  #length = 0;

  /** `capacity`: room to start with (an exact count makes {@link done} free). */
  constructor(capacity = 16) {
    this.#values = new Uint32Array(Math.max(1, Math.ceil(capacity)));
  }

  /** Numbers pushed so far. */
  get length(): number {
    return this.#length;
  }

  /** Appends `value` (an unsigned 32-bit integer). */
  push(value: number): void {
    if (this.#length === this.#values.length) {
      const next = new Uint32Array(this.#values.length * 2);
      next.set(this.#values);
      this.#values = next;
    }
    this.#values[this.#length++] = value;
  }

  /** The numbers pushed, as an array of exactly that length (the spare room is given back). */
  done(): Uint32Array {
    if (this.#values.length !== this.#length) this.#values = this.#values.slice(0, this.#length);
    return this.#values;
  }
}
