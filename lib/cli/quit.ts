/**
 * The hard quit: what a second Ctrl-C, SIGTERM (CI cancellation, `timeout`,
 * `docker stop`) or SIGHUP (a closed terminal) does. The questions in
 * progress are abandoned; the hooks a command registered run newest first
 * (finish the result line being written, print the resume hint, close tool
 * processes, release the run directory), all within one deadline so a
 * stuck hook cannot keep the process alive; then the process exits with
 * 128 + the signal number.
 *
 * @module
 */

import type { QuitHook } from "./io.ts";

/** Exit codes of a hard quit, 128 + the signal number (the shell's convention). */
export const QUIT_EXIT_CODES: ReadonlyMap<string, number> = new Map([
  ["SIGINT", 130],
  ["SIGHUP", 129],
  ["SIGTERM", 143],
]);

/** Longest a hard quit waits for its hooks. */
export const QUIT_DEADLINE_MS = 3000;

/** Registered hooks and the one way to run them. */
export interface QuitHooks {
  onQuit(hook: QuitHook): () => void;
  /**
   * Runs every hook (newest first, each awaited, all within `deadlineMs`);
   * never rejects: a hook that throws or hangs is skipped.
   */
  run(reason: string, deadlineMs?: number): Promise<void>;
}

/** An empty set of hooks. */
export function createQuitHooks(): QuitHooks {
  const hooks: QuitHook[] = [];
  return {
    onQuit(hook) {
      hooks.push(hook);
      return () => {
        const i = hooks.indexOf(hook);
        if (i !== -1) hooks.splice(i, 1);
      };
    },
    async run(reason, deadlineMs = QUIT_DEADLINE_MS) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      });
      const all = (async () => {
        for (const hook of [...hooks].reverse()) {
          try {
            await hook(reason);
          } catch {
            // A failing hook must not keep the others from running.
          }
        }
      })();
      await Promise.race([all, deadline]);
      clearTimeout(timer);
    },
  };
}

/** How often a launched ragbench checks that its launcher is still there. */
export const PARENT_POLL_MS = 500;

/**
 * Calls `onGone` once when this process's parent changes: the launcher
 * (`ragbench.ts`) that started it ended without it (killed with SIGKILL,
 * which it cannot forward), and the process, in a session of its own, would
 * otherwise run on unseen. Checks every {@link PARENT_POLL_MS} on a timer
 * that does not keep the process alive; the returned function stops it.
 */
export function watchParent(onGone: () => void, ppid: () => number = () => Deno.ppid): () => void {
  const parent = ppid();
  const timer = setInterval(() => {
    if (ppid() === parent) return;
    clearInterval(timer);
    onGone();
  }, PARENT_POLL_MS);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
