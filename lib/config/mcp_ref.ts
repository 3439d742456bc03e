/**
 * The `{type: mcp, ...}` tool reference: its strict schema and the check
 * that turns it into a {@link McpToolRef}. Checking never starts the server:
 * it validates the entry, the `${VAR}` templates, the prices and the names
 * the model will see (`prefix` + each name under `allow`).
 *
 * @module
 */

import { dirname } from "../util/paths.ts";
import { z } from "zod";
import type { ConfigIssue } from "../errors.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { issuesFromZod, type ValuePath, type YamlSource } from "../util/yaml_source.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** What a model may call a tool (the OpenAI function-name rule). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** `${NAME}` in an env or header value. Static and linear-time: no backtracking. */
const TEMPLATE = /\$\{([^}]*)\}/g;

/** A command (stdio) server: `{command: [exe, args...], env: {NAME: value}}`. */
export const mcpCommandServerSchema = z.strictObject({
  command: z.array(z.string().min(1)).min(1, "give the executable and its arguments"),
  env: z.record(z.string().regex(ENV_NAME, "must be an environment variable name"), z.string())
    .default({}),
});

/** A url (Streamable HTTP) server: `{url: "https://...", headers: {Name: value}}`. */
export const mcpUrlServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string().regex(HEADER_NAME, "must be an HTTP header name"), z.string())
    .default({}),
});

/** The entry before its server is checked (the server's shape depends on `url`). */
export const mcpRefSchema = z.strictObject({
  type: z.literal("mcp"),
  server: z.record(z.string(), z.unknown()),
  /** Required: only these tools of the server are offered, by the server's own names. */
  allow: z.array(z.string().regex(TOOL_NAME, "use letters, digits, _ and -")).min(
    1,
    "list the server's tools the system may call",
  ),
  /** Prepended to each name the model sees. */
  prefix: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, "use letters, digits, _ and -")
    .default(""),
  /** US dollars per call: one price for every tool, or a price per tool name. */
  cost_usd: z.union([z.number().nonnegative(), z.record(z.string(), z.number().nonnegative())])
    .default(0),
  timeout_s: z.number().positive().max(600).optional(),
});

/** A server, as the config defines it (`${VAR}` not yet filled in). */
export type McpServerDef =
  | {
    kind: "command";
    command: string[];
    env: Record<string, string>;
    /** Working directory: the config file's folder. */
    cwd: string;
  }
  | { kind: "url"; url: string; headers: Record<string, string> };

/** A checked `{type: mcp}` reference of one system. */
export interface McpToolRef {
  kind: "mcp";
  /** `mcp <server label>`, for messages and duplicate checks. */
  name: string;
  server: McpServerDef;
  /** The server's names of the tools offered. */
  allow: string[];
  prefix: string;
  cost_usd: number | Record<string, number>;
  timeout_s?: number;
}

/**
 * The short human name of a server: its command line (executable without its
 * folder; the middle cut when long) or its URL (without query).
 */
export function serverLabel(server: McpServerDef): string {
  if (server.kind === "url") {
    const url = new URL(server.url);
    return `${url.origin}${url.pathname}`;
  }
  const [exe, ...args] = server.command;
  const text = [exe.slice(exe.lastIndexOf("/") + 1), ...args].join(" ");
  return text.length > 100 ? `${text.slice(0, 30)}…${text.slice(-69)}` : text;
}

/** The names a model sees for the tools of `ref`. */
export function offeredNames(ref: McpToolRef): string[] {
  return ref.allow.map((name) => ref.prefix + name);
}

/** The price of one call of `tool` (the server's name). */
export function priceOf(ref: McpToolRef, tool: string): number {
  if (typeof ref.cost_usd === "number") return ref.cost_usd;
  return new Map(Object.entries(ref.cost_usd)).get(tool) ?? 0;
}

/** Variable names that `${VAR}` templates in `values` refer to. */
export function templateVariables(values: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const value of values) for (const m of value.matchAll(TEMPLATE)) names.add(m[1]);
  return [...names];
}

/** What the check needs from the rest of the loader. */
export interface McpRefContext {
  source: YamlSource;
  configPath: string;
  allowNetwork: boolean;
  /** Built-in and custom tool names, which an MCP tool may not shadow. */
  reserved: ReadonlySet<string>;
  /** Names already offered by this system; the check adds its own. */
  seen: Set<string>;
  problems: ConfigIssue[];
}

/** Checks one `{type: mcp}` entry at `at`; pushes problems and returns undefined when it is bad. */
export function checkMcpRef(
  entry: Readonly<Record<string, unknown>>,
  at: ValuePath,
  ctx: McpRefContext,
): McpToolRef | undefined {
  const { source, problems } = ctx;
  const parsed = mcpRefSchema.safeParse(entry);
  if (!parsed.success) {
    problems.push(...issuesFromZod(source, parsed.error, mcpRefSchema, at, entry));
    return undefined;
  }
  const ref = parsed.data;
  const server = checkServer(ref.server, [...at, "server"], ctx);
  if (!server) return undefined;
  let ok = true;
  if (typeof ref.cost_usd === "object") {
    for (const tool of Object.keys(ref.cost_usd)) {
      if (!ref.allow.includes(tool)) {
        problems.push({
          position: source.positionOf([...at, "cost_usd", tool], { key: true }),
          message: `cost_usd prices "${tool}", which is not under allow`,
          hint: suggestion(tool, ref.allow),
        });
        ok = false;
      }
    }
  }
  ref.allow.forEach((tool, i) => {
    const offered = ref.prefix + tool;
    const position = source.positionOf([...at, "allow", i]);
    if (offered.length > 64) {
      problems.push({ position, message: `MCP tool name "${offered}" is over 64 characters` });
      ok = false;
    } else if (ctx.reserved.has(offered)) {
      problems.push({
        position,
        message: `MCP tool "${offered}" would shadow the ragbench tool of that name`,
        hint: "set a prefix: on the entry, e.g. prefix: mcp_",
      });
      ok = false;
    } else if (ctx.seen.has(offered)) {
      problems.push({ position, message: `tool "${offered}" is offered twice by this system` });
      ok = false;
    }
    ctx.seen.add(offered);
  });
  if (!ok) return undefined;
  return {
    kind: "mcp",
    name: `mcp ${serverLabel(server)}`,
    server,
    allow: ref.allow,
    prefix: ref.prefix,
    cost_usd: ref.cost_usd,
    ...(ref.timeout_s === undefined ? {} : { timeout_s: ref.timeout_s }),
  };
}

function checkServer(
  raw: Record<string, unknown>,
  at: ValuePath,
  ctx: McpRefContext,
): McpServerDef | undefined {
  const { source, problems } = ctx;
  const isUrl = Object.hasOwn(raw, "url");
  if (!isUrl && !Object.hasOwn(raw, "command")) {
    problems.push({
      position: source.positionOf(at),
      message: "an MCP server needs a command: [...] (stdio) or a url: (Streamable HTTP)",
    });
    return undefined;
  }
  if (isUrl && Object.hasOwn(raw, "command")) {
    problems.push({
      position: source.positionOf(at),
      message: "an MCP server has either a command or a url, not both",
    });
    return undefined;
  }
  const schema = isUrl ? mcpUrlServerSchema : mcpCommandServerSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    problems.push(...issuesFromZod(source, parsed.error, schema, at, raw));
    return undefined;
  }
  const values = "url" in parsed.data ? parsed.data.headers : parsed.data.env;
  const field = "url" in parsed.data ? "headers" : "env";
  let ok = true;
  for (const [key, value] of Object.entries(values)) {
    const bad = badTemplate(value);
    if (bad !== null) {
      problems.push({
        position: source.positionOf([...at, field, key]),
        message: `${field}.${key}: "${bad}" is not a valid \${VAR} reference`,
        hint: "write ${NAME} with a variable name of letters, digits and _",
      });
      ok = false;
    }
  }
  if (!ok) return undefined;
  if ("url" in parsed.data) {
    if (!ctx.allowNetwork) {
      problems.push({
        position: source.positionOf([...at, "url"]),
        message: "an MCP url server is a network tool, which tools.allow_network forbids",
        hint: "set tools.allow_network: true to permit it",
      });
      return undefined;
    }
    return { kind: "url", url: parsed.data.url, headers: parsed.data.headers };
  }
  return {
    kind: "command",
    command: parsed.data.command,
    env: parsed.data.env,
    cwd: dirname(ctx.configPath),
  };
}

/** The first malformed `${...}` in `value` (also an unclosed `${`), or null. */
function badTemplate(value: string): string | null {
  for (const m of value.matchAll(TEMPLATE)) {
    if (!ENV_NAME.test(m[1])) return m[0];
  }
  const stripped = value.replaceAll(TEMPLATE, "");
  const open = stripped.indexOf("${");
  return open === -1 ? null : stripped.slice(open, open + 20);
}
