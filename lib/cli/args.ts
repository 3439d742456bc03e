/**
 * Command-line parsing: each command declares its options once, and the
 * same declaration drives parsing, `--help` text and did-you-mean hints for
 * unknown options.
 *
 * @module
 */

import { UsageError } from "../errors.ts";
import { closestMatch } from "../util/did_you_mean.ts";

/** One `--option` of a command. */
export interface OptionSpec {
  name: string;
  /** Takes a value (`--out DIR`), or is a switch (`--mock`). */
  value?: string;
  description: string;
}

/** A command's declaration. */
export interface CommandSpec {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Positional arguments, e.g. `CONFIG`; the last may be `variadic` (one or more: `DIR...`). */
  positionals: ReadonlyArray<{ name: string; optional?: boolean; variadic?: boolean }>;
  options: readonly OptionSpec[];
  /** Extra paragraphs for `--help`. */
  notes?: string;
}

/** Parsed arguments of one command. */
export interface ParsedArgs {
  positionals: string[];
  /** Option values by name; switches are "true". */
  options: Map<string, string>;
}

/** Options every command accepts. */
export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { name: "help", description: "Show this help." },
  { name: "debug", description: "Print stack traces of errors." },
];

/**
 * Parses `argv` (after the command name) against `spec`. `program` is how
 * the messages name ragbench (`deno task ragbench`, see invocation.ts).
 *
 * @throws {UsageError} for unknown options (with a did-you-mean), missing
 *   values, and a wrong number of positional arguments.
 */
export function parseArgs(
  spec: CommandSpec,
  argv: readonly string[],
  program = "ragbench",
): ParsedArgs {
  const known = [...spec.options, ...COMMON_OPTIONS];
  const byName = new Map(known.map((o) => [o.name, o]));
  const positionals: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      options.set("help", "true");
      continue;
    }
    if (!arg.startsWith("--")) {
      if (arg.startsWith("-") && arg.length > 1) {
        throw new UsageError(
          `Unknown option "${arg}" for "ragbench ${spec.name}"; options start with --. See ${program} ${spec.name} --help.`,
        );
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const option = byName.get(name);
    if (!option) {
      const near = closestMatch(name, byName.keys());
      throw new UsageError(
        `Unknown option "--${name}" for "ragbench ${spec.name}"${
          near ? ` — did you mean "--${near}"?` : "."
        } See ${program} ${spec.name} --help.`,
      );
    }
    if (option.value === undefined) {
      if (eq !== -1) throw new UsageError(`Option --${name} takes no value.`);
      options.set(name, "true");
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq === -1 && value.startsWith("--"))) {
      throw new UsageError(`Option --${name} needs a value: --${name} ${option.value}.`);
    }
    options.set(name, value);
  }
  if (options.has("help")) return { positionals, options };
  const required = spec.positionals.filter((p) => !p.optional).length;
  const most = spec.positionals.at(-1)?.variadic ? Infinity : spec.positionals.length;
  if (positionals.length < required || positionals.length > most) {
    const usage = usageLine(spec, program);
    const missing = spec.positionals[positionals.length];
    throw new UsageError(
      positionals.length < required
        ? `Missing ${missing.name} — usage: ${usage}`
        : `Too many arguments ("${
          positionals.slice(spec.positionals.length).join(" ")
        }") — usage: ${usage}`,
    );
  }
  return { positionals, options };
}

/** `ragbench run CONFIG [options]` (`program` in place of `ragbench`). */
export function usageLine(spec: CommandSpec, program = "ragbench"): string {
  const args = spec.positionals.map((p) => {
    const name = p.variadic ? `${p.name}...` : p.name;
    return p.optional ? `[${name}]` : name;
  }).join(" ");
  return `${program} ${spec.name}${args ? ` ${args}` : ""} [options]`;
}

/** The `--help` text of a command. */
export function commandHelp(spec: CommandSpec, program = "ragbench"): string {
  const rows = [...spec.options, ...COMMON_OPTIONS].map((o) => [
    `--${o.name}${o.value ? ` ${o.value}` : ""}`,
    o.description,
  ]);
  const width = Math.max(...rows.map((r) => r[0].length));
  const lines = [
    `Usage: ${usageLine(spec, program)}`,
    "",
    spec.summary,
    "",
    "Options:",
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
  ];
  if (spec.notes) lines.push("", spec.notes);
  return lines.join("\n");
}

/**
 * A whole number option within a range, or `fallback` when absent.
 *
 * @throws {UsageError} when it is not a whole number in range.
 */
export function intOption(
  args: ParsedArgs,
  name: string,
  range: { min: number; max: number },
): number | undefined {
  const raw = args.options.get(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < range.min || value > range.max) {
    throw new UsageError(
      `--${name} must be a whole number from ${range.min} to ${range.max} (got "${raw}").`,
    );
  }
  return value;
}
