/**
 * Finding and cleaning up the processes a test started, by a marker in their
 * command line (`ps`: Deno wants `--allow-all` to read `/proc/<pid>/stat`),
 * and the unkillable MCP server behind a wrapper shell.
 *
 * @module
 */

import { join } from "node:path";
import type { McpServerDef } from "../../lib/config/mcp_ref.ts";
import { ROOT } from "./cli.ts";

/** A live process: id, process group and command line. */
export interface ProcessRow {
  pid: number;
  pgid: number;
  args: string;
}

/** Live processes (zombies excluded) whose command line holds `marker`. */
export async function processesWith(marker: string): Promise<ProcessRow[]> {
  const { stdout } = await new Deno.Command("ps", { args: ["-eo", "pid=,pgid=,stat=,args="] })
    .output();
  const rows: ProcessRow[] = [];
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    const m = line.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/);
    if (!m || m[3].startsWith("Z") || !m[4].includes(marker)) continue;
    rows.push({ pid: Number(m[1]), pgid: Number(m[2]), args: m[4] });
  }
  return rows;
}

/** Waits (at most `ms`, polling every 50 ms) until no process holds `marker`; returns those left. */
export async function waitNoneWith(marker: string, ms: number): Promise<ProcessRow[]> {
  for (let i = 0; i < Math.ceil(ms / 50); i++) {
    const left = await processesWith(marker);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await processesWith(marker);
}

/** Waits (at most `ms`) until `count` processes hold `marker`; returns them. */
export async function waitForProcesses(
  marker: string,
  count: number,
  ms = 30_000,
): Promise<ProcessRow[]> {
  for (let i = 0; i < Math.ceil(ms / 50); i++) {
    const found = await processesWith(marker);
    if (found.length >= count) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${count} processes with ${marker} appeared`);
}

/** SIGKILLs every process holding `marker` (a test's cleanup, whatever happened). */
export async function killAllWith(marker: string): Promise<void> {
  for (const row of await processesWith(marker)) {
    try {
      Deno.kill(row.pid, "SIGKILL");
    } catch { /* gone meanwhile */ }
  }
}

/** The unkillable server's source (tests/fixtures/mcp/unkillable_server.ts). */
export const UNKILLABLE_SERVER = join(ROOT, "tests/fixtures/mcp/unkillable_server.ts");

/**
 * The command line of the unkillable server in `mode` behind a wrapper shell
 * that waits for it (the `; echo` keeps `sh` from replacing itself with the
 * server), as `npx` and `uvx` do; `marker` is in both processes' command lines.
 */
export function wrappedUnkillableCommand(mode: string, marker: string): string[] {
  const server = `${Deno.execPath()} run --quiet ${UNKILLABLE_SERVER} ${mode} ${marker}`;
  return ["sh", "-c", `${server}; echo "wrapper: the server ended" >&2`];
}

/** {@link wrappedUnkillableCommand} as a server definition. */
export function wrappedUnkillableServer(mode: string, marker: string): McpServerDef {
  return { kind: "command", command: wrappedUnkillableCommand(mode, marker), env: {}, cwd: ROOT };
}
