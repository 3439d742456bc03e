/**
 * SHA-256 without Node's crypto at start-up.
 *
 * `node:crypto` is fast (its native SHA-256 hashes ~1.1 GB/s here) but its
 * first import costs ~11 ms, most of it Deno's Node emulation
 * (`node:process` and what that pulls in), which a `--mock` run needs for
 * nothing else. So hashing starts on `@noble/hashes` (pure JavaScript, ~3 ms
 * to load, ~150 MB/s), which is plenty for what every run hashes: the
 * manifest's config values and small input files. Code about to hash a lot
 * — a large file, a cache keyed on every model call or embedded text —
 * calls {@link useNativeSha256} first; from then on every hash here runs on
 * `node:crypto`. Both give the same digests (a test holds them to it).
 *
 * Text is hashed as UTF-8; a lone surrogate becomes U+FFFD, as both
 * `TextEncoder` and Node's `Buffer` encode it.
 *
 * @module
 */

import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import type { createHash as nodeCreateHash } from "node:crypto";

/** An incremental SHA-256. */
export interface Sha256 {
  update(bytes: Uint8Array): void;
  /** The digest of everything given, lower-case hex; the hasher is spent after. */
  hex(): string;
}

let createNative: typeof nodeCreateHash | undefined;
let loadingNative: Promise<void> | undefined;

const encoder = new TextEncoder();

/**
 * Starts loading `node:crypto`; every hash after it has loaded runs on it.
 * Await the promise to hash natively from the next line on, or leave it:
 * the hashes made meanwhile are the same, only slower. It never rejects
 * (should the module not load, hashing stays on JavaScript).
 */
export function useNativeSha256(): Promise<void> {
  loadingNative ??= import("node:crypto").then(
    (crypto) => {
      createNative = crypto.createHash;
    },
    () => {},
  );
  return loadingNative;
}

/** Whether {@link useNativeSha256} has taken effect (for tests). */
export function nativeSha256InUse(): boolean {
  return createNative !== undefined;
}

/** SHA-256 of `data` (a string is hashed as UTF-8), lower-case hex or base64. */
export function sha256(data: string | Uint8Array, encoding: "hex" | "base64" = "hex"): string {
  if (createNative !== undefined) return createNative("sha256").update(data).digest(encoding);
  const digest = nobleSha256(typeof data === "string" ? encoder.encode(data) : data);
  return encoding === "hex" ? digest.toHex() : digest.toBase64();
}

/** An incremental SHA-256, for data that comes in chunks (a file read piece by piece). */
export function createSha256(): Sha256 {
  if (createNative !== undefined) {
    const hash = createNative("sha256");
    return { update: (bytes) => void hash.update(bytes), hex: () => hash.digest("hex") };
  }
  const hash = nobleSha256.create();
  return { update: (bytes) => void hash.update(bytes), hex: () => hash.digest().toHex() };
}
