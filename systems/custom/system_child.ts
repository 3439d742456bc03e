/**
 * The process side of a custom system: started by `system_host.ts` as the
 * hidden command `ragbench __system-host MODULE_URL EXPORT SIDE_EFFECTS NAME`
 * with the command line of a custom tool's process
 * (`tools/sandbox/tool_command.ts`: the least permissions, the watchdog and
 * the module preloaded, a heap cap). It loads the module, drops every
 * permission its side effects do not need (as a custom tool's process does),
 * says `loaded`, then answers one question at a time: a `run` calls the
 * system's function, whose model, tool and retrieval calls become `ask`
 * lines that the host answers; the function's result is checked here (for a
 * message the author can act on) and again by the host (which trusts
 * nothing). Timers a run leaves behind are cleared when it ends.
 *
 * @module
 */

import { clearLeftoverTimers } from "../../tools/sandbox/call_timers.ts";
import {
  dropPermissions,
  importModule,
  keptSet,
  startChildSide,
} from "../../tools/sandbox/custom_tool_child.ts";
import type { SystemHostMessage } from "../../tools/sandbox/protocol.ts";
// Part of the static module graph, so a module importing "ragbench/system" needs no read for it.
import "./author.ts";
import type {
  SystemAnswer,
  SystemChatRequest,
  SystemContext,
  SystemPassage,
  SystemRun,
} from "./author.ts";
import { MAX_ANSWER_CHARS, MAX_CITED } from "./system_messages.ts";

type RunMessage = Extract<SystemHostMessage, { type: "run" }>;
type AnswerMessage = Extract<SystemHostMessage, { type: "answer" }>;

/** Runs the process until the watchdog ends it (stdin closed). */
export async function serveCustomSystem(argv: readonly string[]): Promise<void> {
  const [moduleUrl, exportName, keep] = argv;
  const { inbox, write } = startChildSide();
  let run: SystemRun | undefined;
  let failure = "";
  try {
    run = await loadSystem(moduleUrl, exportName);
  } catch (error) {
    failure = (error as Error).message;
  }
  if (run) dropPermissions(keptSet(keep));
  let hello = await inbox.next();
  while (hello.type !== "hello") hello = await inbox.next();
  if (!run) {
    await write({ type: "failed", nonce: hello.nonce, message: failure });
    return;
  }
  await write({ type: "loaded", nonce: hello.nonce });
  inbox.done();
  const pending = new Map<number, (message: AnswerMessage) => void>();
  let current: { nonce: string; controller: AbortController } | null = null;
  let nextId = 1;
  const answer = async (message: RunMessage) => {
    const nonce = message.nonce ?? "";
    const controller = new AbortController();
    current = { nonce, controller };
    const ask = (body: Record<string, unknown>): Promise<unknown> => {
      // A call made after its run ended (a promise the function left behind) is never answered.
      if (current?.nonce !== nonce) return new Promise(() => {});
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, (reply) => {
          if ("error" in reply) reject(new Error(reply.error));
          else resolve(reply.value);
        });
        void write({ type: "ask", nonce, id, ...body });
      });
    };
    let reply: Record<string, unknown>;
    try {
      const result = await run!(message.question.question, contextFor(message, ask, controller));
      reply = { type: "answered", nonce, ...checkedAnswer(result) };
    } catch (error) {
      reply = { type: "failed", nonce, message: describe(error) + permissionHint(error, keep) };
    }
    current = null;
    controller.abort();
    pending.clear();
    clearLeftoverTimers();
    await write(reply);
    inbox.done();
  };
  for (;;) {
    const message = await inbox.next() as unknown as SystemHostMessage | { type: string };
    if (message.type === "run") void answer(message as RunMessage);
    else if (message.type === "answer") {
      const reply = message as AnswerMessage;
      const resolve = pending.get(reply.id);
      pending.delete(reply.id);
      resolve?.(reply);
    }
  }
}

/** The context a run's function gets: each call an `ask` of the host. */
function contextFor(
  message: RunMessage,
  ask: (body: Record<string, unknown>) => Promise<unknown>,
  controller: AbortController,
): SystemContext {
  const specs = message.tools;
  const retriever = message.retriever;
  return {
    questionId: message.question.id,
    model: {
      chat: (request: SystemChatRequest) =>
        ask({
          what: "model",
          messages: request.messages,
          tools: [...(request.tools ?? [])],
          ...(request.protocol === undefined ? {} : { protocol: request.protocol }),
        }) as never,
    },
    tools: {
      specs,
      call: (name: string, args: Record<string, unknown> | string) =>
        ask({
          what: "tool",
          name,
          arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
        }) as never,
    },
    retriever: retriever === null ? null : {
      name: retriever.name,
      topK: retriever.top_k,
      search: (query: string, k?: number) =>
        ask({ what: "retrieve", query, k: k ?? retriever.top_k }) as Promise<SystemPassage[]>,
    },
    signal: controller.signal,
  };
}

/**
 * The answer and cited ids of what the function returned.
 *
 * @throws {Error} saying what is wrong with it.
 */
function checkedAnswer(result: SystemAnswer): { answer: string; cited: string[] } {
  if (typeof result === "string") return checkedAnswer({ answer: result });
  if (result === null || typeof result !== "object" || Array.isArray(result)) {
    throw new Error(
      `it returned ${shown(result)}; return the answer's text, or {answer, cited}`,
    );
  }
  const extra = Object.keys(result).filter((k) => k !== "answer" && k !== "cited");
  if (extra.length) {
    throw new Error(
      `it returned an object with the key "${extra[0]}"; return {answer, cited} (cited optional)`,
    );
  }
  if (typeof result.answer !== "string") {
    throw new Error(`its answer is ${shown(result.answer)}; the answer must be text`);
  }
  if (result.answer.length > MAX_ANSWER_CHARS) {
    throw new Error(
      `its answer has ${result.answer.length} characters; at most ${MAX_ANSWER_CHARS} are kept`,
    );
  }
  const cited = result.cited ?? [];
  if (!Array.isArray(cited) || cited.some((id) => typeof id !== "string")) {
    throw new Error("its cited ids must be a list of document ids (text)");
  }
  if (cited.length > MAX_CITED) {
    throw new Error(`it cited ${cited.length} documents; cite at most ${MAX_CITED}`);
  }
  return { answer: result.answer, cited: [...cited] };
}

/** Loads the system's function: an exported function, or an export made by `defineSystem`. */
async function loadSystem(moduleUrl: string, exportName: string): Promise<SystemRun> {
  const module = await importModule(moduleUrl);
  if (!Object.hasOwn(module, exportName)) {
    const exported = Object.keys(module).join(", ") || "nothing";
    throw new Error(`it has no export named "${exportName}" (it exports: ${exported})`);
  }
  const value = module[exportName];
  if (typeof value === "function") return value as SystemRun;
  if (
    value !== null && typeof value === "object" &&
    typeof (value as { run?: unknown }).run === "function"
  ) {
    const def = value as { run: SystemRun };
    return (question, ctx) => def.run(question, ctx);
  }
  throw new Error(
    `export "${exportName}" is not a system: export a function (question, ctx) or defineSystem({run})`,
  );
}

/** What to do about a permission the process does not have. */
function permissionHint(error: unknown, keep: string): string {
  const name = (error as Error | null)?.name;
  if (name !== "NotCapable" && name !== "PermissionDenied") return "";
  return ` (a custom system may do only what its side_effects allow, "${keep}" here: ` +
    `filesystem reads and writes the working folder, network reaches the network)`;
}

function shown(value: unknown): string {
  if (value === undefined) return "nothing (undefined)";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  const text = typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 2000);
  return String(error).slice(0, 2000);
}
