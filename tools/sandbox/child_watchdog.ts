/**
 * The first code a custom tool's process runs (preloaded ahead of the
 * tool's own module): a small watchdog Worker that owns the process's stdin.
 * The tool's code runs on the main thread and may spin forever; the worker
 * runs on its own thread, so it acts even then:
 *
 * - It reads the host's messages from stdin and forwards them to the main
 *   thread. When stdin reaches end-of-file — ragbench closed it, or died,
 *   whatever the signal (the kernel closes a dead process's pipes, SIGKILL
 *   included) — it kills the whole process. It also polls the parent pid,
 *   in case the pipe is held open elsewhere.
 * - It measures the process's CPU time while no request is in progress. A
 *   process that keeps using more than `IDLE_CPU_LIMIT` of a core with
 *   nothing to do (work a call left running that `call_timers.ts` could not
 *   clear) is killed, with a line on stderr saying why; the host starts a
 *   fresh one for the next call.
 *
 * Facts this relies on (checked on Deno 2.9.6): a worker's `Deno.exit()`
 * ends only the worker, but `Deno.kill(Deno.pid, "SIGKILL")` needs no
 * permission and ends the whole process, even while the main thread spins.
 * A preloaded module's event loop is run to completion before the main
 * module starts, so a Web Worker started there would stop ragbench's child
 * code from ever running; a `node:worker_threads` Worker can be `unref()`ed,
 * which is why the watchdog is one. It is built from source text (`eval`),
 * so starting it needs no read permission, under `deno run` or in a
 * compiled binary.
 *
 * The watchdog starts only in a process started as `__tool-host` (a custom
 * tool or plug-in) or `__system-host` (a custom system,
 * `systems/custom/`), so merely importing this module elsewhere does nothing.
 *
 * @module
 */

import type nodeProcess from "node:process";
import { Worker } from "node:worker_threads";
// Installs the timer tracking before the tool's module is loaded (see call_timers.ts).
import "./call_timers.ts";
import { lineSplitter } from "./line_splitter.ts";
import type { HostMessage } from "./protocol.ts";

/**
 * Share of one core an idle tool process may use in a window of
 * `IDLE_WINDOW_MS`; `IDLE_WINDOWS` such windows in a row get it stopped. Low,
 * because on a loaded machine a runaway loop may get only a small share of
 * a core, and an idle Deno process uses next to none.
 */
export const IDLE_CPU_LIMIT = 0.1;
/** Window over which idle CPU is measured, in milliseconds. */
export const IDLE_WINDOW_MS = 1000;
/** Busy idle windows in a row that get a tool process stopped. */
export const IDLE_WINDOWS = 2;
/** How often the watchdog looks at the parent pid and the CPU time, in milliseconds. */
const POLL_MS = 100;

/** Part of the stderr line of a process the watchdog stopped for working while idle. */
export const IDLE_STOP_NOTE = "with no call running";

/** The argument that starts a custom tool's process (see main.ts). */
export const TOOL_HOST_COMMAND = "__tool-host";
/** The argument that starts a custom system's process (see main.ts, `systems/custom/`). */
export const SYSTEM_HOST_COMMAND = "__system-host";
/** The commands whose processes run the watchdog and the timer tracking. */
export const SANDBOX_COMMANDS: ReadonlySet<string> = new Set([
  TOOL_HOST_COMMAND,
  SYSTEM_HOST_COMMAND,
]);

/** What the main thread of a tool process gets from the watchdog. */
export interface Inbox {
  /** The next message from the host (waits for it). */
  next(): Promise<HostMessage>;
  /** Tells the watchdog a request (`init`, `call`) was answered: the process is idle again. */
  done(): void;
}

/** The worker's side of `node:worker_threads`' port. */
interface WatchdogPort {
  postMessage(message: unknown): void;
  on(event: "message", listener: (message: unknown) => void): void;
}

interface WatchdogLimits {
  idleStopNote: string;
  idleCpuLimit: number;
  idleWindows: number;
  idleWindowMs: number;
  pollMs: number;
}

/**
 * The worker's body. It runs from its source text (see `startWatchdog`), so
 * it uses only its parameters and globals.
 */
async function watchdogMain(
  port: WatchdogPort,
  limits: WatchdogLimits,
  split: typeof lineSplitter,
  process: typeof nodeProcess,
): Promise<void> {
  const encoder = new TextEncoder();
  const die = (why: string) => {
    if (why !== "") {
      try {
        Deno.stderr.writeSync(encoder.encode(`ragbench: ${why}; stopping the tool's process\n`));
      } catch { /* stderr closed */ }
    }
    Deno.kill(Deno.pid, "SIGKILL");
  };
  const cpuMs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const parent = Deno.ppid;
  // The process is busy until the main thread has loaded the tool and said so.
  let pending = 1;
  let windowStart = performance.now();
  let cpuStart = cpuMs();
  let busyWindows = 0;
  let busyMs = 0;
  const restartWindow = () => {
    windowStart = performance.now();
    cpuStart = cpuMs();
  };
  port.on("message", (message) => {
    if (message !== "done") return;
    pending = Math.max(0, pending - 1);
    busyWindows = 0;
    busyMs = 0;
    restartWindow();
  });
  setInterval(() => {
    if (Deno.ppid !== parent) die("");
    if (pending > 0) return restartWindow();
    const elapsed = performance.now() - windowStart;
    if (elapsed < limits.idleWindowMs) return;
    const used = cpuMs() - cpuStart;
    // One busy window may be the garbage collector tidying up after a call; a run of them is not.
    busyWindows = used > limits.idleCpuLimit * elapsed ? busyWindows + 1 : 0;
    busyMs = busyWindows === 0 ? 0 : busyMs + used;
    if (busyWindows >= limits.idleWindows) {
      die(
        `the tool used ${
          Math.round(busyMs)
        } ms of CPU in the last ${busyWindows} s ${limits.idleStopNote} (a timer or loop left running by a call?)`,
      );
    }
    restartWindow();
  }, limits.pollMs);
  const splitter = split(Infinity, (event) => {
    if (event.type !== "line" || event.text.trim() === "") return;
    // The main thread parses the line: a corpus is parsed once, not parsed and then copied. The
    // host writes `type` first, so the prefix says whether a reply (and work) is due.
    const text = event.text;
    if (
      text.startsWith('{"type":"init"') || text.startsWith('{"type":"call"') ||
      text.startsWith('{"type":"run"')
    ) pending++;
    port.postMessage(text);
    if (pending > 0) restartWindow();
  });
  try {
    for await (const chunk of Deno.stdin.readable) splitter.push(chunk);
  } catch { /* stdin broke: same as closed */ }
  die("");
}

let inbox: Inbox | null = null;

/** Starts the watchdog worker (once) and returns the inbox of host messages. */
export function startWatchdog(): Inbox {
  if (inbox) return inbox;
  const limits: WatchdogLimits = {
    idleStopNote: IDLE_STOP_NOTE,
    idleCpuLimit: IDLE_CPU_LIMIT,
    idleWindows: IDLE_WINDOWS,
    idleWindowMs: IDLE_WINDOW_MS,
    pollMs: POLL_MS,
  };
  const source = `const lineSplitter = ${lineSplitter.toString()};
(${watchdogMain.toString()})(require("node:worker_threads").parentPort, ${
    JSON.stringify(limits)
  }, lineSplitter, require("node:process"));
`;
  const worker = new Worker(source, { eval: true });
  // Unreferenced while the preloaded modules run (see above); `inbox.next` holds the process open.
  worker.unref();
  const queue: HostMessage[] = [];
  let wake: (() => void) | null = null;
  worker.on("message", (line: string) => {
    queue.push(JSON.parse(line) as HostMessage);
    wake?.();
  });
  inbox = {
    async next() {
      worker.ref();
      while (queue.length === 0) await new Promise<void>((resolve) => wake = resolve);
      wake = null;
      return queue.shift()!;
    },
    done() {
      worker.postMessage("done");
    },
  };
  return inbox;
}

if (SANDBOX_COMMANDS.has(Deno.args[0])) startWatchdog();
