/**
 * The re2-wasm instance behind `re2.ts`, and what contains it (the rules are
 * listed in re2.ts's module doc): loading with no permission and lazily
 * (Node's modules included), the fixed 16 MiB heap with its probe and the
 * swap to a fresh instance before it fills, recovery from an out-of-memory
 * abort ({@link withEngine}, {@link Re2MemoryError}), the small LRU cache of
 * compiled patterns freed when dropped, and the counters tests read.
 *
 * @module
 */

/** Compiled patterns kept alive per engine instance. */
const CACHE_SIZE = 8;
/** Compilations between two heap probes. */
const PROBE_EVERY = 32;
/** Size of the probe allocation; also the headroom the probe insists on. */
const PROBE_BYTES = 2 * 1024 * 1024;
/** The heap of re2-wasm 1.0.2 (fixed at build time, never grows). */
const HEAP_BYTES = 16 * 1024 * 1024;

/** Counters of the engine, for tests and benchmarks. */
export interface Re2Stats {
  /** Engine instances loaded so far (1 after the first compilation). */
  instances: number;
  /** Instances replaced because the heap probe found it nearly full. */
  proactiveRecycles: number;
  /** Instances replaced because the engine aborted (out of memory). */
  abortRecycles: number;
  /** Successful and failed compilations in the engine. */
  compilations: number;
  /** Compiled patterns freed when dropped from the cache. */
  evictions: number;
  /** Patterns in the cache now. */
  cached: number;
}

/** The engine ran out of memory on one pattern even with a fresh instance. */
export class Re2MemoryError extends RangeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "Re2MemoryError";
  }
}

/** The embind class of the package's wasm module (see re2-wasm's wasm/re2.d.ts). */
export interface WrappedRe2 {
  ok(): boolean;
  error(): string;
  match(input: string | Uint8Array, start: number, groups: boolean): {
    match: string;
    index: number;
  };
  delete(): void;
}

/** The parts of the emscripten module used here. */
export interface Re2Module {
  WrappedRE2: new (
    pattern: string,
    ignoreCase: boolean,
    multiline: boolean,
    dotAll: boolean,
  ) => WrappedRe2;
  _malloc(size: number): number;
  _free(pointer: number): void;
}

interface Loader {
  load(): Re2Module;
}

interface Instance {
  module: Re2Module;
  /** Compilations since the last probe. */
  sinceProbe: number;
  /** No operation has completed on it yet. */
  fresh: boolean;
}

let loader: Promise<Loader> | undefined;
let ready: Loader | undefined;
let instance: Instance | undefined;
/** Compiled patterns of the current instance, least recently used first. */
const cache = new Map<string, WrappedRe2>();
const stats = {
  instances: 0,
  proactiveRecycles: 0,
  abortRecycles: 0,
  compilations: 0,
  evictions: 0,
};

/**
 * The compiled form of a pattern in the current instance: from the cache
 * (least recently used dropped and freed past {@link CACHE_SIZE}), else
 * compiled now. `key` tells case-sensitive and insensitive forms apart.
 *
 * @throws {SyntaxError} with RE2's message when the pattern does not compile.
 */
export function compiledPattern(
  module: Re2Module,
  key: string,
  re2Source: string,
  ignoreCase: boolean,
): WrappedRe2 {
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const wrapped = compileIn(module, re2Source, ignoreCase);
  if (!wrapped.ok()) {
    const message = wrapped.error();
    wrapped.delete();
    throw new SyntaxError(message);
  }
  cache.set(key, wrapped);
  while (cache.size > CACHE_SIZE) {
    const [dropped, oldest] = cache.entries().next().value!;
    cache.delete(dropped);
    oldest.delete();
    stats.evictions++;
  }
  return wrapped;
}

function compileIn(module: Re2Module, pattern: string, ignoreCase: boolean): WrappedRe2 {
  stats.compilations++;
  const current = instance!;
  if (++current.sinceProbe >= PROBE_EVERY) {
    current.sinceProbe = 0;
    if (!probeHeap(module)) {
      // The probe found the heap nearly full: start over before a user call fails.
      stats.proactiveRecycles++;
      replaceInstance();
      return compileIn(instance!.module, pattern, ignoreCase);
    }
  }
  return new module.WrappedRE2(pattern, ignoreCase, false, false);
}

/**
 * True when the heap still has {@link PROBE_BYTES} free below its last
 * {@link PROBE_BYTES}. The probe block comes from the lowest free region large
 * enough, so its address tracks how far the heap has filled.
 */
function probeHeap(module: Re2Module): boolean {
  let pointer = 0;
  try {
    pointer = module._malloc(PROBE_BYTES);
  } catch {
    return false;
  }
  if (pointer === 0) return false;
  module._free(pointer);
  return pointer + PROBE_BYTES <= HEAP_BYTES - PROBE_BYTES;
}

/**
 * Runs `operation` on the current instance. An abort of the engine (a
 * `WebAssembly.RuntimeError`, in practice out of memory) discards the
 * instance, and the operation is retried once on a fresh one, unless it
 * already failed on a fresh one (then retrying cannot help).
 *
 * @throws {Re2MemoryError} when the operation does not fit a fresh instance.
 */
export function withEngine<T>(operation: (module: Re2Module) => T): T {
  for (let attempt = 0;; attempt++) {
    if (instance === undefined) replaceInstance();
    const current = instance!;
    try {
      const result = operation(current.module);
      current.fresh = false;
      return result;
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      stats.abortRecycles++;
      replaceInstance();
      if (current.fresh || attempt > 0) {
        throw new Re2MemoryError(
          "The regex engine ran out of memory on this pattern and text. Use a simpler " +
            "pattern (fewer alternatives or repetitions), or search plain words (regex: false).",
          { cause: error },
        );
      }
    }
  }
}

/** Drops the current instance (and its cache) and loads a fresh one. */
function replaceInstance(): void {
  if (ready === undefined) {
    throw new TypeError("re2: call loadEngine() (or compileRegex) before matching");
  }
  // The old instance's memory goes with its module object; its compiled
  // patterns need no delete() (and after an abort must not be called).
  cache.clear();
  instance = undefined;
  instance = { module: ready.load(), sinceProbe: 0, fresh: true };
  stats.instances++;
}

/** Whether {@link loadEngine} has finished (synchronous callers may compile). */
export function engineLoaded(): boolean {
  return ready !== undefined;
}

/**
 * Loads the engine once (later calls return at once). Safe to call
 * concurrently. Needs no permission (see the module doc).
 */
export async function loadEngine(): Promise<void> {
  loader ??= createLoader();
  ready = await loader;
  if (instance === undefined) replaceInstance();
}

async function createLoader(): Promise<Loader> {
  // Node's modules load with the engine, not with this file: the sandbox worker imports it, and
  // node compatibility costs a worker tens of milliseconds of start-up that a run without a regex
  // never needs.
  const [
    { default: bytes },
    { default: fs },
    { default: path },
    { createRequire },
    { fileURLToPath },
  ] = await Promise.all([
    import("re2-wasm/build/wasm/re2.wasm", { with: { type: "bytes" } }),
    import("node:fs"),
    import("node:path"),
    import("node:module"),
    import("node:url"),
  ]);
  // The package's main file (build/src/re2.js) sits next to build/wasm/.
  const main = import.meta.resolve("re2-wasm");
  const gluePath = fileURLToPath(new URL("../wasm/re2.js", main));
  const wasmPath = path.normalize(fileURLToPath(new URL("../wasm/re2.wasm", main)));
  return {
    load(): Re2Module {
      const readFileSync = fs.readFileSync;
      const restoreConsole = quietConsole();
      fs.readFileSync = function (file: unknown, ...rest: unknown[]) {
        if (typeof file === "string" && path.normalize(file) === wasmPath) return bytes;
        return Reflect.apply(readFileSync, fs, [file, ...rest]);
      } as typeof fs.readFileSync;
      try {
        // A fresh evaluation of the glue is a fresh wasm instance with an empty heap. A new
        // require each time: a require function's parent module keeps every module it loaded
        // (in `children`), which would keep each discarded instance alive.
        const require = createRequire(main);
        delete require.cache[gluePath];
        return require(gluePath) as Re2Module;
      } finally {
        delete createRequire(main).cache[gluePath];
        fs.readFileSync = readFileSync;
        restoreConsole();
      }
    },
  };
}

/**
 * Silences console.warn/log until the returned function is called. The glue
 * binds them when it loads and prints every abort through them; an abort is
 * handled here, so its text must not reach the terminal.
 */
function quietConsole(): () => void {
  const { warn, log } = console;
  // deno-lint-ignore no-console
  console.warn = console.log = ignore;
  return () => {
    // deno-lint-ignore no-console
    console.warn = warn;
    // deno-lint-ignore no-console
    console.log = log;
  };
}

function ignore(): void {}

/** The engine's counters (see {@link Re2Stats}). */
export function re2Stats(): Re2Stats {
  return { ...stats, cached: cache.size };
}

/**
 * Where a fresh 2 MiB block lands in the current instance's heap, in bytes:
 * it rises as the heap fills, so tests can tell a leak. Undefined before the
 * engine is loaded.
 */
export function re2HeapProbe(): number | undefined {
  if (instance === undefined) return undefined;
  const pointer = instance.module._malloc(PROBE_BYTES);
  instance.module._free(pointer);
  return pointer;
}

/**
 * Test hook: takes `bytes` of the current instance's heap and never gives
 * them back, as a leak would; by default all of it, until the engine aborts.
 * Later calls must still answer (on a fresh instance when needed).
 */
export function exhaustHeapForTest(bytes = Infinity): void {
  if (instance === undefined) throw new TypeError("re2: engine not loaded");
  const module = instance.module;
  const block = 64 * 1024;
  try {
    for (let taken = 0; taken < bytes; taken += block) module._malloc(block);
  } catch {
    // The abort of a full heap: this instance has no room left.
  }
}
