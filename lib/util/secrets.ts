/**
 * `${VAR}` templates (an MCP server's `env` and `headers`, a retriever's
 * connection string and headers): filled from the environment when the
 * server or engine is first reached, and every filled-in value remembered
 * so that it can be masked wherever text from or about it is shown or
 * stored (error messages, stderr excerpts, tool output).
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";

const TEMPLATE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** What replaces a secret in any text ragbench shows or writes. */
export const MASK = "[secret]";

/**
 * Shorter values are not masked: they are no secrets (a flag such as "1" or
 * "true"), and masking them would corrupt every result that contains them.
 */
export const MIN_SECRET_CHARS = 6;

/**
 * Values taken from the environment, to be masked. Each is masked as it is
 * and as JSON writes it inside a string (`"` as `\"`, control characters
 * escaped), since much of what a server sends is JSON text.
 */
export class Secrets {
  #values: string[] = [];

  /** Remembers a value (one under {@link MIN_SECRET_CHARS} characters is not masked). */
  add(value: string): void {
    if (value.length < MIN_SECRET_CHARS) return;
    for (const form of [value, JSON.stringify(value).slice(1, -1)]) {
      if (!this.#values.includes(form)) this.#values.push(form);
    }
    // Longest first, so a secret containing another is masked whole.
    this.#values.sort((a, b) => b.length - a.length);
  }

  /** Whether any value is remembered (with none, nothing needs masking). */
  get empty(): boolean {
    return this.#values.length === 0;
  }

  /** `text` with every remembered value replaced by {@link MASK}. Linear in the text per secret. */
  redact(text: string): string {
    let out = text;
    for (const value of this.#values) if (out.includes(value)) out = out.split(value).join(MASK);
    return out;
  }

  /**
   * `value` (JSON data from a server: a tool's schema) with every string in
   * it, keys included, passed through {@link redact}. Changed in place, and
   * walked with a list, so a value nested any depth is masked.
   */
  redactJson<T>(value: T): T {
    if (this.empty) return value;
    if (typeof value === "string") return this.redact(value) as T;
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const node = pending.pop();
      if (node === null || typeof node !== "object") continue;
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        const masked = typeof item === "string" ? this.redact(item) : item;
        if (item !== null && typeof item === "object") pending.push(item);
        const maskedKey = Array.isArray(record) ? key : this.redact(key);
        if (maskedKey === key && masked === item) continue;
        if (maskedKey !== key) delete record[key];
        // defineProperty: a "__proto__" key stays a key, never a prototype.
        Object.defineProperty(record, maskedKey, {
          value: masked,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return value;
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

/**
 * `${VAR}` in `template` filled from `getEnv`; the values are recorded.
 *
 * @throws {RagbenchError} (code "config") naming the variable (never a value) when one is unset.
 */
export function fillTemplate(
  template: string,
  getEnv: (name: string) => string | undefined,
  secrets: Secrets,
  where: string,
): string {
  return template.replaceAll(TEMPLATE, (_m, name: string) => {
    const value = getEnv(name);
    if (value === undefined) {
      throw new RagbenchError(
        "config",
        `Cannot reach ${where}: it refers to \${${name}}, which is not set in the environment.`,
      );
    }
    secrets.add(value);
    return value;
  });
}

/** The variables `${VAR}` templates in `values` name, in order of first use. */
export function templateNames(values: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const value of values) for (const m of value.matchAll(TEMPLATE)) names.add(m[1]);
  return [...names];
}

/** Reads a variable, treating one this process may not read as unset. */
export function readEnv(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name);
}
