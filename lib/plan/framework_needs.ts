/**
 * What the framework systems of a run need (`systems/frameworks/`): ragbench
 * itself needs only to start `deno` for each framework's process; each
 * process gets its own least permissions (its manifest's), a cleared
 * environment and no network, whatever ragbench holds.
 * `ragbench permissions` prints both.
 *
 * @module
 */

import type { Config } from "../config/types.ts";
import { type FrameworkManifest, FRAMEWORKS } from "../../systems/frameworks/registry.ts";
import type { Need } from "./need.ts";

/** The frameworks the systems of `config` use, each once, in config order. */
export function configFrameworks(config: Pick<Config, "systems">): FrameworkManifest[] {
  const used = new Map<string, FrameworkManifest>();
  for (const system of config.systems) {
    const manifest = FRAMEWORKS.get(system.type);
    if (manifest) used.set(manifest.type, manifest);
  }
  return [...used.values()];
}

/** ragbench's own needs for the framework systems of `config`: run of the deno executable. */
export function frameworkNeeds(config: Pick<Config, "systems">): Need[] {
  const types = configFrameworks(config).map((m) => m.type);
  if (types.length === 0) return [];
  return [{
    name: "run",
    value: Deno.execPath(),
    why: `starting the framework systems' processes (${types.join(", ")})`,
  }];
}

/** One line per framework of `config`: its process's own flags and why it needs them. */
export function frameworkProcessLines(config: Pick<Config, "systems">): string[] {
  const rows = configFrameworks(config).map((m) => [
    `${m.type} (${m.packages.join(", ")})`,
    m.permissions.length
      ? m.permissions.map((p) => `${p.flag}  ${p.why}`).join("; ")
      : "no permissions",
  ]);
  const width = Math.max(0, ...rows.map((r) => r[0].length));
  return rows.map(([name, flags]) => `${name.padEnd(width)}  ${flags}`);
}
