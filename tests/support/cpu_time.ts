/**
 * CPU time for tests that bound how much work something takes. Wall-clock
 * bounds break on a loaded machine (other processes take the cores while the
 * clock runs on); the CPU time this process uses does not grow with the load,
 * so "within 1000 ms of CPU" fails only when the work itself grows (a
 * quadratic or backtracking path), however busy CI is.
 *
 * It is the CPU time of the thread running the test module's JavaScript:
 * `deno test --parallel` runs other test modules in the same process at the
 * same time, on threads of their own, and their work is not this test's.
 *
 * @module
 */

import assert from "node:assert/strict";
import process from "node:process";
import { ownThreadCpuMs } from "./processes.ts";

/**
 * CPU time (user + system) this test module's JavaScript thread has used, ms; where Linux does
 * not give a thread's time, the whole process's (every thread) instead.
 */
export function ownCpuMs(): number {
  const thread = ownThreadCpuMs();
  if (thread !== null) return thread;
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** `work()`'s value; fails (naming `what`) when this process spent `limitMs` of CPU or more on it. */
export function withinCpu<T>(limitMs: number, work: () => T, what = "the work"): T {
  const before = ownCpuMs();
  const value = work();
  const used = ownCpuMs() - before;
  assert.ok(used < limitMs, `${what} took ${Math.round(used)} ms of CPU (limit ${limitMs})`);
  return value;
}

/** {@link withinCpu} for asynchronous work (the CPU of everything this process does meanwhile). */
export async function withinCpuAsync<T>(
  limitMs: number,
  work: () => Promise<T>,
  what = "the work",
): Promise<T> {
  const before = ownCpuMs();
  const value = await work();
  const used = ownCpuMs() - before;
  assert.ok(used < limitMs, `${what} took ${Math.round(used)} ms of CPU (limit ${limitMs})`);
  return value;
}
