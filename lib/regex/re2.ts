/**
 * The RE2 regular-expression engine (`npm:re2-wasm` 1.0.2), contained so that
 * hostile patterns and long runs cannot hurt the process. RE2 matches in time
 * linear in the text, so patterns such as `(a+)+$` cannot hang it.
 *
 * What this file guards against, each checked in tests/lib/regex/re2_test.ts:
 * - Loading needs no permission: the wasm bytes are imported as a module
 *   (`with { type: "bytes" }`, flag `--unstable-raw-imports`) and handed to the
 *   package's emscripten glue through a short-lived `fs.readFileSync` shim, so
 *   it works in a worker that has no read permission. Loading is lazy: nothing
 *   is loaded until the first pattern is compiled (Node's `fs` and `module`
 *   included, so a worker that never compiles one never starts Node
 *   compatibility).
 * - The wasm heap is 16 MiB and never grows. Compiled patterns are kept in a
 *   small LRU cache and freed (`delete()`) when dropped; a rejected pattern is
 *   freed at once (the package's own `RE2` class leaks it). Every few
 *   compilations a probe checks how high the heap is filled and swaps in a
 *   fresh instance before it is full.
 * - An out-of-memory abort inside the engine never escapes: the instance is
 *   discarded, a fresh one is loaded and the operation retried once; if it
 *   fails again it is reported as {@link Re2MemoryError}.
 * - Match positions are reported by the engine in code points (not UTF-16
 *   units); {@link Re2Match.index} says so.
 *
 * Patterns use RE2 syntax, plus the JavaScript spellings `\uXXXX`, `\u{...}`
 * and `(?<name>...)`; {@link compileRegex} first refuses what RE2 cannot do
 * (back-references, look-around; see re2_syntax.ts) with a message saying
 * what to do instead.
 *
 * @module
 */

import { type Re2Refusal, toLineMode, toRe2Syntax, vetPattern } from "./re2_syntax.ts";

export type { Re2Refusal } from "./re2_syntax.ts";

/** Compiled patterns kept alive per engine instance. */
const CACHE_SIZE = 8;
/** Compilations between two heap probes. */
const PROBE_EVERY = 32;
/** Size of the probe allocation; also the headroom the probe insists on. */
const PROBE_BYTES = 2 * 1024 * 1024;
/** The heap of re2-wasm 1.0.2 (fixed at build time, never grows). */
const HEAP_BYTES = 16 * 1024 * 1024;

/** A match found by {@link Re2Regex.search}. */
export interface Re2Match {
  /** Where the match starts, in code points from the start of the subject (not UTF-16 units). */
  index: number;
  /** The matched text. */
  text: string;
}

/** Options of {@link compileRegex}. */
export interface Re2Options {
  /** Default false: letters match either case. */
  caseSensitive?: boolean;
  /**
   * Default false. Rewrite the pattern with {@link toLineMode}, for subjects
   * that are several lines joined by `\n` and searched as separate lines.
   */
  lineMode?: boolean;
  /** Longest pattern accepted, in characters; default 200 (see re2_syntax.ts). */
  maxChars?: number;
}

/** Result of {@link compileRegex}. */
export type Re2Compiled = { ok: true; regex: Re2Regex } | Re2Refusal;

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
interface WrappedRe2 {
  ok(): boolean;
  error(): string;
  match(input: string | Uint8Array, start: number, groups: boolean): {
    match: string;
    index: number;
  };
  delete(): void;
}

/** The parts of the emscripten module used here. */
interface Re2Module {
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
 * Vets and compiles a pattern (JavaScript spellings accepted, see
 * {@link toRe2Syntax}). Loads the engine on first use.
 */
export async function compileRegex(
  pattern: string,
  options: Re2Options = {},
): Promise<Re2Compiled> {
  const refusal = vetPattern(pattern, options);
  if (refusal) return refusal;
  await loadEngine();
  return compileRegexSync(pattern, options);
}

/**
 * {@link compileRegex} without waiting, for synchronous callers (scoring)
 * that loaded the engine before ({@link loadEngine}, or any earlier
 * {@link compileRegex}).
 *
 * @throws {TypeError} when the engine was never loaded.
 */
export function compileRegexSync(pattern: string, options: Re2Options = {}): Re2Compiled {
  const refusal = vetPattern(pattern, options);
  if (refusal) return refusal;
  if (ready === undefined) {
    throw new TypeError("re2: call loadEngine() (or compileRegex) before compileRegexSync");
  }
  const caseSensitive = options.caseSensitive ?? false;
  const re2Source = toRe2Syntax(pattern);
  const regex = new Re2Regex(
    options.lineMode ? toLineMode(re2Source) : re2Source,
    caseSensitive,
    pattern,
  );
  let error: string | undefined;
  try {
    error = regex.compileError();
    if (error !== undefined && options.lineMode) {
      // Report the error against the pattern as written, not its rewrite.
      error = new Re2Regex(re2Source, caseSensitive).compileError() ?? error;
    }
  } catch (failure) {
    if (!(failure instanceof Re2MemoryError)) throw failure;
    return {
      ok: false,
      reason: "too_large",
      message: `The regex /${pattern}/ compiles to more than the regex engine's memory holds. ` +
        "Use fewer or smaller repetitions (e.g. {3} instead of {300}) and narrower classes, " +
        "or search plain words (regex: false).",
      detail: "it compiles to more than the regex engine's memory holds",
    };
  }
  if (error !== undefined) {
    return {
      ok: false,
      reason: "syntax",
      message: `Invalid regex /${pattern}/: ${error}. Patterns use RE2 syntax (no ` +
        "back-references or look-around); fix the pattern, or search plain words (regex: false).",
      detail: error,
    };
  }
  return { ok: true, regex };
}

/**
 * A compiled RE2 pattern. It holds no engine memory itself: the compiled form
 * lives in the engine's cache and is rebuilt when it was dropped or the
 * instance was replaced, so a handle stays valid for the whole process.
 */
export class Re2Regex {
  /** The pattern as given to {@link compileRegex}. */
  readonly source: string;
  /** The pattern after {@link toRe2Syntax}, as RE2 compiles it. */
  readonly re2Source: string;
  readonly caseSensitive: boolean;
  readonly #key: string;

  /** Use {@link compileRegex}; this constructor does not check the pattern. */
  constructor(re2Source: string, caseSensitive: boolean, source = re2Source) {
    this.source = source;
    this.re2Source = re2Source;
    this.caseSensitive = caseSensitive;
    this.#key = `${caseSensitive ? "s" : "i"}${re2Source}`;
  }

  /**
   * The first (leftmost) match in `subject`, or null. A Uint8Array subject is
   * UTF-8 text (faster: no conversion). Lone surrogates in a string subject
   * must be replaced first (`toWellFormed()`): the engine's string
   * conversion would swallow the unit after them.
   *
   * @throws {Re2MemoryError} when the engine runs out of memory on this
   * pattern and subject even after a fresh start.
   * @throws {SyntaxError} when the pattern does not compile.
   */
  search(subject: string | Uint8Array): Re2Match | null {
    const result = withEngine((module) => {
      const wrapped = this.#wrapped(module);
      return wrapped.match(subject, 0, false);
    });
    return result.index < 0 ? null : { index: result.index, text: result.match };
  }

  /** Whether `subject` contains a match (see {@link search}). */
  test(subject: string | Uint8Array): boolean {
    return this.search(subject) !== null;
  }

  /** RE2's error for this pattern, or undefined when it compiles. */
  compileError(): string | undefined {
    try {
      withEngine((module) => this.#wrapped(module));
      return undefined;
    } catch (error) {
      if (error instanceof SyntaxError) return error.message;
      throw error;
    }
  }

  #wrapped(module: Re2Module): WrappedRe2 {
    const cached = cache.get(this.#key);
    if (cached !== undefined) {
      cache.delete(this.#key);
      cache.set(this.#key, cached);
      return cached;
    }
    const wrapped = compileIn(module, this.re2Source, !this.caseSensitive);
    if (!wrapped.ok()) {
      const message = wrapped.error();
      wrapped.delete();
      throw new SyntaxError(message);
    }
    cache.set(this.#key, wrapped);
    while (cache.size > CACHE_SIZE) {
      const [key, oldest] = cache.entries().next().value!;
      cache.delete(key);
      oldest.delete();
      stats.evictions++;
    }
    return wrapped;
  }
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
function withEngine<T>(operation: (module: Re2Module) => T): T {
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
