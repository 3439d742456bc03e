/**
 * The order the runner takes its jobs in: plan order (question, then
 * system), with two exceptions that keep one system from holding up the
 * others.
 *
 * - **Readiness.** A job whose system is not ready yet (its tools are still
 *   loading, see `PlannedSystem.ready`, or a process replacing a killed one
 *   is, `PlannedSystem.pending`) is set aside and the next job is taken
 *   instead, so a loading system holds no concurrency slot.
 * - **A slot for the others.** While another system still has jobs to start,
 *   a system has at most `slots − 1` questions in flight (with one slot,
 *   one). A system that waits a long time in each question (a slow model, a
 *   tool that waits on another thread) would otherwise end up holding every
 *   slot while it waits, and the others' work would stop meanwhile; with a
 *   slot kept back, the waits of one system overlap the work of another.
 *   When only one system has jobs left it may use every slot.
 *
 * A job set aside comes back as soon as its system may take it, before any
 * later job in plan order. Each job is taken once.
 *
 * @module
 */

/** What the queue needs of a job: its system (compared by identity) and its readiness. */
export interface QueuedJob {
  system: { ready?: Promise<void>; pending?: () => Promise<void> | null };
}

/** The next job, or why there is none now. */
export type Taken<J> =
  | { kind: "job"; job: J }
  /** Every job left waits for a system to get ready or a slot to free: wait for `until`, then take again. */
  | { kind: "wait"; until: Promise<void> }
  | { kind: "done" }
  /** A system could not get ready: its `ready` rejected with `error`. */
  | { kind: "failed"; error: unknown };

type System = QueuedJob["system"];

/** Jobs set aside for one system, in plan order. */
interface Aside<J> {
  jobs: Array<{ job: J; index: number }>;
  /** The first entry not yet taken. */
  head: number;
}

/** Jobs in plan order, handed out one at a time; {@link finished} frees a job's slot. */
export class JobQueue<J extends QueuedJob> {
  readonly #jobs: readonly J[];
  readonly #slots: number;
  #next = 0;
  /** Systems whose `ready` has not settled. */
  readonly #loading = new Set<System>();
  /** Systems whose `pending` wait has not settled. */
  readonly #holding = new Set<System>();
  readonly #aside = new Map<System, Aside<J>>();
  /** Jobs not yet taken, per system. */
  readonly #left = new Map<System, number>();
  #leftTotal = 0;
  readonly #inFlight = new Map<System, number>();
  #failure: { error: unknown } | null = null;
  #wake: Array<() => void> = [];

  /** `slots`: how many jobs run at once (the run's concurrency). */
  constructor(jobs: readonly J[], options: { slots: number }) {
    this.#jobs = jobs;
    this.#slots = Math.max(1, options.slots);
    for (const job of jobs) {
      this.#left.set(job.system, (this.#left.get(job.system) ?? 0) + 1);
      this.#leftTotal++;
    }
    for (const system of this.#left.keys()) {
      if (!system.ready) continue;
      this.#loading.add(system);
      system.ready.then(
        () => {
          this.#loading.delete(system);
          this.#wakeAll();
        },
        (error) => {
          this.#failure ??= { error };
          this.#wakeAll();
        },
      );
    }
  }

  /** The next job to run. */
  take(): Taken<J> {
    if (this.#failure) return { kind: "failed", error: this.#failure.error };
    // A set-aside job its system may now take comes first: the earliest in plan order.
    let best: Aside<J> | null = null;
    for (const [system, aside] of this.#aside) {
      if (aside.head === aside.jobs.length || !this.#mayTake(system)) continue;
      if (best === null || aside.jobs[aside.head].index < best.jobs[best.head].index) best = aside;
    }
    if (best !== null) return this.#hand(best.jobs[best.head++].job);
    while (this.#next < this.#jobs.length) {
      const index = this.#next++;
      const job = this.#jobs[index];
      if (this.#mayTake(job.system)) return this.#hand(job);
      let aside = this.#aside.get(job.system);
      if (aside === undefined) this.#aside.set(job.system, aside = { jobs: [], head: 0 });
      aside.jobs.push({ job, index });
    }
    if (this.#leftTotal === 0) return { kind: "done" };
    return { kind: "wait", until: new Promise<void>((resolve) => this.#wake.push(resolve)) };
  }

  /** Frees the slot of `job` (taken from this queue): call when it has finished. */
  finished(job: J): void {
    this.#inFlight.set(job.system, (this.#inFlight.get(job.system) ?? 1) - 1);
    this.#wakeAll();
  }

  #mayTake(system: System): boolean {
    if (this.#loading.has(system) || this.#held(system)) return false;
    const othersLeft = this.#leftTotal - (this.#left.get(system) ?? 0) > 0;
    const cap = othersLeft ? Math.max(1, this.#slots - 1) : this.#slots;
    return (this.#inFlight.get(system) ?? 0) < cap;
  }

  /** Whether `system` asks to wait before its next question; wakes the queue when it may go on. */
  #held(system: System): boolean {
    if (this.#holding.has(system)) return true;
    const wait = system.pending?.();
    if (!wait) return false;
    this.#holding.add(system);
    const release = () => {
      this.#holding.delete(system);
      this.#wakeAll();
    };
    wait.then(release, release);
    return true;
  }

  #hand(job: J): Taken<J> {
    this.#inFlight.set(job.system, (this.#inFlight.get(job.system) ?? 0) + 1);
    this.#left.set(job.system, this.#left.get(job.system)! - 1);
    this.#leftTotal--;
    return { kind: "job", job };
  }

  #wakeAll(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const resolve of waiting) resolve();
  }
}
