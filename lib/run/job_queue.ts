/**
 * The order the runner takes its jobs in: plan order (question, then system),
 * except that a job whose system is not ready yet (its tools are still
 * loading, see `PlannedSystem.ready`) is set aside and the next job taken
 * instead. When the system becomes ready its set-aside jobs come first, in
 * plan order. So a slow-starting system holds no concurrency slot while it
 * loads, and the others run meanwhile.
 *
 * @module
 */

/** What the queue needs of a job: its system's readiness. */
export interface QueuedJob {
  system: { ready?: Promise<void> };
}

/** The next job, or why there is none now. */
export type Taken<J> =
  | { kind: "job"; job: J }
  /** Every job left waits for a system to get ready: wait for `until`, then take again. */
  | { kind: "wait"; until: Promise<void> }
  | { kind: "done" }
  /** A system could not get ready: its `ready` rejected with `error`. */
  | { kind: "failed"; error: unknown };

/** Jobs in plan order, with the jobs of systems not yet ready set aside. */
export class JobQueue<J extends QueuedJob> {
  readonly #jobs: readonly J[];
  #next = 0;
  /** Set-aside jobs of each system whose `ready` has not settled. */
  readonly #waiting = new Map<Promise<void>, J[]>();
  /** Jobs of systems that became ready, to take before the rest. */
  readonly #released: J[] = [];
  #failure: { error: unknown } | null = null;

  constructor(jobs: readonly J[]) {
    this.#jobs = jobs;
    for (const ready of new Set(jobs.flatMap((j) => j.system.ready ? [j.system.ready] : []))) {
      this.#waiting.set(ready, []);
      ready.then(
        () => {
          this.#released.push(...this.#waiting.get(ready)!);
          this.#waiting.delete(ready);
        },
        (error) => {
          this.#failure ??= { error };
        },
      );
    }
  }

  /** The next job to run. */
  take(): Taken<J> {
    if (this.#failure) return { kind: "failed", error: this.#failure.error };
    const released = this.#released.shift();
    if (released !== undefined) return { kind: "job", job: released };
    while (this.#next < this.#jobs.length) {
      const job = this.#jobs[this.#next++];
      const aside = job.system.ready ? this.#waiting.get(job.system.ready) : undefined;
      if (aside === undefined) return { kind: "job", job };
      aside.push(job);
    }
    const pending = [...this.#waiting].filter(([, aside]) => aside.length > 0);
    if (pending.length === 0) return { kind: "done" };
    // Settles after the queue's own handlers (registered first) have moved the jobs or failed.
    return {
      kind: "wait",
      until: Promise.race(pending.map(([ready]) => ready)).then(() => {}, () => {}),
    };
  }
}
