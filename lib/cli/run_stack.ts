/**
 * Everything a run holds open, on one stack: the early sandbox worker, the
 * response cache, the embedders, the tool hosts and processes (the plan),
 * the run directory's lock and the results file. Resources are pushed as the
 * run acquires them and released newest first, whichever way the run ends:
 * normally (`await using`), by an error, or by a hard quit (a second Ctrl-C,
 * SIGTERM, SIGHUP), whose hook unwinds this same stack. There is no other
 * cleanup path, so the order below is the only one.
 *
 * Two lifetimes do not nest, and the stack says so explicitly:
 * - the plan starts before the run directory is locked (a tool that cannot
 *   start leaves nothing behind) but must stop before the lock is released
 *   (no tool process outlives the run that holds the folder): its phase is
 *   {@link RunStack.lift}ed above the lock once the lock is taken;
 * - the plan and the results file end before the summaries are written: their
 *   phases are disposed early by the run, and the run's unwinding then finds
 *   them already released.
 *
 * @module
 */

import type { CliIO } from "./io.ts";

/** The run's resources, released newest first on every path. */
export class RunStack implements AsyncDisposable {
  readonly #stack = new AsyncDisposableStack();
  #unwinding: Promise<void> | null = null;
  #quitting = false;
  readonly #unregister: () => void;

  /** Registers the stack's unwinding as the run's hard-quit hook. */
  constructor(io: Pick<CliIO, "onQuit">) {
    this.#unregister = io.onQuit?.(() => {
      this.#quitting = true;
      return this.unwind();
    }) ?? (() => {});
  }

  /**
   * True once a hard quit is unwinding the run: the questions in progress are
   * abandoned, and nothing more is written.
   */
  get quitting(): boolean {
    return this.#quitting;
  }

  /** Pushes a resource (`null` and `undefined` are accepted and ignored). */
  use<T extends AsyncDisposable | Disposable | null | undefined>(value: T): T {
    return this.#stack.use(value);
  }

  /** Pushes a callback, run when the stack is released. */
  defer(onRelease: () => void | PromiseLike<void>): void {
    this.#stack.defer(onRelease);
  }

  /**
   * A stack of its own for one phase's resources, pushed now: the phase may
   * dispose of it early; otherwise the run's unwinding does.
   */
  phase(): AsyncDisposableStack {
    return this.#stack.use(new AsyncDisposableStack());
  }

  /**
   * Moves what `phase` holds to the top of the run's stack (so it is
   * released before everything pushed since it was made); `phase` is left
   * empty. Returns the phase's new stack.
   */
  lift(phase: AsyncDisposableStack): AsyncDisposableStack {
    return this.#stack.use(phase.move());
  }

  /** Releases everything, newest first; later calls wait for the same unwinding. */
  unwind(): Promise<void> {
    return this.#unwinding ??= this.#stack.disposeAsync();
  }

  /**
   * The run's end: {@link unwind}. The hard-quit hook stays registered until
   * the unwinding is done, so a hard quit meanwhile waits for it (the lock is
   * never left behind half released).
   */
  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.unwind();
    } finally {
      this.#unregister();
    }
  }
}
