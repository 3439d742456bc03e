/**
 * From a retriever's config to what its engine client needs, shared by the
 * kinds that call an engine or a service: `${VAR}` templates filled in (each
 * value remembered as a secret, so messages mask it), and the failure of a
 * build (an engine down while the passages are loaded) turned into the
 * user-facing error that stops the run before its first question.
 *
 * @module
 */

import { RagbenchError } from "../../errors.ts";
import { fillTemplate, type Secrets } from "../../util/secrets.ts";
import type { RetrieverBuildRequest } from "../kinds/kind.ts";
import { EngineError } from "./remote_error.ts";

/**
 * `template` with its `${VAR}`s filled in from the run's environment.
 *
 * @throws {RagbenchError} ("config") naming the retriever, the key and the unset variable.
 */
export function filled(
  template: string,
  key: string,
  request: Pick<RetrieverBuildRequest, "name" | "env">,
  secrets: Secrets,
): string {
  return fillTemplate(template, request.env, secrets, `retriever "${request.name}" (its ${key})`);
}

/**
 * A URL key filled in (see {@link filled}), checked to be an http(s) URL.
 *
 * @throws {RagbenchError} ("config") when it is not one once filled in.
 */
export function filledUrl(
  template: string,
  key: string,
  request: Pick<RetrieverBuildRequest, "name" | "env">,
  secrets: Secrets,
): string {
  const url = filled(template, key, request, secrets);
  if (!/^https?:\/\//.test(url) || !URL.canParse(url)) {
    throw new RagbenchError(
      "config",
      `Retriever "${request.name}": ${key} is not an http:// or https:// URL once its \${VAR} ` +
        "is filled in.",
    );
  }
  return url;
}

/** Every header value filled in (see {@link filled}). */
export function filledHeaders(
  headers: Readonly<Record<string, string>>,
  request: Pick<RetrieverBuildRequest, "name" | "env">,
  secrets: Secrets,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    Object.defineProperty(out, name, {
      value: filled(value, `header ${name}`, request, secrets),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * The value of the variable `name` (an `api_key_env`).
 *
 * @throws {RagbenchError} ("config") when it is not set.
 */
export function requiredVariable(
  name: string,
  key: string,
  request: Pick<RetrieverBuildRequest, "name" | "env">,
  secrets: Secrets,
): string {
  const value = request.env(name);
  if (value === undefined || value === "") {
    throw new RagbenchError(
      "config",
      `Retriever "${request.name}": ${key} names the variable ${name}, which is not set. ` +
        `Set it, or set ${key} to null if the service needs no key.`,
    );
  }
  secrets.add(value);
  return value;
}

/** A failed build as the error that stops the run (an engine's failure keeps its message). */
export function buildFailure(error: unknown): unknown {
  if (error instanceof EngineError) {
    return new RagbenchError("io", `${error.message} (while building the retriever)`, {
      cause: error,
    });
  }
  return error;
}
