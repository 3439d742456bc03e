/**
 * A deployed pipeline as a system (`type: http`, `type: command`): the part
 * both types share. For each question the `request:` template is filled in
 * and sent through the type's transport (an HTTP POST, or a process's
 * stdin), the reply is read through the `response:` paths, and the trace
 * gets a retrieval step of the returned contexts (only what the service
 * returned is credited by the retrieval metrics; a context whose document
 * id is not in the corpus fails the question rather than being dropped)
 * and a model step holding the answer, the reported usage and cost, the
 * call's latency and its retries.
 *
 * Answers go through the run's response cache like model calls (`--cache`,
 * keyed by lib/cache/service_key.ts): recorded in a live run, reused, and
 * replayed by `--mock`, which never sends anything; a question whose answer
 * was never recorded is the question's error saying so. Texts the service
 * sent back are masked of the values its `${VAR}` templates expand to
 * before they are recorded or written to the run folder.
 *
 * @module
 */

import type { z } from "zod";
import { readsCache, writesCache } from "../lib/cache/cache_mode.ts";
import { serviceKey } from "../lib/cache/service_key.ts";
import type { RetryReport } from "../lib/llm/retry_policy.ts";
import { MAX_CONTEXT_TEXT_CHARS } from "../lib/types.ts";
import type { JsonValue } from "../lib/types.ts";
import type { Secrets } from "../lib/util/secrets.ts";
import {
  defineSystem,
  NO_FLAGS,
  type SystemDef,
  SystemFailedError,
  type SystemNeed,
  type SystemStartEnv,
} from "./system.ts";
import {
  fillRequest,
  readReply,
  ReplyError,
  replyPaths,
  type ServiceReply,
  serviceReplySchema,
} from "./service_reply.ts";
import type { ResponseMapping } from "./service_options.ts";

/** Start of the message of a question whose answer `--mock` (or `--cache replay`) could not replay. */
export const SERVICE_REPLAY_MISS_PREFIX = "no recorded answer";

/** A failed call of a transport: `what` went wrong (the site is added), with its retries. */
export class ServiceCallError extends Error {
  constructor(readonly what: string, readonly attempts?: RetryReport) {
    super(what);
    this.name = "ServiceCallError";
  }
}

/** A transport opened for a live run. */
export interface ServiceSender {
  /** The values its `${VAR}` templates expand to, masked in whatever it sends back. */
  secrets: Secrets;
  /**
   * Sends one request and returns the parsed reply.
   *
   * @throws {ServiceCallError} when the call failed (after its retries).
   */
  send(body: JsonValue, signal: AbortSignal): Promise<{ value: unknown; attempts?: RetryReport }>;
}

/** The options every service system has (see service_options.ts). */
export interface ServiceOptions {
  request: JsonValue;
  response: ResponseMapping;
}

/** One way of reaching a deployed pipeline. */
export interface ServiceTransport<O extends z.ZodObject> {
  type: string;
  description: string;
  options: O;
  /** The endpoint as the config writes it (`${VAR}` unexpanded): part of the cache key. */
  endpoint(options: z.output<O>): unknown;
  /** Where it is answered, safe to print (no query, no credentials). */
  target(options: z.output<O>): string;
  /**
   * Opens it for a live run: fills the `${VAR}` templates.
   *
   * @throws {RagbenchError} ("config") naming a variable that is not set.
   */
  open(options: z.output<O>, env: SystemStartEnv): ServiceSender;
  /** The permissions a live run needs for it. */
  needs(options: z.output<O>, ctx: { configDir: string; name: string }): SystemNeed[];
}

/** The system type of `transport`. */
export function serviceSystem<O extends z.ZodObject>(
  transport: ServiceTransport<O>,
): SystemDef<O> {
  return defineSystem({
    type: transport.type,
    description: transport.description,
    acceptsTools: false,
    noToolsReason: "the deployed pipeline calls its own tools, if any",
    alwaysTools: [],
    options: transport.options,
    // ragbench calls no model for it: no API key, no model host, no price.
    modelCalls: () => ({ min: 0, max: 0 }),
    replaysInMock: true,
    needs(options, ctx) {
      // Nothing is sent in --mock or --cache replay: neither the service nor its secrets are needed.
      if (ctx.mock || ctx.replay) return [];
      return transport.needs(options, { configDir: ctx.configDir, name: ctx.name });
    },
    start(options, env) {
      let sender: ServiceSender | null = null;
      let ready: Promise<void> = Promise.resolve();
      if (!env.mock && env.responses?.mode !== "replay") {
        // Fills the templates before the first question: an unset variable stops the run.
        try {
          sender = transport.open(options, env);
        } catch (error) {
          ready = Promise.reject(error);
        }
      }
      const run = (o: Record<string, unknown>, ctx: Parameters<SystemDef["run"]>[1]) =>
        answerQuestion(transport, o as z.output<O> & ServiceOptions, env, sender, ctx);
      return { ready, run, close: () => Promise.resolve() };
    },
    run() {
      return Promise.reject(
        new TypeError(`the ${transport.type} system runs only once started (SystemDef.start)`),
      );
    },
  });
}

async function answerQuestion<O extends z.ZodObject>(
  transport: ServiceTransport<O>,
  options: z.output<O> & ServiceOptions,
  env: SystemStartEnv,
  sender: ServiceSender | null,
  ctx: Parameters<SystemDef["run"]>[1],
): Promise<{ answer: string | null; flags: typeof NO_FLAGS }> {
  const { question, recorder } = ctx;
  const site = `System "${env.name}" (${transport.type}) at ${transport.target(options)}`;
  const body = fillRequest(options.request, {
    question: question.question,
    question_id: question.id,
    repeat: recorder.repeat,
  });
  const key = serviceKey({
    system_type: transport.type,
    endpoint: transport.endpoint(options),
    request: body,
    mapping: options.response,
    repeat: recorder.repeat,
  });
  const setup = env.responses ?? null;
  const mode = env.mock ? "replay" : setup?.mode ?? "off";
  const started = performance.now();
  let reply: ServiceReply | null = null;
  let attempts: RetryReport | undefined;
  if (setup !== null && readsCache(mode)) {
    const found = setup.cache.get(key);
    const entry = found.found ? serviceReplySchema.safeParse(found.value) : null;
    if (entry?.success) {
      setup.stats.hits++;
      reply = entry.data;
    } else {
      setup.stats.misses++;
      if (found.found || found.corrupt) setup.stats.corrupt++;
    }
  }
  const cached = reply !== null;
  if (reply === null) {
    if (mode === "replay" || sender === null) {
      const how = env.mock ? "--mock" : "--cache replay";
      throw new SystemFailedError(
        `${how}: ${SERVICE_REPLAY_MISS_PREFIX} of system "${env.name}" for question ` +
          `"${question.id}" (repeat ${recorder.repeat}): ${
            setup === null
              ? "this run has no response cache"
              : "it was never recorded with this request and response mapping"
          }. ${how} sends nothing to the ${transport.type === "http" ? "service" : "command"}; ` +
          "record its answers first with a live run (without --mock; --cache read-write, the default).",
      );
    }
    let value: unknown;
    try {
      ({ value, attempts } = await sender.send(body, ctx.signal));
    } catch (error) {
      if (error instanceof ServiceCallError) {
        throw new SystemFailedError(`${site}: ${error.what}`, {
          ...(error.attempts ? { attempts: error.attempts } : {}),
        });
      }
      throw error;
    }
    try {
      reply = sender.secrets.redactJson(readReply(value, replyPaths(options.response)));
    } catch (error) {
      if (!(error instanceof ReplyError)) throw error;
      throw new SystemFailedError(`${site}: ${error.message}`, {
        ...(attempts ? { attempts } : {}),
      });
    }
    if (setup !== null && writesCache(mode)) {
      try {
        setup.cache.put(key, "service", reply);
        setup.stats.recorded++;
      } catch {
        setup.stats.writeFailures++;
      }
    }
  }
  const contexts = reply.contexts?.map((c, rank) => {
    if (env.documentIds !== undefined && !env.documentIds.has(c.doc_id)) {
      const shown = c.doc_id.length > 80 ? `${c.doc_id.slice(0, 80)}...` : c.doc_id;
      throw new SystemFailedError(
        `${site}: returned document id ${JSON.stringify(shown)} (context ${rank + 1}), which ` +
          `is not one of the corpus's ${env.documentIds.size} documents. Its index must hold ` +
          "the config's corpus under the same ids (map them with response.doc_id).",
        attempts ? { attempts } : {},
      );
    }
    return {
      doc_id: c.doc_id,
      passage_id: c.passage_id ?? c.doc_id,
      score: c.score,
      ...(c.text === null ? {} : { text: c.text.slice(0, MAX_CONTEXT_TEXT_CHARS) }),
    };
  }) ?? null;
  recorder.service({
    system: env.name,
    query: question.question,
    target: transport.target(options),
    answer: reply.answer,
    contexts,
    usage: reply.usage,
    cost_usd: reply.cost_usd,
    latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
    cached,
    ...(attempts ? { attempts } : {}),
  });
  return { answer: reply.answer, flags: { ...NO_FLAGS } };
}
