/**
 * `tools.plugins`: packages (or local modules) that contribute tools to the
 * run's registry, `{module, tools, permissions}`. A package is named at an
 * exact version (`npm:@acme/ragbench-tools@1.2.3`, `jsr:@acme/tools@0.4.0`):
 * a range or a missing version would let the tools change between two runs
 * of one config. What it may do is what `permissions` grants its processes
 * (read and write of paths, hosts, environment variables) and nothing else.
 * The tools it contributes are named by their own names, anywhere a built-in
 * is (a system's `tools:`, `requires_tools`); a name a built-in has is
 * refused. How they run: `lib/plan/tool_sources/plugin.ts`.
 *
 * @module
 */

import { z } from "zod";

/** An exact semantic version: `1.2.3`, `1.2.3-beta.1`, `1.2.3+build.5`. */
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
/** `npm:` / `jsr:` name, `@` version, then an optional subpath. */
const PACKAGE = /^(npm|jsr):(@[a-z0-9][\w.-]*\/[\w.-]+|[a-z0-9][\w.-]*)(?:@([^/]*))?(\/.*)?$/;

/** A package specifier's parts; null for a path. */
export function packageParts(
  module: string,
): { scheme: string; name: string; version: string | null; subpath: string } | null {
  const m = PACKAGE.exec(module);
  if (m === null) return null;
  return { scheme: m[1], name: m[2], version: m[3] ?? null, subpath: m[4] ?? "" };
}

/** Why `module` cannot be a plug-in's module; null when it can. */
export function moduleProblem(module: string): string | null {
  if (/^(npm|jsr):/.test(module)) {
    const parts = packageParts(module);
    if (parts === null) return `"${module}" is not a package name`;
    if (parts.version === null || !EXACT_VERSION.test(parts.version)) {
      return `"${module}" must name an exact version (like npm:@acme/ragbench-tools@1.2.3), not ${
        parts.version === null ? "no version" : `"${parts.version}"`
      }: a range could load other code in the next run`;
    }
    return null;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(module) && !/^[a-z]:[\\/]/i.test(module)) {
    return `"${module}" is neither a package (npm:, jsr:) nor a path: runs never download code`;
  }
  if (!/\.(ts|mts|js|mjs)$/.test(module)) {
    return `"${module}" must be a TypeScript or JavaScript module (.ts, .mts, .js, .mjs)`;
  }
  return null;
}

const toolName = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/, "use letters, digits and _");

/** Hosts (`host` or `host:port`), paths or variable names a plug-in's processes may use. */
const grants = z.array(
  z.string().min(1).max(1000).refine((v) => !v.includes(","), "list one value an entry"),
).max(100);

/** A plug-in's permissions: only these are granted to its processes. */
export const pluginPermissionsSchema = z.strictObject({
  read: grants.optional(),
  write: grants.optional(),
  net: grants.optional(),
  env: grants.optional(),
});

/**
 * One entry of `tools.plugins`; the output adds `package`, what `run.json`
 * records of its code ({@link pluginPackage}).
 */
export const pluginSchema = z.strictObject({
  module: z.string().min(1).superRefine((module, ctx) => {
    const problem = moduleProblem(module);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  }),
  /** The tools it contributes, by their own names. */
  tools: z.array(toolName).min(1, "list the tools it contributes").max(100),
  permissions: pluginPermissionsSchema.default({}),
}).transform((plugin) => ({ ...plugin, package: pluginPackage(plugin.module) }));

/** A plug-in as the config gives it. */
export type PluginConfig = z.output<typeof pluginSchema>;

/**
 * What `run.json` records of a plug-in's code: `name@version` of a package,
 * `local` for a module on disk (whose contents `inputs.custom_tools` hashes).
 */
export function pluginPackage(module: string): string {
  const parts = packageParts(module);
  return parts === null ? "local" : `${parts.scheme}:${parts.name}@${parts.version}`;
}
