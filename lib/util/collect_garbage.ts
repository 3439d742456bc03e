/**
 * One full garbage collection on request, for the moment a big corpus has
 * been loaded and its indexes built and the run has not started its
 * questions: the load's JSON text and parse objects and the builds'
 * temporaries are then returned at once instead of growing the heap V8
 * commits before its first major collection. Measured at 100,000 documents
 * (105 MB of text; docs/benchmarks.md, bench_big_corpus): the run's peak RSS
 * 790 MB without, 621 MB with this one collection, in no more time (6.6 s
 * against 7.3–7.5 s). A second collection right after the load went to
 * 592 MB but cost ~0.9 s more, so there is one.
 *
 * V8 exposes `gc` only with `--expose-gc`; `node:v8`'s `setFlagsFromString`
 * sets it at run time (no permission needed) and `node:vm` hands the
 * function out of a fresh context. A process where that fails goes on
 * without the collection: it only saves memory.
 *
 * @module
 */

/** Characters of corpus text below which a collection is not worth its pause. */
export const COLLECT_AFTER_CHARS = 20_000_000;

let collect: (() => void) | null | undefined;

/**
 * V8's `gc`, exposed once; null when this runtime does not give it. The
 * `node:` modules load only here: a run of a small corpus never pays for them.
 */
async function gcFunction(): Promise<(() => void) | null> {
  if (collect !== undefined) return collect;
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([
      import("node:v8"),
      import("node:vm"),
    ]);
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    collect = typeof gc === "function" ? () => (gc as () => void)() : null;
  } catch {
    collect = null;
  }
  return collect;
}

/**
 * Runs one full collection when `chars` (what was just loaded) is at least
 * {@link COLLECT_AFTER_CHARS}; returns whether it ran.
 */
export async function collectAfterBigLoad(chars: number): Promise<boolean> {
  if (chars < COLLECT_AFTER_CHARS) return false;
  const gc = await gcFunction();
  if (gc === null) return false;
  gc();
  return true;
}
