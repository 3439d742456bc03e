/**
 * Progress of a load that may take long (a question file of tens of MB): a
 * reporter that stays quiet for the first second, so ordinary loads print
 * nothing, and then says what it is doing at most once a second.
 *
 * @module
 */

/** Receives one progress line (the CLI prints it on stderr). */
export type ProgressSink = (text: string) => void;

/** Quiet for loads shorter than this, in milliseconds. */
export const QUIET_MS = 1000;

/** Reports the steps of one load; see {@link slowLoadReporter}. */
export interface LoadReporter {
  /** Reports `text` when the load has taken over a second and the last line is a second old. */
  step(text: string): void;
  /** Reports `text` when the load took over a second in all. */
  done(text: string): void;
  /** Milliseconds since the load started. */
  elapsed(): number;
}

/**
 * A reporter for one load, started now. `sink` undefined reports nothing;
 * `now` is injectable for tests (milliseconds).
 */
export function slowLoadReporter(
  sink: ProgressSink | undefined,
  now: () => number = () => performance.now(),
): LoadReporter {
  const start = now();
  let last = -Infinity;
  const elapsed = () => now() - start;
  return {
    step(text) {
      const at = elapsed();
      if (sink === undefined || at < QUIET_MS || at - last < QUIET_MS) return;
      last = at;
      sink(`${text} (${seconds(at)})`);
    },
    done(text) {
      const at = elapsed();
      if (sink !== undefined && at >= QUIET_MS) sink(`${text} in ${seconds(at)}`);
    },
    elapsed,
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
