/**
 * The machine's process table for tests: which processes run, who started
 * them, their CPU time; and killing what a test left behind.
 *
 * Read from Linux's `/proc` by `sh` (Deno asks for `--allow-all` to read
 * another process's `/proc` entry, and tests run with explicit flags): one
 * `sh` a call, and for command lines `grep` (a NUL-separated file `sh`
 * cannot read), both on every Linux; no `ps` or `pgrep` (procps is missing
 * from slim images). Where there is no `/proc` (not Linux) the table is
 * empty.
 *
 * @module
 */

/** One process, from its `/proc/PID/stat` line. */
export interface ProcessEntry {
  pid: number;
  /** Parent process id. */
  ppid: number;
  /** State letter: R running, S sleeping, Z zombie (exited, not yet waited for), ... */
  state: string;
  /** Executable name (at most 15 characters). */
  name: string;
  /** User plus system CPU time used so far, milliseconds. */
  cpuMs: number;
}

// Every process's stat line, then this shell's own pid (not to be counted as a test's).
const TABLE_SCRIPT = 'for f in /proc/[0-9]*/stat; do read -r l < "$f" && printf "%s\\n" "$l"; ' +
  'done 2>/dev/null; printf "self %s\\n" "$$"';
const MS_PER_TICK = 10; // USER_HZ is 100 on Linux

/** Parses a `/proc/PID/stat` line; null when it does not look like one. */
export function parseStat(line: string): ProcessEntry | null {
  const open = line.indexOf(" (");
  const close = line.lastIndexOf(")"); // the name may itself hold spaces and parentheses
  if (open < 0 || close < open) return null;
  const fields = line.slice(close + 2).split(" ");
  const entry = {
    pid: Number(line.slice(0, open)),
    ppid: Number(fields[1]),
    state: fields[0] ?? "",
    name: line.slice(open + 2, close),
    cpuMs: (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK,
  };
  return Number.isInteger(entry.pid) && Number.isInteger(entry.ppid) ? entry : null;
}

/** Every process on the machine (none where `/proc` is missing or `sh` cannot run). */
export function processTable(): ProcessEntry[] {
  const lines = shLines(TABLE_SCRIPT);
  const self = Number(lines.find((l) => l.startsWith("self "))?.slice(5));
  return lines.map(parseStat).filter((e): e is ProcessEntry => e !== null && e.pid !== self);
}

/** Process `pid`, or null when it does not exist. */
export function processEntry(pid: number): ProcessEntry | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const [line] = shLines(`read -r l < /proc/${pid}/stat && printf "%s\\n" "$l"`);
  return line ? parseStat(line) : null;
}

function shLines(script: string): string[] {
  try {
    const { stdout } = new Deno.Command("sh", { args: ["-c", script], stderr: "null" })
      .outputSync();
    return new TextDecoder().decode(stdout).split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/** A running process's command line, its arguments joined by spaces. */
export interface CommandLine {
  pid: number;
  args: string;
}

/** The command line of every running process (zombies and kernel threads have none). */
export function commandLines(): CommandLine[] {
  // One grep prints each file as "/proc/PID/cmdline:ARG\0ARG\0...", a line per file.
  const lines = shLines("grep -a -H '' /proc/[0-9]*/cmdline 2>/dev/null");
  const found: CommandLine[] = [];
  for (const line of lines) {
    const colon = line.indexOf("/cmdline:");
    const pid = Number(line.slice("/proc/".length, colon));
    if (!line.startsWith("/proc/") || colon < 0 || !Number.isInteger(pid)) continue;
    found.push({ pid, args: line.slice(colon + "/cmdline:".length).replaceAll("\0", " ").trim() });
  }
  return found;
}

/**
 * Pids of running processes whose command line holds each of `parts`, in that order; not those
 * another test module running in this process started (see {@link otherModulesProcesses}).
 */
export function processesWith(...parts: string[]): number[] {
  const others = otherModulesProcesses();
  return commandLines().filter(({ pid, args }) => {
    if (others.has(pid)) return false;
    let from = 0;
    for (const part of parts) {
      const at = args.indexOf(part, from);
      if (at < 0) return false;
      from = at + part.length;
    }
    return true;
  }).map((c) => c.pid);
}

/** The processes started by `pid`, by their children, and so on, that have not exited. */
export function runningDescendants(pid: number, table = processTable()): ProcessEntry[] {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of table) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry);
    children.set(entry.ppid, list);
  }
  const found: ProcessEntry[] = [];
  const queue = [pid];
  for (let i = 0; i < queue.length && i <= table.length; i++) {
    for (const child of children.get(queue[i]) ?? []) {
      queue.push(child.pid);
      if (child.state !== "Z") found.push(child);
    }
  }
  return found;
}

// Which of this process's threads lists the calling `sh` among its children: the thread that
// started it, i.e. the calling module's JavaScript thread (Linux attributes a child to the thread
// that forked it, in /proc/PID/task/TID/children).
const OWN_TASK_SCRIPT = 'for f in /proc/$PPID/task/*/children; do l=; read -r l < "$f"; ' +
  'case " $l " in *" $$ "*) printf "%s\\n" "${f%/children}";; esac; done 2>/dev/null';

let ownTask: string | null | undefined;

/**
 * `/proc/PID/task/TID` of the thread running this test module's JavaScript, or null where Linux
 * does not say (no `/proc`, or a kernel without the `children` files). `deno test --parallel`
 * runs several test modules at once in one process, a thread each: the module's processes are
 * those its thread started, not every child of `Deno.pid`. Found once a module.
 */
export function ownTaskDir(): string | null {
  if (ownTask === undefined) {
    const [dir] = shLines(OWN_TASK_SCRIPT);
    ownTask = dir !== undefined && /^\/proc\/\d+\/task\/\d+$/.test(dir) ? dir : null;
  }
  return ownTask;
}

/**
 * The running processes this test module started (from its own thread), with everything they
 * started. Where the thread is unknown ({@link ownTaskDir} null), every running descendant of
 * this process.
 */
export function moduleDescendants(table?: ProcessEntry[]): ProcessEntry[] {
  const task = ownTaskDir();
  if (task === null) return runningDescendants(Deno.pid, table);
  const [line] = shLines(`read -r l < ${task}/children; printf "%s\\n" "$l"`);
  const mine = new Set((line ?? "").split(" ").filter(Boolean).map(Number));
  if (mine.size === 0) return [];
  table ??= processTable();
  const found: ProcessEntry[] = [];
  for (const entry of table) {
    if (!mine.has(entry.pid)) continue;
    if (entry.state !== "Z") found.push(entry);
    found.push(...runningDescendants(entry.pid, table));
  }
  return found;
}

/**
 * CPU time (user + system) this test module's JavaScript thread has used, ms; null where Linux
 * does not say (see {@link ownTaskDir}). Other modules that `deno test --parallel` runs in the
 * same process at the same time do not count in it.
 */
export function ownThreadCpuMs(): number | null {
  const task = ownTaskDir();
  if (task === null) return null;
  // schedstat's first field is the time on a CPU in ns; stat's ticks are the fallback.
  const [line] = shLines(
    `if [ -r ${task}/schedstat ]; then read -r l < ${task}/schedstat; printf "ns %s\\n" "$l"; ` +
      `else read -r l < ${task}/stat; printf "stat %s\\n" "$l"; fi`,
  );
  if (line?.startsWith("ns ")) {
    const ns = Number(line.split(" ")[1]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  }
  const entry = line?.startsWith("stat ") ? parseStat(line.slice(5)) : null;
  return entry === null || !Number.isFinite(entry.cpuMs) ? null : entry.cpuMs;
}

/**
 * Pids of the running processes that other test modules started, with their descendants: under
 * `deno test --parallel` other modules run in this process at the same time, and what they
 * start is theirs to check. A process that has left this process's tree (its parent exited)
 * is nobody's, so it is not among them. Empty where this module's thread is unknown.
 */
export function otherModulesProcesses(): Set<number> {
  if (ownTaskDir() === null) return new Set();
  const table = processTable();
  const mine = new Set(moduleDescendants(table).map((e) => e.pid));
  return new Set(
    runningDescendants(Deno.pid, table).map((e) => e.pid).filter((pid) => !mine.has(pid)),
  );
}

/** Whether `pid` is running (exited processes and zombies are not). */
export function isRunning(pid: number): boolean {
  const entry = processEntry(pid);
  return entry !== null && entry.state !== "Z";
}

/** CPU time (user + system) process `pid` has used, in ms; 0 once it is gone. */
export function cpuMsOf(pid: number): number {
  return processEntry(pid)?.cpuMs ?? 0;
}

/** Sends SIGKILL to each of `pids` that still exists; returns those it reached. */
export function killAll(pids: Iterable<number>): number[] {
  const killed: number[] = [];
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}
