/**
 * The subprocess side of a custom tool: loads the tool's module, drops every
 * permission its side effects do not need, reports what the model is told,
 * then answers calls read from stdin, one JSON message a line, on stdout.
 * Started by `subprocess_host.ts` as the hidden command
 * `ragbench __tool-host MODULE_URL EXPORT SIDE_EFFECTS NAME` (NAME: what the config calls it).
 *
 * The module is read with the permission to read its own folder; that
 * permission is revoked before the first call unless the tool declares
 * filesystem side effects.
 *
 * @module
 */

// deno-lint-ignore-file no-console
import { TextLineStream } from "../../lib/util/text_lines.ts";
import type { SideEffects } from "../../lib/types.ts";
import { defineTool, parametersJsonSchema, type ToolDef } from "../define_tool.ts";
// Part of the static module graph, so a tool module importing "ragbench/tool"
// needs no read permission for it.
import "../author.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";
import { callServer } from "./serve_calls.ts";

/** Permissions a tool with these side effects keeps after loading. */
const KEEP: Record<SideEffects, ReadonlySet<Deno.PermissionName>> = {
  none: new Set(),
  filesystem: new Set(["read", "write"]),
  network: new Set(["net"]),
};

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

/** Runs the child until stdin closes. `argv` is `[moduleUrl, exportName, sideEffects, name]`. */
export async function serveCustomTool(argv: readonly string[]): Promise<void> {
  const [moduleUrl, exportName, sideEffects, name] = argv;
  const write = lineWriter();
  // Tool code may print; stdout is the protocol channel, so printing goes to stderr.
  console.log =
    console.info =
    console.debug =
    console.warn =
      console.error;
  let def: ToolDef;
  try {
    def = await loadTool(moduleUrl, exportName);
  } catch (error) {
    await write({ type: "failed", message: (error as Error).message });
    return;
  }
  for (const name of REVOCABLE) {
    if (!KEEP[sideEffects as SideEffects]?.has(name)) {
      Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
    }
  }
  await write({
    type: "ready",
    name: def.name,
    description: def.description,
    parameters: parametersJsonSchema(def),
  });
  const serve = callServer(new Map([[name ?? def.name, def]]), (message) => void write(message));
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  );
  for await (const line of lines) {
    if (line.trim() === "") continue;
    await serve(JSON.parse(line) as HostMessage);
  }
}

async function loadTool(moduleUrl: string, exportName: string): Promise<ToolDef> {
  let module: Record<string, unknown>;
  try {
    module = await import(moduleUrl);
  } catch (error) {
    throw new Error(`cannot import it: ${(error as Error).message.split("\n")[0]}`);
  }
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

function lineWriter(): (message: SandboxMessage) => Promise<void> {
  const encoder = new TextEncoder();
  let queue = Promise.resolve();
  return (message) => {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    queue = queue.then(async () => {
      let offset = 0;
      while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
    });
    return queue;
  };
}
