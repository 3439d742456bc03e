/**
 * Runs a custom tool in subprocesses: code that ragbench cannot bound (a
 * user's TypeScript) runs in a process that can be killed, so a call past
 * its timeout is stopped and its CPU reclaimed — which terminating a Worker
 * does not do on Deno 2.9 for a CPU-bound loop.
 *
 * Under `deno run`, each process starts with only the permission flags the
 * tool's side effects need and loads the tool's module with `--preload`, so
 * even the module's top-level code runs under those permissions (`none`: no
 * read, write, net, env, run or ffi); `--cached-only --no-remote` keep it
 * from fetching code at run time. The environment is cleared except for
 * Deno's cache and certificate settings (and proxy settings for network
 * tools) that ragbench itself was allowed to read.
 *
 * A question keeps one process for all its calls, so per-question state
 * works; processes are reused across questions, up to `maxProcesses` at
 * once. A timed-out or cancelled call kills its process; the question's next
 * call gets a fresh one. One process: `tool_process.ts`; its protocol:
 * `tool_channel.ts`; what ends a process when ragbench dies:
 * `child_watchdog.ts`.
 *
 * @module
 */

import type { HostCall, ToolHost } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import type { CustomToolSpec } from "./tool_command.ts";
import { type Child, type ChildEnv, type CustomToolInfo, spawnChild } from "./tool_process.ts";

export type { CustomToolInfo, CustomToolSpec };

/** A started custom tool. */
export interface CustomToolHost extends ToolHost {
  info: CustomToolInfo;
}

/**
 * Starts the first process of a custom tool and reads its description and
 * schema. `env.progress` hears once if loading takes over a second.
 *
 * @throws {RagbenchError} when the module cannot be loaded or is not a tool.
 */
export async function startCustomTool(
  spec: CustomToolSpec,
  env: ChildEnv & { maxProcesses: number },
): Promise<CustomToolHost> {
  const idle: Child[] = [];
  const held = new Map<string, Child>();
  const waiters = new Set<() => void>();
  let live = 0;
  let closed = false;
  const wakeOne = () => {
    const wake = waiters.values().next().value;
    if (wake) {
      waiters.delete(wake);
      wake();
    }
  };
  const onExit = () => {
    live--;
    wakeOne();
  };
  const spawn = async (first = false): Promise<Child> => {
    live++;
    try {
      // Only the first start (before any question) reports a slow load.
      return await spawnChild(spec, first ? env : { ...env, progress: undefined }, onExit);
    } catch (error) {
      live--;
      wakeOne();
      throw error;
    }
  };
  idle.push(await spawn(true));
  const info = idle[0].info;

  const release = (child: Child) => {
    idle.push(child);
    wakeOne();
  };

  const waitForProcess = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        waiters.delete(wake);
        reject(signal.reason);
      };
      waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });

  const acquire = async (questionKey: string, signal: AbortSignal): Promise<Child | null> => {
    for (;;) {
      if (closed || signal.aborted) return null;
      const mine = held.get(questionKey);
      if (mine?.alive) return mine;
      held.delete(questionKey);
      let child = idle.pop();
      while (child && !child.alive) child = idle.pop();
      if (!child && live < env.maxProcesses) {
        child = await spawn();
        if (signal.aborted || closed) {
          // The call was abandoned while its process started: another question may use it.
          if (closed) await child.kill();
          else release(child);
          return null;
        }
      }
      if (child) {
        held.set(questionKey, child);
        return child;
      }
      try {
        await waitForProcess(signal);
      } catch {
        return null;
      }
    }
  };

  return {
    info,
    async call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
      let child: Child | null;
      try {
        child = await acquire(call.questionKey, signal);
      } catch (error) {
        return errorResult(
          "unavailable",
          "The tool could not be started.",
          error instanceof Error ? error.message : String(error),
        );
      }
      if (!child) {
        return closed
          ? errorResult("unavailable", "The run ended before the tool could run.")
          : errorResult("timeout", "The tool call was stopped while it waited to run.");
      }
      const result = await child.call(call, signal);
      if (!child.stoppedIdle || signal.aborted) return result;
      // Its watchdog stopped it just as the call was sent: the call never ran, so run it once more.
      const fresh = await acquire(call.questionKey, signal).catch(() => null);
      return fresh ? await fresh.call(call, signal) : result;
    },
    endQuestion(questionKey: string) {
      const child = held.get(questionKey);
      held.delete(questionKey);
      if (child?.alive && !closed) {
        child.send({ type: "end", questionKey });
        release(child);
      }
    },
    async close() {
      closed = true;
      const all = [...idle, ...held.values()];
      idle.length = 0;
      held.clear();
      await Promise.all(all.map((c) => c.kill()));
      for (const wake of [...waiters]) wake();
      waiters.clear();
    },
  };
}
