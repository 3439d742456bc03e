/**
 * The permissions the retrievers that call an engine or a service need
 * (permissions.ts adds them to the run's), for each retriever a system
 * uses and each reranker's base:
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

import type { Config } from "../config/types.ts";
import { type RetrieverConfig, retrieverParts } from "../config/retriever_schema.ts";
import { parsePgConnection } from "../retrieval/remote/pg_connection.ts";
import { readEnv, templateNames } from "../util/secrets.ts";
import { systemRetrievers } from "./embedding_needs.ts";
import { modelHost, type Need } from "./need.ts";

/** Options of {@link engineNeeds}. */
export interface EngineNeedsOptions {
  mock: boolean;
  /** Reads a variable to find a hidden host (default: `Deno.env`, where permitted). */
  env?: (name: string) => string | undefined;
}

/** What the engine retrievers of `config`'s systems need. */
export function engineNeeds(config: Config, options: EngineNeedsOptions): Need[] {
  return systemRetrievers(config).flatMap(({ retriever }) =>
    retrieverNeeds(retriever.config, retriever.name, options)
  );
}

/** What one retriever (named `name`) and the retrievers it is built over need. */
export function retrieverNeeds(
  config: RetrieverConfig,
  name: string,
  options: EngineNeedsOptions,
): Need[] {
  const env = options.env ?? readEnv;
  return retrieverParts(config).flatMap((part) =>
    partNeeds(part, name, { mock: options.mock, env })
  );
}

function partNeeds(
  config: RetrieverConfig,
  name: string,
  options: { mock: boolean; env: (name: string) => string | undefined },
): Need[] {
  const who = `retriever ${name} (${config.kind})`;
  const variables = (values: Iterable<string>, what: string): Need[] =>
    templateNames(values).map((variable) => ({
      name: "env",
      value: variable,
      why: `\${${variable}} in the ${what} of ${who}`,
    }));
  switch (config.kind) {
    case "rerank": {
      if (options.mock) return [];
      const needs = [
        urlNeed(config.base_url, who, options.env),
        ...variables([config.base_url], "base_url"),
        ...variables(Object.values(config.headers), "headers"),
      ];
      if (config.api_key_env !== null) {
        needs.push({ name: "env", value: config.api_key_env, why: `the API key of ${who}` });
      }
      return needs;
    }
    case "http":
      return [
        urlNeed(config.url, who, options.env),
        ...variables([config.url], "url"),
        ...variables(Object.values(config.headers), "headers"),
      ];
    case "postgres":
      return [
        ...postgresNeeds(config.connection, who, options.env),
        ...variables([config.connection], "connection"),
      ];
    case "opensearch":
    case "elasticsearch":
      return [
        urlNeed(config.url, who, options.env),
        {
          name: "sys",
          value: "osRelease",
          why: `the official client of ${who} (it sends the OS release in its User-Agent)`,
        },
        ...variables([config.url], "url"),
        ...variables(
          [config.username, config.password, config.api_key].filter((v) => v !== null),
          "credentials",
        ),
        ...variables(Object.values(config.headers), "headers"),
      ];
    default:
      return [];
  }
}

/** Net for the host of `url` (a template filled in when possible). */
function urlNeed(
  template: string,
  who: string,
  env: (name: string) => string | undefined,
): Need {
  const url = fill(template, env);
  if (url === null || !URL.canParse(url)) return unknownHost(template, who);
  return { name: "net", value: modelHost(url), why: who };
}

/** What reaching the server of a connection string needs. */
function postgresNeeds(
  template: string,
  who: string,
  env: (name: string) => string | undefined,
): Need[] {
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
function unknownHost(template: string, who: string): Need {
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
