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
 * A variable that cannot be read but does not touch the host (a password:
 * `postgresql://reader:${PG_PW}@db:5432/x`) still lets the host be named.
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
  const host = hostOf(template, env, (url) => URL.canParse(url) ? netHost(url) : null);
  if (host === null) return unknownHost(template, who);
  return { name: "net", value: host, why: who };
}

/** What reaching the server of a connection string needs. */
export function postgresNeeds(
  template: string,
  who: string,
  env: (name: string) => string | undefined,
): RetrieverNeed[] {
  const read = (text: string) => {
    try {
      const t = parsePgConnection(text);
      return JSON.stringify([t.host, t.port, t.socket]);
    } catch {
      return null;
    }
  };
  const filled = fill(template, env);
  // Every variable read and still unusable: the build says what is wrong with it.
  if (filled !== null && read(filled) === null) return [];
  if (hostOf(template, env, read) === null) return [unknownHost(template, who)];
  const target = parsePgConnection(fill(template, env, () => STAND_IN)!);
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

/** What an unreadable variable is replaced by while looking for a host (see {@link hostOf}). */
const STAND_IN = "ragbenchstandin";

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

/**
 * `template` filled in from `env`; a variable `env` cannot read gets
 * `stand_in(name)`, or (without one) the result is null.
 */
function fill(
  template: string,
  env: (name: string) => string | undefined,
  standIn?: (name: string) => string,
): string | null {
  let missing = false;
  const out = template.replaceAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const value = env(name) ?? standIn?.(name);
    if (value === undefined) missing = true;
    return value ?? "";
  });
  return missing ? null : out;
}

/**
 * What `read` finds in `template` (a host), when it does not depend on the
 * variables this process may not read: they are filled in with two
 * different stand-ins, and the host is named only when both give the same
 * (a `${PASSWORD}` in the user information leaves the host readable; a
 * `${URL}` that is the whole address does not). Null when it depends on them
 * or cannot be read at all.
 */
function hostOf(
  template: string,
  env: (name: string) => string | undefined,
  read: (text: string) => string | null,
): string | null {
  const a = fill(template, env, () => STAND_IN);
  const b = fill(template, env, () => `${STAND_IN}b`);
  if (a === null || b === null) return null;
  const found = read(a);
  return found !== null && found === read(b) ? found : null;
}
