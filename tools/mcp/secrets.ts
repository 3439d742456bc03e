/**
 * `${VAR}` in an MCP server's `env` and `headers`: filled from the
 * environment when the server starts, and every filled-in value remembered
 * so that it can be masked wherever text from or about the server is shown
 * or stored (error messages, stderr excerpts, tool output).
 *
 * @module
 */

import { RagbenchError } from "../../lib/errors.ts";

const TEMPLATE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** What replaces a secret in any text ragbench shows or writes. */
export const MASK = "[secret]";

/**
 * Shorter values are not masked: they are no secrets (a flag such as "1" or
 * "true"), and masking them would corrupt every result that contains them.
 */
export const MIN_SECRET_CHARS = 6;

/** Values taken from the environment, to be masked. */
export class Secrets {
  #values: string[] = [];

  /** Remembers a value (one under {@link MIN_SECRET_CHARS} characters is not masked). */
  add(value: string): void {
    if (value.length >= MIN_SECRET_CHARS && !this.#values.includes(value)) {
      this.#values.push(value);
      // Longest first, so a secret containing another is masked whole.
      this.#values.sort((a, b) => b.length - a.length);
    }
  }

  /** `text` with every remembered value replaced by {@link MASK}. Linear in the text per secret. */
  redact(text: string): string {
    let out = text;
    for (const value of this.#values) if (out.includes(value)) out = out.split(value).join(MASK);
    return out;
  }
}

/**
 * Fills `${VAR}` in each value from `getEnv`; records the filled values.
 *
 * @throws {RagbenchError} (code "config") naming the variable (never a value) when one is unset.
 */
export function fillTemplates(
  values: Readonly<Record<string, string>>,
  getEnv: (name: string) => string | undefined,
  secrets: Secrets,
  where: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, template] of Object.entries(values)) {
    const filled = template.replaceAll(TEMPLATE, (_m, name: string) => {
      const value = getEnv(name);
      if (value === undefined) {
        throw new RagbenchError(
          "config",
          `Cannot start ${where}: ${key} refers to \${${name}}, which is not set in the environment.`,
        );
      }
      secrets.add(value);
      return value;
    });
    Object.defineProperty(out, key, {
      value: filled,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Reads a variable, treating one this process may not read as unset. */
export function readEnv(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name);
}
