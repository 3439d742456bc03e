/**
 * Compiles a WebAssembly kernel committed as base64 (see scripts/wasm_kernel.ts)
 * once, on first use: no permission is needed, and it works inside a
 * compiled binary.
 *
 * @module
 */

/** Bytes in a WebAssembly memory page. */
export const PAGE = 65_536;
/** Largest wasm32 memory, in pages (4 GiB). */
export const MAX_PAGES = 65_536;

/** A function returning the module of `base64`, compiled on its first call and kept. */
export function lazyKernelModule(base64: string): () => WebAssembly.Module {
  let compiled: WebAssembly.Module | null = null;
  return () => {
    if (compiled === null) {
      const binary = atob(base64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      compiled = new WebAssembly.Module(bytes);
    }
    return compiled;
  };
}
