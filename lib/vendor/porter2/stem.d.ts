/**
 * Porter2 English stemmer. Works on lowercase text only.
 *
 * @example
 * ```
 * stem('animadversion') //=> 'animadvers'
 * ```
 */
export function stem(word: string): string
