/**
 * Starts the probe tools of `tests/fixtures/tools/probe_tools.ts` in the
 * custom-tool sandbox, and reads the process table for their processes.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { SideEffects } from "../../lib/types.ts";
import { type CustomToolHost, startCustomTool } from "../../tools/sandbox/subprocess_host.ts";
import { createToolbox } from "../../tools/toolbox.ts";
import { corpusOf } from "./tool_context.ts";
import { processesWith } from "./processes.ts";

/** The probe module's path. */
export const PROBES = fileURLToPath(new URL("../fixtures/tools/probe_tools.ts", import.meta.url));

/** Starts the probe tool `name` (exported in camelCase from the probe module). */
export async function startProbe(
  name: string,
  options: {
    sideEffects?: SideEffects;
    maxProcesses?: number;
    memoryMb?: number;
    module?: string;
    loadTimeoutMs?: number;
    progress?: (text: string) => void;
  } = {},
): Promise<CustomToolHost> {
  return await startCustomTool({
    name,
    module: options.module ?? PROBES,
    exportName: name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
    sideEffects: options.sideEffects ?? "none",
    ...(options.memoryMb ? { memoryMb: options.memoryMb } : {}),
  }, {
    corpus: corpusOf([{ id: "a", text: "alpha" }]),
    now: "2026-01-01",
    maxProcesses: options.maxProcesses ?? 2,
    ...(options.loadTimeoutMs ? { loadTimeoutMs: options.loadTimeoutMs } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
  });
}

/** A toolbox session offering the started tool to question `key`. */
export function probeSession(host: CustomToolHost, name: string, key = "q", timeoutMs = 5000) {
  return createToolbox([{
    name,
    description: host.info.description,
    sideEffects: "none",
    parameters: host.info.parameters,
    options: {},
    timeoutMs,
    host,
  }], { max_output_chars: 4000 }).session(key);
}

/** Pids of running tool processes whose command line holds `marker` (after `__tool-host`). */
export function toolProcesses(marker: string): number[] {
  return processesWith("__tool-host", marker);
}
