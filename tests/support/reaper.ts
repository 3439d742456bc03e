/**
 * Preloaded into every test module by `deno task test` (`--preload`): when a
 * module's tests are done, every process the test process started that
 * still runs — a child a failed test never stopped, with everything that
 * child started — is killed, and the module fails naming them. So a failing
 * test cannot leave a process spinning after the suite (as a code-sandbox
 * child once did for 25 minutes), and a test that forgets to stop one fails
 * even when its assertions pass.
 *
 * It sees the processes this module started, from its own thread, and their
 * descendants (see `moduleDescendants` in processes.ts): `deno test
 * --parallel` runs other modules at the same time in the same process, and
 * their children are theirs to stop. A process whose parent the test itself
 * killed is re-parented outside that tree, so a test that kills a process on
 * purpose stops that process's children itself (in a `finally`).
 *
 * @module
 */

import { killAll, moduleDescendants } from "./processes.ts";

/** How long processes that are already exiting get before they count as left running. */
const GRACE_POLLS = 20;
const POLL_MS = 50;

function canRun(): boolean {
  return Deno.permissions.querySync({ name: "run" }).state === "granted";
}

/** Kills what this test module left running; returns a description of each, empty when none. */
export function reapLeftovers(): string[] {
  if (!canRun()) return [];
  let left = moduleDescendants();
  // Processes a test has just stopped may take a moment to go (a synchronous wait: this
  // runs in the `unload` event, which does not wait for promises).
  for (let i = 0; i < GRACE_POLLS && left.length > 0; i++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
    left = moduleDescendants();
  }
  killAll(left.map((e) => e.pid));
  return left.map((e) => `${e.pid} ${e.name} (child of ${e.ppid}, ${e.cpuMs} ms of CPU)`);
}

globalThis.addEventListener("unload", () => {
  const left = reapLeftovers();
  if (left.length > 0) {
    throw new Error(
      `the tests of ${Deno.mainModule} left ${left.length} process(es) running; killed: ${
        left.join("; ")
      }`,
    );
  }
});
