/**
 * `http`: the user's own RAG service, deployed. Each question is POSTed as
 * JSON (the `request:` template) to `url`, and the answer, the retrieved
 * contexts, the token usage and the cost are read from the JSON reply by
 * the `response:` paths (service_system.ts). `url` and `headers` may hold
 * `${VAR}` (a key, a token), filled from the environment when the run
 * starts; messages print the URL without its query or credentials, and
 * what the service sends back is masked of those values.
 *
 * Calls follow the model calls' rules (lib/retrieval/remote/http_json.ts):
 * `timeout_s` per attempt, `max_retries` after no response, 408, 409, 429
 * and 5xx (honouring `Retry-After`), no redirects followed, the reply read
 * under `max_response_mb`; the question's timeout bounds it all.
 *
 * @module
 */

import { postJson } from "../lib/retrieval/remote/http_json.ts";
import { EngineError, netHost, printableUrl } from "../lib/retrieval/remote/remote_error.ts";
import { templateNames } from "../lib/util/secrets.ts";
import { fillTemplate, readEnv, Secrets } from "../lib/util/secrets.ts";
import { RagbenchError } from "../lib/errors.ts";
import { type HttpOptions, httpOptionsSchema } from "./service_options.ts";
import { ServiceCallError, serviceSystem } from "./service_system.ts";

/** The http system. */
export const http = serviceSystem({
  type: "http",
  description:
    "Your deployed RAG service: each question POSTed as JSON, the answer and the contexts it retrieved read by JSON path.",
  options: httpOptionsSchema,
  endpoint: (o: HttpOptions) => ({ url: o.url, headers: o.headers }),
  target: (o: HttpOptions) => printableUrl(o.url.replaceAll(/\$\{[A-Za-z0-9_]*\}/g, "x")),
  open(o: HttpOptions, env) {
    const secrets = new Secrets();
    const where = `system "${env.name}"`;
    const url = fillTemplate(o.url, readEnv, secrets, `${where} (its url)`);
    if (!/^https?:\/\//.test(url) || !URL.canParse(url)) {
      throw new RagbenchError(
        "config",
        `System "${env.name}": its url is not an http:// or https:// URL once its \${VAR} is filled in.`,
      );
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(o.headers)) {
      Object.defineProperty(headers, name, {
        value: fillTemplate(value, readEnv, secrets, `${where} (its header ${name})`),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    const site = { retriever: env.name, kind: "http", host: printableUrl(url) };
    return {
      secrets,
      async send(body, signal) {
        try {
          const reply = await postJson(url, body, {
            site,
            headers,
            timeoutMs: o.timeout_s * 1000,
            maxBytes: Math.round(o.max_response_mb * 1_048_576),
            maxRetries: o.max_retries,
            signal,
            secrets,
          });
          return { value: reply.value, attempts: reply.attempts };
        } catch (error) {
          if (error instanceof EngineError) {
            // The words after the site: the site is the system's, not a retriever's.
            throw new ServiceCallError(secrets.redact(error.what), error.attempts);
          }
          throw error;
        }
      },
    };
  },
  needs(o: HttpOptions, ctx) {
    const probe = o.url.replaceAll(/\$\{[A-Za-z0-9_]*\}/g, "x");
    return [
      { name: "net", value: netHost(probe), why: `system ${ctx.name}'s service` },
      ...templateNames([o.url, ...Object.values(o.headers)]).map((variable) => ({
        name: "env" as const,
        value: variable,
        why: `\${${variable}} in system ${ctx.name}'s url or headers`,
      })),
    ];
  },
});
