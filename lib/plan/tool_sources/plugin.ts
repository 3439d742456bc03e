/**
 * Tool plug-ins as a tool source: `tools.plugins: [{module, tools,
 * permissions}]` (`lib/config/plugin_schema.ts`) defines each listed tool
 * for the whole config, and a system names one alone, like a built-in. Each
 * tool runs in the custom-tool sandbox (`tools/sandbox/subprocess_host.ts`):
 * processes of its own started with exactly the plug-in's declared
 * permissions (no others, none revoked that it declared), a cleared
 * environment but for the variables it declared, `--cached-only --no-remote`
 * and the lock file frozen, so a run never downloads or re-resolves a
 * package. Its tool is found among the module's exports by its own name and
 * checked like a built-in (`defineTool`: name, description, an object schema
 * with every parameter described) when its first process starts.
 *
 * @module
 */

import { describePath } from "../../util/yaml_source.ts";
import { packageParts, type PluginConfig, pluginPackage } from "../../config/plugin_schema.ts";
import type { Config, ToolRef } from "../../config/types.ts";
import type { SideEffects } from "../../types.ts";
import { dirname, isAbsolute, resolvePath } from "../../util/paths.ts";
import type { SandboxPermissions } from "../../../tools/sandbox/tool_command.ts";
import type { OfferedTool } from "../../../tools/toolbox.ts";
import type { Need } from "../need.ts";
import { CUSTOM_SCHEMA_CHARS, defineToolSource, type OfferEnv } from "./source.ts";

/** A plug-in's tool a system offers. */
export interface PluginToolRef extends ToolRef {
  readonly kind: "plugin";
  /** The package specifier (`npm:...@1.2.3`), or the module's absolute path. */
  module: string;
  /** `name@version` of a package; `local` for a module on disk. */
  package: string;
  permissions: SandboxPermissions;
  /** What its permissions amount to, for `tools.allow_network` and the reports. */
  side_effects: SideEffects;
}

/** The side effects a plug-in's permissions amount to. */
export function pluginSideEffects(permissions: SandboxPermissions): SideEffects {
  if ((permissions.net?.length ?? 0) > 0) return "network";
  if ((permissions.read?.length ?? 0) + (permissions.write?.length ?? 0) > 0) return "filesystem";
  return "none";
}

/** The plug-ins' tools: defined by `tools.plugins`, named alone by systems. */
export const pluginSource = defineToolSource<PluginToolRef>({
  kind: "plugin",
  entryType: null,
  // Never claims an entry: its tools are defined up front (predefine) and named alone.
  claims: () => false,
  check: () => undefined,
  predefine(ctx) {
    const refs: PluginToolRef[] = [];
    const owner = new Map<string, number>();
    ctx.rules.plugins.forEach((plugin: PluginConfig, i: number) => {
      const at = ["tools", "plugins", i];
      const effects = pluginSideEffects(plugin.permissions);
      if (effects === "network" && !ctx.rules.allow_network) {
        ctx.problems.push({
          position: ctx.source.positionOf([...at, "permissions", "net"]),
          message:
            `plug-in "${plugin.module}" asks for the network, which tools.allow_network forbids`,
          hint: "set tools.allow_network: true to permit it",
        });
        return;
      }
      plugin.tools.forEach((name, j) => {
        const position = ctx.source.positionOf([...at, "tools", j]);
        if (ctx.builtins.has(name)) {
          ctx.problems.push({
            position,
            message:
              `plug-in "${plugin.module}" contributes a tool named "${name}", the name of a built-in tool`,
            hint: "a plug-in cannot replace a built-in: leave it out of the plug-in's tools",
          });
          return;
        }
        const earlier = owner.get(name);
        if (earlier !== undefined) {
          ctx.problems.push({
            position,
            message: `tool "${name}" is contributed twice (by ${
              describePath(["tools", "plugins", earlier])
            } and ${describePath(at)})`,
          });
          return;
        }
        owner.set(name, i);
        refs.push(pluginToolRef(plugin, name, ctx.configPath));
      });
    });
    return refs;
  },
  offeredNames: (ref) => [ref.name],
  cachesResults: (ref) => ref.side_effects !== "none",
  needs: () => [{ name: "run", value: Deno.execPath(), why: "starting plug-in tools' processes" }],
  compiledNeeds(ref) {
    const why = `plug-in tool ${ref.name}`;
    const needs: Need[] = [];
    if (ref.package === "local") needs.push({ name: "read", value: ref.module, why });
    for (const value of ref.permissions.read ?? []) needs.push({ name: "read", value, why });
    for (const value of ref.permissions.write ?? []) needs.push({ name: "write", value, why });
    for (const value of ref.permissions.net ?? []) needs.push({ name: "net", value, why });
    for (const value of ref.permissions.env ?? []) needs.push({ name: "env", value, why });
    needs.push({ name: "run", value: "ragbench", why: "starting plug-in tools' processes" });
    return needs;
  },
  files: (ref) => ref.package === "local" ? [ref.module] : [],
  resolved: (ref) => ({ name: ref.name, plugin: ref.module, package: ref.package }),
  promptChars: (ref) => ref.name.length + CUSTOM_SCHEMA_CHARS,
  workerTools: () => [],
  async offer(ref, env) {
    const tool = await env.shared.get(`plugin:${ref.module}#${ref.name}`, async () => {
      const offered = await startPluginTool(ref, env);
      if (env.toolCache === null || offered.sideEffects === "none") {
        return { offered, own: offered };
      }
      const { withToolCache } = await import("../../../tools/cached_host.ts");
      return {
        offered: {
          ...offered,
          host: withToolCache(offered.host, env.toolCache, `plugin:${ref.package}#${ref.name}`),
        },
        own: offered,
      };
    }, ({ own }) => own.host.close());
    return [tool.offered];
  },
  standalone: true,
  async list(ref, env) {
    env.progress(`Starting plug-in tool "${ref.name}" to read its description and schema…`);
    const offered = await env.shared.get(
      `plugin-list:${ref.module}#${ref.name}`,
      () =>
        startPluginTool(ref, {
          config: env.config,
          env: { corpus: { documents: [], tables: [] }, now: "2026-01-01" },
          maxProcesses: 1,
        }),
      (t) => t.host.close(),
    );
    return [{
      name: offered.name,
      description: offered.description,
      side_effects: offered.sideEffects,
      parameters: offered.parameters,
      origin: {
        key: "plugin",
        value: ref.package === "local" ? ref.module : ref.package,
        text: `plug-in ${ref.package === "local" ? `"${ref.module}"` : ref.package}`,
      },
    }];
  },
  listNeeds: () => [
    { name: "run", value: Deno.execPath(), why: "starting plug-in tools' processes" },
  ],
});

/** The reference to the tool `name` of `plugin` (a config at `configPath`). */
function pluginToolRef(plugin: PluginConfig, name: string, configPath: string): PluginToolRef {
  const local = packageParts(plugin.module) === null;
  return {
    kind: "plugin",
    name,
    module: local && !isAbsolute(plugin.module)
      ? resolvePath(dirname(configPath), plugin.module)
      : plugin.module,
    package: pluginPackage(plugin.module),
    permissions: plugin.permissions,
    side_effects: pluginSideEffects(plugin.permissions),
  };
}

/**
 * Every tool of the plug-ins of a loaded config (whether or not a system
 * offers it): `ragbench tools --config` lists them, `ragbench tool` calls
 * them, `run.json` hashes their local modules.
 */
export function pluginToolRefs(config: Pick<Config, "tools" | "file">): PluginToolRef[] {
  return config.tools.plugins.flatMap((plugin) =>
    plugin.tools.map((name) => pluginToolRef(plugin, name, config.file))
  );
}

/**
 * Starts a plug-in tool's first process and returns its offered form; the
 * caller owns (and must close) `host`.
 *
 * @throws {RagbenchError} when the module cannot be loaded or the tool is not valid.
 */
async function startPluginTool(
  ref: PluginToolRef,
  env: Pick<OfferEnv, "config" | "env" | "maxProcesses" | "progress">,
): Promise<OfferedTool> {
  const { startCustomTool } = await import("../../../tools/sandbox/subprocess_host.ts");
  const host = await startCustomTool({
    name: ref.name,
    module: ref.module,
    exportName: "*",
    sideEffects: ref.side_effects,
    permissions: ref.permissions,
    label: `plug-in tool "${ref.name}" from "${ref.module}"`,
  }, {
    ...env.env,
    maxProcesses: env.maxProcesses,
    ...(env.progress ? { progress: env.progress } : {}),
  });
  return {
    name: ref.name,
    description: host.info.description,
    sideEffects: ref.side_effects,
    parameters: host.info.parameters,
    options: {},
    timeoutMs: env.config.tools.timeout_s * 1000,
    host,
  };
}
