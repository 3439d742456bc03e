/**
 * A count with its noun in the right number: `1 system`, `2 systems`,
 * `0 questions`. Every count ragbench prints goes through here, so that no
 * message says "1 systems".
 *
 * @module
 */

/** `1 system`, `2 systems`; `nouns` for an irregular plural (`1 entry`, `3 entries`). */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
