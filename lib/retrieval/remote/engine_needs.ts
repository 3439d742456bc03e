/**
 * What the permissions of the retriever kinds that call an engine or a
 * service are made of (each kind's `needs`, lib/retrieval/kinds/; a
 * reranker adds its base's):
 *
 * - `rerank`: net for its host and env for its `api_key_env` (not with
 *   `--mock`, where it sends nothing);
 * - `http`: net for its host;
 * - `postgres`: net for `host:port`, or for a Unix socket read and write of
 *   the socket file and net `unix:<socket>` (what Deno asks for a socket);
 * - `opensearch` and `elasticsearch`: net for the host, and sys `osRelease`
 *   (the official clients put the OS release in their User-Agent);
 * - every kind: env for each variable its `${VAR}` templates name.
 *
 * A host that a template hides (`connection: ${PG_URL}`) is found by
 * filling the template in when this process may read the variable; when it
 * may not, the need is the whole network, saying why (grant
 * `--allow-env=PG_URL` to `ragbench permissions` to have the host named).
 *
 * @module
 */

import type { RetrieverNeed } from "../kinds/kind.ts";
import { parsePgConnection } from "./pg_connection.ts";
import { netHost } from "./remote_error.ts";
import { templateNames } from "../../util/secrets.ts";

/** The `env` needs of the `${VAR}`s in `values` (`what` of `who`). */
export function variableNeeds(
  values: Iterable<string>,
  what: string,
  who: string,
): RetrieverNeed[] {
  return templateNames(values).map((variable) => ({
    name: "env",
    value: variable,
    why: `\${${variable}} in the ${what} of ${who}`,
  }));
}

/** Who a need is for: `retriever NAME (KIND)`. */
export function needWho(name: string | undefined, kind: string): string {
  return `retriever ${name ?? kind} (${kind})`;
}

/** Net for the host of `url` (a template filled in when possible). */
export function urlNeed(
  template: string,
  who: string,
  env: (name: string) => string | undefined,
): RetrieverNeed {
  const url = fill(template, env);
  if (url === null || !URL.canParse(url)) return unknownHost(template, who);
  return { name: "net", value: netHost(url), why: who };
}

/** What reaching the server of a connection string needs. */
export function postgresNeeds(
  template: string,
  who: string,
  env: (name: string) => string | undefined,
): RetrieverNeed[] {
  const text = fill(template, env);
  if (text === null) return [unknownHost(template, who)];
  let target;
  try {
    target = parsePgConnection(text);
  } catch {
    // The build says what is wrong with it.
    return [];
  }
  if (target.socket === null) {
    const host = target.host!.includes(":") ? `[${target.host}]` : target.host!;
    return [{ name: "net", value: `${host}:${target.port}`, why: who }];
  }
  const why = `${who}: its Unix socket`;
  return [
    { name: "read", value: target.socket, why },
    { name: "write", value: target.socket, why },
    { name: "net", value: `unix:${target.socket}`, why },
  ];
}

/** The whole network, when a template hides the host and its variable cannot be read here. */
function unknownHost(template: string, who: string): RetrieverNeed {
  const names = templateNames([template]).map((n) => `\${${n}}`).join(", ");
  return {
    name: "net",
    value: "",
    why: `${who}: its host is in ${names || "a template"}, which this process may not read ` +
      `(run ragbench permissions with --allow-env=${
        templateNames([template]).join(",")
      } to have the host named)`,
  };
}

/** `template` filled in from `env`; null when a variable cannot be read. */
function fill(template: string, env: (name: string) => string | undefined): string | null {
  let missing = false;
  const out = template.replaceAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const value = env(name);
    if (value === undefined) missing = true;
    return value ?? "";
  });
  return missing ? null : out;
}
