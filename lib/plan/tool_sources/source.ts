/**
 * The seam of tool sources: where a system's tools come from (the built-ins,
 * a custom TypeScript tool, an MCP server, and next plug-ins and framework
 * tools). Each source is one object of this folder, listed once in
 * `registry.ts`, and is the one place that knows its kind of reference: what
 * the config accepts (its checker, injected into `lib/config`), the names a
 * model sees, the permissions a run needs, what `run.json` hashes and
 * `config.resolved.yaml` shows, the pre-flight estimate, how the plan starts
 * its tools, and how `ragbench tools` and `ragbench tool` show and call them
 * (and what they need for it: the launcher grants it).
 * Every facet is required, so a source that forgets one does not compile.
 *
 * @module
 */

import type { ToolRefChecker } from "../../config/tool_check.ts";
import type { Config, ToolRef } from "../../config/types.ts";
import type { Corpus } from "../../types.ts";
import type { ToolCacheSetup } from "../../../tools/cached_host.ts";
import type { ToolHost } from "../../../tools/host.ts";
import type { OpenOptions } from "../../../tools/mcp/connection.ts";
import type { OfferedTool } from "../../../tools/toolbox.ts";
import type { Need } from "../need.ts";

/**
 * Characters assumed for a custom or MCP tool's description and JSON Schema
 * in the pre-flight estimate (only known once its process or server runs).
 */
export const CUSTOM_SCHEMA_CHARS = 400;

/** What a source gets to start a system's tools. */
export interface OfferEnv {
  config: Pick<Config, "tools">;
  /** The system the tools are offered to (for messages). */
  system: string;
  /** What every tool sees: the corpus and the date that is "today". */
  env: { corpus: Corpus; now: string };
  /** Questions run at once: the most processes one tool may use. */
  maxProcesses: number;
  /** A `--mock` run: nothing that reaches outside is started (MCP servers are stood in for). */
  mock: boolean;
  /** Hears a line when something is slow to start. */
  progress?: (text: string) => void;
  /** The host of the built-ins (the sandbox worker), made on first use. */
  builtinHost(): ToolHost;
  /** The host of `search` over the system's retriever. */
  searchHost(): Promise<ToolHost>;
  /** Records and replays the results of tools with side effects (`--cache-tools`); null: off. */
  toolCache: ToolCacheSetup | null;
  /** How MCP connections are opened (the signal that stops a start, where `${VAR}`s come from). */
  mcp: OpenOptions;
  /** Resources shared by every reference, made once and closed with the plan ({@link Shared}). */
  shared: Shared;
}

/** What a source gets to list its tools for `ragbench tools --config`. */
export interface ListEnv {
  config: Pick<Config, "tools">;
  system: string;
  /** Aborted by Ctrl-C: a server being started stops. */
  signal: AbortSignal;
  progress(text: string): void;
  shared: Shared;
}

/** A tool as `ragbench tools --config` lists it (besides the built-ins, which it always lists). */
export interface ToolListing {
  name: string;
  description: string;
  side_effects: string;
  parameters: Record<string, unknown>;
  /** Where it comes from: the key and value of the JSON listing, and the text listing's words. */
  origin: { key: string; value: string; text: string };
}

/** One kind of tool reference: every facet of it (see the module comment). */
export interface ToolSource<R extends ToolRef = ToolRef> extends ToolRefChecker<R> {
  /** Whether `--cache-tools` records its results (side effects, or a server elsewhere). */
  cachesResults(ref: R): boolean;
  /** The Deno permissions a run of it needs (`ragbench permissions`, the run's check). */
  needs(ref: R, ctx: { mock: boolean }): Need[];
  /**
   * What a compiled binary needs for it besides what `needs` gives the process
   * (a compiled binary starts itself for custom tools, and runs without its
   * source folders).
   */
  compiledNeeds(ref: R, ctx: { mock: boolean }): Need[];
  /** Files whose contents decide its results: `run.json` hashes them (`files.custom_tools`). */
  files(ref: R): string[];
  /** Its entry in `config.resolved.yaml`. */
  resolved(ref: R): Record<string, unknown>;
  /** Characters its descriptions and schemas add to each request (the pre-flight estimate). */
  promptChars(ref: R): number;
  /** The built-ins of the sandbox worker it uses (they are loaded and prepared before questions). */
  workerTools(ref: R): string[];
  /**
   * Starts what serves its tools (or joins what `env.shared` holds) and
   * returns them as the system offers them.
   *
   * @throws {RagbenchError} when a tool cannot start (a module that does not load, a server).
   */
  offer(ref: R, env: OfferEnv): Promise<OfferedTool[]>;
  /** Whether `ragbench tool NAME --config` may call its tools one at a time. */
  readonly standalone: boolean;
  /** Its tools for `ragbench tools --config` (starting a server if need be); [] when not listed. */
  list(ref: R, env: ListEnv): Promise<ToolListing[]>;
  /** The Deno permissions {@link list} needs (what starting its server to ask it needs). */
  listNeeds(ref: R, ctx: { mock: boolean }): Need[];
}

/** Declares a tool source (identity, for type inference: a missing facet is a type error). */
export function defineToolSource<R extends ToolRef>(source: ToolSource<R>): ToolSource<R> {
  return source;
}

/** Resources made once for many references and closed together. */
export class Shared {
  readonly #made = new Map<string, { value: Promise<unknown>; close(): Promise<void> | void }>();

  /** The resource under `key`, made by `make` on the first ask; `close` runs in {@link closeAll}. */
  get<T>(
    key: string,
    make: () => Promise<T> | T,
    close: (value: T) => Promise<void> | void,
  ): Promise<T> {
    const made = this.#made.get(key);
    if (made) return made.value as Promise<T>;
    const value = Promise.resolve().then(make);
    this.#made.set(key, {
      value,
      close: () => value.then(close, () => {}),
    });
    return value;
  }

  /** Closes every resource made (those whose making failed are skipped). */
  async closeAll(): Promise<void> {
    const all = [...this.#made.values()];
    this.#made.clear();
    await Promise.all(all.map((m) => m.close()));
  }
}
