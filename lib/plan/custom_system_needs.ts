/**
 * The custom systems of a run (`systems/custom/`): their modules (which
 * `run.json` hashes) and what a compiled binary needs for them (it starts
 * itself instead of `deno`, and needs what their processes need). Under
 * `deno run`, ragbench needs only to start `deno` for them (the system's
 * `needs`), and each process gets what its `side_effects` allow.
 *
 * @module
 */

import type { Config } from "../config/types.ts";
import { dirname } from "../util/paths.ts";
import { customSystemModule } from "../../systems/custom/custom_system.ts";
import type { Need } from "./need.ts";

/** The system type of a user's own TypeScript system. */
const CUSTOM_TYPE = "custom";

/** The custom systems of `config` with their modules (absolute) and side effects. */
export function customSystemsOf(
  config: Pick<Config, "systems" | "file">,
): Array<{ name: string; module: string; sideEffects: string }> {
  return config.systems.filter((s) => s.type === CUSTOM_TYPE).map((s) => ({
    name: s.name,
    module: customSystemModule(String(s.options.path), dirname(config.file)).module,
    sideEffects: String(s.options.side_effects),
  }));
}

/** What a compiled binary needs for them (it starts itself, then drops what they do not need). */
export function customSystemCompiledNeeds(config: Pick<Config, "systems" | "file">): Need[] {
  return customSystemsOf(config).flatMap((s): Need[] => {
    const needs: Need[] = [
      { name: "read", value: s.module, why: `custom system ${s.name} (its module)` },
      { name: "run", value: "ragbench", why: "starting the custom systems' processes" },
    ];
    if (s.sideEffects === "filesystem") {
      needs.push(
        { name: "read", value: Deno.cwd(), why: `custom system ${s.name} (filesystem)` },
        { name: "write", value: Deno.cwd(), why: `custom system ${s.name} (filesystem)` },
      );
    }
    if (s.sideEffects === "network") {
      needs.push({ name: "net", value: "", why: `custom system ${s.name} (network)` });
    }
    return needs;
  });
}
