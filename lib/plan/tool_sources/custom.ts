/**
 * Custom TypeScript tools as a tool source: `{name, path: "./file.ts#export",
 * side_effects, timeout_s, description, memory_mb, load_timeout_s}`, the
 * module written with `ragbench/tool`. Each runs in processes of its own
 * (`tools/sandbox/subprocess_host.ts`), started by `deno run` with only the
 * permissions its side effects need; a run starts one pool per tool, shared
 * by every system naming it. Its module is hashed into `run.json`, so an
 * edited tool refuses `--resume`.
 *
 * @module
 */

import { customToolRefSchema } from "../../config/schema.ts";
import { checkSideEffects, claimName } from "../../config/tool_check.ts";
import type { ToolRef } from "../../config/types.ts";
import type { Corpus, SideEffects } from "../../types.ts";
import { dirname, isAbsolute, resolvePath } from "../../util/paths.ts";
import { issuesFromZod } from "../../util/yaml_source.ts";
import type { OfferedTool } from "../../../tools/toolbox.ts";
import type { Need } from "../need.ts";
import { CUSTOM_SCHEMA_CHARS, defineToolSource } from "./source.ts";

/** A custom tool a system offers. */
export interface CustomToolRef extends ToolRef {
  readonly kind: "custom";
  /** Absolute path of the module. */
  module: string;
  exportName: string;
  side_effects: SideEffects;
  timeout_s?: number;
  description?: string;
  memory_mb?: number;
  load_timeout_s?: number;
}

/** Custom TypeScript tools: an entry with a `path:`. */
export const customSource = defineToolSource<CustomToolRef>({
  kind: "custom",
  entryType: null,
  claims: ({ entry }) => "path" in entry,
  check({ entry, at }, ctx) {
    if (!claimName(String(entry.name), at, ctx)) return undefined;
    const parsed = customToolRefSchema.safeParse(entry);
    if (!parsed.success) {
      ctx.problems.push(...issuesFromZod(ctx.source, parsed.error, customToolRefSchema, at, entry));
      return undefined;
    }
    const raw = parsed.data;
    if (ctx.builtins.has(raw.name)) {
      ctx.problems.push({
        position: ctx.source.positionOf([...at, "name"]),
        message: `custom tool "${raw.name}" reuses the name of a built-in tool`,
        hint: "choose another name",
      });
      return undefined;
    }
    const [file, exportName] = raw.path.split("#");
    const ref: CustomToolRef = {
      kind: "custom",
      name: raw.name,
      module: isAbsolute(file) ? file : resolvePath(dirname(ctx.configPath), file),
      exportName,
      side_effects: raw.side_effects,
      ...(raw.timeout_s === undefined ? {} : { timeout_s: raw.timeout_s }),
      ...(raw.description === undefined ? {} : { description: raw.description }),
      ...(raw.memory_mb === undefined ? {} : { memory_mb: raw.memory_mb }),
      ...(raw.load_timeout_s === undefined ? {} : { load_timeout_s: raw.load_timeout_s }),
    };
    const earlier = ctx.defined.get(ref.name) as CustomToolRef | undefined;
    if (earlier && earlier.kind !== "custom") {
      ctx.problems.push({
        position: ctx.source.positionOf([...at, "name"]),
        message: `custom tool "${ref.name}" reuses the name of a plug-in tool`,
        hint: "choose another name",
      });
      return undefined;
    }
    if (earlier && (earlier.module !== ref.module || earlier.exportName !== ref.exportName)) {
      ctx.problems.push({
        position: ctx.source.positionOf([...at, "path"]),
        message: `custom tool "${ref.name}" is defined twice with different paths`,
      });
      return undefined;
    }
    ctx.defined.set(ref.name, ref);
    return checkSideEffects(ref.name, ref.side_effects, at, ctx) ? ref : undefined;
  },
  predefine: () => [],
  offeredNames: (ref) => [ref.name],
  cachesResults: (ref) => ref.side_effects !== "none",
  needs: () => [{ name: "run", value: Deno.execPath(), why: "starting custom tools' processes" }],
  compiledNeeds(ref) {
    const needs: Need[] = [{
      name: "read",
      value: ref.module,
      why: `custom tool ${ref.name} (its module)`,
    }];
    if (ref.side_effects === "filesystem") {
      needs.push(
        { name: "read", value: Deno.cwd(), why: `custom tool ${ref.name} (filesystem)` },
        { name: "write", value: Deno.cwd(), why: `custom tool ${ref.name} (filesystem)` },
      );
    }
    if (ref.side_effects === "network") {
      needs.push({ name: "net", value: "", why: `custom tool ${ref.name} (network)` });
    }
    needs.push({ name: "run", value: "ragbench", why: "starting custom tools' processes" });
    return needs;
  },
  files: (ref) => [ref.module],
  resolved: (ref) => ({ ...ref, kind: undefined }),
  promptChars: (ref) => ref.name.length + (ref.description?.length ?? 0) + CUSTOM_SCHEMA_CHARS,
  workerTools: () => [],
  async offer(ref, env) {
    // One pool of processes per tool, shared by every system that names it.
    const tool = await env.shared.get(`custom:${ref.name}`, async () => {
      const offered = await offerCustom(ref, {
        ...env.env,
        maxProcesses: env.maxProcesses,
        ...(env.progress ? { progress: env.progress } : {}),
      }, env.config);
      if (env.toolCache === null || offered.sideEffects === "none") {
        return { offered, own: offered };
      }
      const server = `custom:${ref.module}#${ref.exportName}`;
      const { withToolCache } = await import("../../../tools/cached_host.ts");
      return {
        offered: { ...offered, host: withToolCache(offered.host, env.toolCache, server) },
        own: offered,
      };
    }, ({ own }) => own.host.close());
    return [tool.offered];
  },
  standalone: true,
  list: () => Promise.resolve([]),
  listNeeds: () => [],
});

/**
 * Starts a custom tool's first process and returns its offered form; the
 * caller owns (and must close) `host`.
 *
 * @throws {RagbenchError} when the module cannot be loaded.
 */
export async function offerCustom(
  ref: CustomToolRef,
  env: { corpus: Corpus; now: string; maxProcesses: number; progress?: (text: string) => void },
  config: { tools: { timeout_s: number } },
): Promise<OfferedTool> {
  const { startCustomTool } = await import("../../../tools/sandbox/subprocess_host.ts");
  const host = await startCustomTool({
    name: ref.name,
    module: ref.module,
    exportName: ref.exportName,
    sideEffects: ref.side_effects,
    ...(ref.description === undefined ? {} : { description: ref.description }),
    ...(ref.memory_mb === undefined ? {} : { memoryMb: ref.memory_mb }),
  }, {
    ...env,
    ...(ref.load_timeout_s === undefined ? {} : { loadTimeoutMs: ref.load_timeout_s * 1000 }),
  });
  return {
    name: ref.name,
    description: host.info.description,
    sideEffects: ref.side_effects,
    parameters: host.info.parameters,
    options: {},
    timeoutMs: (ref.timeout_s ?? config.tools.timeout_s) * 1000,
    host,
  };
}
