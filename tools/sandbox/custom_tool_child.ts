/**
 * The subprocess side of a custom tool: loads the tool's module, drops every
 * permission its side effects do not need, reports what the model is told,
 * then answers calls, one JSON message a line on stdout. Started by
 * `subprocess_host.ts` as the hidden command
 * `ragbench __tool-host MODULE_URL EXPORT KEEP NAME` (KEEP: the side effects, or a plug-in's
 * `keep=read,net,...`; NAME: what the config calls it; EXPORT `*`: a plug-in's tool, found among
 * the module's exports by its own name).
 *
 * Host messages arrive through the watchdog worker (`child_watchdog.ts`),
 * which owns stdin and kills this process when ragbench goes away. Every
 * reply echoes its request's nonce, which the tool's code never sees.
 *
 * The module is read with the permission to read its own folder; that
 * permission is revoked before the first call unless the tool declares
 * filesystem side effects.
 *
 * @module
 */

// deno-lint-ignore-file no-console
import type { SideEffects } from "../../lib/types.ts";
import { defineTool, parametersJsonSchema, type ToolDef } from "../define_tool.ts";
// Part of the static module graph, so a tool module importing "ragbench/tool"
// needs no read permission for it.
import "../author.ts";
import { clearLeftoverTimers } from "./call_timers.ts";
import { startWatchdog } from "./child_watchdog.ts";
import type { SandboxMessage } from "./protocol.ts";
import { callServer } from "./serve_calls.ts";

/** Permissions a tool with these side effects keeps after loading. */
const KEEP: Record<SideEffects, ReadonlySet<Deno.PermissionName>> = {
  none: new Set(),
  filesystem: new Set(["read", "write"]),
  network: new Set(["net"]),
};

/** The permissions kept after loading, from the command line's KEEP word (see the module doc). */
export function keptSet(word: string): ReadonlySet<Deno.PermissionName> {
  if (word.startsWith("keep=")) {
    return new Set(word.slice(5).split(",").filter((n) => n !== "") as Deno.PermissionName[]);
  }
  return KEEP[word as SideEffects] ?? new Set();
}

/** Revokes every permission not in `keep` (what loading the module needed goes too). */
export function dropPermissions(keep: ReadonlySet<Deno.PermissionName>): void {
  for (const name of REVOCABLE) {
    if (!keep.has(name)) Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
  }
}

const REVOCABLE: readonly Deno.PermissionName[] = [
  "read",
  "write",
  "net",
  "env",
  "run",
  "ffi",
  "sys",
  // Deno allows imports from a few well-known hosts by default: a way out to the network.
  "import" as Deno.PermissionName,
];

/**
 * Runs the child until the watchdog ends the process (stdin closed).
 * `argv` is `[moduleUrl, exportName, sideEffects, name]`.
 */
export async function serveCustomTool(argv: readonly string[]): Promise<void> {
  const [moduleUrl, exportName, sideEffects, name] = argv;
  const { inbox, write } = startChildSide();
  let def: ToolDef | undefined;
  let failure = "";
  try {
    def = exportName === "*"
      ? await loadPluginTool(moduleUrl, name)
      : await loadTool(moduleUrl, exportName);
  } catch (error) {
    failure = (error as Error).message;
  }
  if (def) dropPermissions(keptSet(sideEffects));
  let hello = await inbox.next();
  while (hello.type !== "hello") hello = await inbox.next();
  if (!def) {
    await write({ type: "failed", nonce: hello.nonce, message: failure });
    return;
  }
  await write({
    type: "ready",
    nonce: hello.nonce,
    name: def.name,
    description: def.description,
    parameters: parametersJsonSchema(def),
  });
  inbox.done();
  const serve = callServer(new Map([[name ?? def.name, def]]), (message) => void write(message));
  for (;;) {
    const message = await inbox.next();
    await serve(message);
    if (message.type === "init" || message.type === "call") {
      // Work a call left behind stops with it; the reply is written before the watchdog
      // counts the process idle again.
      clearLeftoverTimers();
      await write(null);
      inbox.done();
    }
  }
}

async function loadTool(moduleUrl: string, exportName: string): Promise<ToolDef> {
  const module = await importModule(moduleUrl);
  if (!Object.hasOwn(module, exportName)) {
    const exported = Object.keys(module).join(", ") || "nothing";
    throw new Error(`it has no export named "${exportName}" (it exports: ${exported})`);
  }
  const value = module[exportName];
  if (value === null || typeof value !== "object") {
    throw new Error(`export "${exportName}" is not a tool: define it with defineTool({...})`);
  }
  try {
    return defineTool(value as ToolDef);
  } catch (error) {
    throw new Error(`export "${exportName}" is not a valid tool: ${(error as Error).message}`);
  }
}

/** Imports the module (already loaded by `--preload` under `deno run`). */
export async function importModule(moduleUrl: string): Promise<Record<string, unknown>> {
  try {
    return await import(moduleUrl);
  } catch (error) {
    throw new Error(`cannot import it: ${(error as Error).message.split("\n")[0]}`);
  }
}

/**
 * A plug-in's tool: the export whose `name` is `name`, checked like a
 * built-in (`defineTool`: name, description, an object schema whose
 * parameters are described).
 */
async function loadPluginTool(moduleUrl: string, name: string): Promise<ToolDef> {
  const module = await importModule(moduleUrl);
  const tools = Object.values(module).filter((value): value is ToolDef =>
    value !== null && typeof value === "object" && typeof (value as ToolDef).name === "string" &&
    typeof (value as ToolDef).run === "function"
  );
  const def = tools.find((t) => t.name === name);
  if (def === undefined) {
    const offered = tools.map((t) => `"${t.name}"`).join(", ") || "none";
    throw new Error(`it exports no tool named "${name}" (its tools: ${offered})`);
  }
  try {
    return defineTool(def);
  } catch (error) {
    throw new Error(`its tool "${name}" is not valid: ${(error as Error).message}`);
  }
}

/**
 * The child's side of the channel: the watchdog's inbox, the protocol line
 * writer, and the console sent to stderr (the loaded code may print; stdout
 * carries the protocol). Shared by custom tools, plug-ins and custom systems.
 */
export function startChildSide(): {
  inbox: ReturnType<typeof startWatchdog>;
  write: ReturnType<typeof lineWriter>;
} {
  const inbox = startWatchdog();
  const write = lineWriter();
  console.log =
    console.info =
    console.debug =
    console.warn =
      console.error;
  return { inbox, write };
}

/** Writes messages to stdout in order; `write(null)` waits for what was queued. */
export function lineWriter(): (
  message: SandboxMessage | Record<string, unknown> | null,
) => Promise<void> {
  const encoder = new TextEncoder();
  let queue = Promise.resolve();
  return (message) => {
    if (message === null) return queue;
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    queue = queue.then(async () => {
      let offset = 0;
      while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
    });
    return queue;
  };
}
