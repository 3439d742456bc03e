/**
 * The time a run has left, system by system. Elapsed / done × remaining
 * assumes every question costs the same; it does not when one system is
 * slow (a code agent at 300 ms a question beside retrievers at 0.3 ms): the
 * runner lets the fast systems run ahead, so after most questions are done
 * the slow system's are still queued, and that estimate says "66 ms left"
 * for a run with seconds to go.
 *
 * Here a question of system s is taken to cost `a + w_s / c` of wall time:
 * `w_s` its mean latency so far (before its first finishes: at least as long
 * as its oldest question in flight has been running, so a slow system is not
 * taken for a fast one), `c` the concurrency, and `a` the
 * work around each question on the main thread (scoring, writing), measured
 * as what the elapsed time leaves over once the latencies are shared among
 * the slots. A system that has not started yet costs the mean latency of
 * all. When every system is alike this is elapsed / done × remaining again.
 * Pure: the caller gives the clock.
 *
 * @module
 */

/** One system's questions in this run. */
export interface SystemPace {
  /** Questions (× repeats) of this invocation. */
  total: number;
  done: number;
  /** Sum of the finished questions' latencies, in milliseconds. */
  latencyMs: number;
  /** When each question in flight started (the clock of {@link remainingMs}). */
  running: number[];
}

/** A system with nothing done yet. */
export function newPace(total: number): SystemPace {
  return { total, done: 0, latencyMs: 0, running: [] };
}

/** Milliseconds the run has left (see the module docs); NaN before any question finished. */
export function remainingMs(
  systems: Iterable<SystemPace>,
  options: { concurrency: number; elapsedMs: number; now: number },
): number {
  const all = [...systems];
  const done = all.reduce((n, s) => n + s.done, 0);
  if (done === 0) return NaN;
  const slots = Math.max(1, options.concurrency);
  const latency = all.reduce((n, s) => n + s.latencyMs, 0);
  const around = Math.max(0, (options.elapsedMs - latency / slots) / done);
  const mean = latency / done;
  let left = 0;
  for (const s of all) {
    const todo = s.total - s.done;
    if (todo <= 0) continue;
    const oldest = s.running.length ? options.now - Math.min(...s.running) : 0;
    const each = s.done > 0 ? s.latencyMs / s.done : Math.max(mean, oldest);
    left += todo * (around + each / slots);
  }
  return left;
}
