/**
 * Integer helpers the rational arithmetic needs and BigInt lacks: bit
 * length, a fast gcd, and a floating-point log10 for size estimates.
 *
 * @module
 */

/** Number of bits of |n| (0 for 0). */
export function bitLength(n: bigint): number {
  if (n < 0n) n = -n;
  // Shifts are cheap (n.toString(16) is ten times slower on 3000-digit numbers):
  // bracket the length by doubling, then bisect down to a 32-bit window.
  let low = 0;
  let high = 64;
  while (n >> BigInt(high) !== 0n) {
    low = high;
    high *= 2;
  }
  while (high - low > 32) {
    const middle = (low + high) >>> 1;
    if (n >> BigInt(middle) !== 0n) low = middle;
    else high = middle;
  }
  return low + 32 - Math.clz32(Number(n >> BigInt(low)));
}

/** log10(|n|) as a float (good to about 15 digits); -Infinity for 0. */
export function log10Abs(n: bigint): number {
  if (n < 0n) n = -n;
  const bits = bitLength(n);
  if (bits <= 1000) return Math.log10(Number(n));
  const shift = bits - 64;
  return Math.log10(Number(n >> BigInt(shift))) + shift * Math.LOG10E * Math.LN2;
}

// Top bits used by Lehmer's inner loop: small enough that every intermediate
// (cofactors and partial remainders, all below 2^51) is exact in a double.
const LEHMER_BITS = 50;

/**
 * Greatest common divisor of |a| and |b| (gcd(0, 0) = 0).
 *
 * Lehmer's algorithm (Knuth, TAOCP vol. 2, 4.5.2, Algorithm L): most
 * Euclidean steps are simulated on the leading 50 bits in doubles and applied
 * to the big numbers at once, which is about ten times faster than plain
 * Euclid on 3000-digit numbers.
 */
export function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  if (a < b) [a, b] = [b, a];
  let size = bitLength(a);
  while (b !== 0n) {
    size = shrunkBitLength(a, size);
    if (size <= 64) return euclid(a, b);
    const shift = BigInt(size - LEHMER_BITS);
    let uh = Number(a >> shift);
    let vh = Number(b >> shift);
    let A = 1, B = 0, C = 0, D = 1;
    while (vh + C !== 0 && vh + D !== 0) {
      const q = floorDivide(uh + A, vh + C);
      if (q !== floorDivide(uh + B, vh + D)) break;
      let t = A - q * C;
      A = C;
      C = t;
      t = B - q * D;
      B = D;
      D = t;
      t = uh - q * vh;
      uh = vh;
      vh = t;
    }
    if (B === 0) {
      const r = a % b;
      a = b;
      b = r;
    } else {
      const nextA = BigInt(A) * a + BigInt(B) * b;
      const nextB = BigInt(C) * a + BigInt(D) * b;
      a = nextA;
      b = nextB;
    }
  }
  return a;
}

/** bitLength(n) for n < 2^previous, cheap when it shrank by at most 64 bits. */
function shrunkBitLength(n: bigint, previous: number): number {
  let low = Math.max(0, previous - 64);
  if (low > 0 && n >> BigInt(low) === 0n) return bitLength(n);
  let high = previous;
  while (high - low > 32) {
    const middle = (low + high) >>> 1;
    if (n >> BigInt(middle) !== 0n) low = middle;
    else high = middle;
  }
  return low + 32 - Math.clz32(Number(n >> BigInt(low)));
}

function euclid(a: bigint, b: bigint): bigint {
  while (b !== 0n) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/** floor(x / y) for integers |x|, |y| < 2^52 held in doubles, exact despite float division. */
function floorDivide(x: number, y: number): number {
  let q = Math.floor(x / y);
  let r = x - q * y;
  if (y > 0) {
    for (; r < 0; r += y) q--;
    for (; r >= y; r -= y) q++;
  } else {
    for (; r > 0; r += y) q--;
    for (; r <= y; r -= y) q++;
  }
  return q;
}
