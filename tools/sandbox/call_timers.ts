/**
 * Tracks the timers a custom tool's code sets (`setTimeout`, `setInterval`
 * on `globalThis`), so that the ones still pending when a call returns can be
 * cleared: a call's leftover timer must not keep working (and burning CPU)
 * for the rest of the run. Installed by the watchdog module, which the tool
 * process preloads ahead of the tool's module, so the tool's code only ever
 * sees the tracking versions. Timers set through other APIs
 * (`node:timers`) are not seen; the watchdog's idle-CPU check stops those.
 *
 * Installs itself only in a process started as `__tool-host` or
 * `__system-host` (a custom system's process, `systems/custom/`).
 *
 * @module
 */

type TimerFn = (handler: unknown, delay?: number, ...args: unknown[]) => unknown;
type ClearFn = (id?: unknown) => void;
interface Timers {
  setTimeout: TimerFn;
  setInterval: TimerFn;
  clearTimeout: ClearFn;
  clearInterval: ClearFn;
}

const scope = globalThis as unknown as Timers;
const original: Timers = {
  setTimeout: scope.setTimeout,
  setInterval: scope.setInterval,
  clearTimeout: scope.clearTimeout,
  clearInterval: scope.clearInterval,
};
const live = new Set<unknown>();

function install(): void {
  scope.setTimeout = (handler, delay, ...args) => {
    const run = typeof handler === "function"
      ? (...a: unknown[]) => {
        live.delete(id);
        return handler(...a);
      }
      : handler;
    const id = original.setTimeout(run, delay, ...args);
    live.add(id);
    return id;
  };
  scope.setInterval = (handler, delay, ...args) => {
    const id = original.setInterval(handler, delay, ...args);
    live.add(id);
    return id;
  };
  scope.clearTimeout = (id) => {
    live.delete(id);
    original.clearTimeout(id);
  };
  scope.clearInterval = (id) => {
    live.delete(id);
    original.clearInterval(id);
  };
}

/** Clears every timer the tool's code has pending; returns how many there were. */
export function clearLeftoverTimers(): number {
  const count = live.size;
  for (const id of live) original.clearTimeout(id);
  live.clear();
  return count;
}

if (Deno.args[0] === "__tool-host" || Deno.args[0] === "__system-host") install();
