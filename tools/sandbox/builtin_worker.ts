/**
 * Entry of the worker that runs the built-in tools. It is started with no
 * Deno permissions at all (no read, write, net, env, run, ffi): built-ins
 * read only the corpus the host posts to them, whose text is shared memory
 * the main thread wrote (`shared_corpus.ts`). It serves every built-in but
 * `search` (see `worker_registry.ts`).
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { WORKER_TOOLS } from "../worker_registry.ts";
import type { HostMessage } from "./protocol.ts";
import { callServer, inOrder } from "./serve_calls.ts";
import type { SharedCorpus } from "./shared_corpus.ts";

// The tools' engines load now, while the host is still reading the corpus it will send; `prepare`
// and the first call then find them loaded (a failure shows there, as the tool's error).
for (const def of WORKER_TOOLS.values()) def.load?.().catch(() => {});

// The shared corpus's reader (and the line store behind it) loads with the corpus, not at start.
const fromShared = async (shared: SharedCorpus) =>
  (await import("./shared_corpus.ts")).corpusFromShared(shared);
const handle = inOrder(
  callServer(WORKER_TOOLS, (message) => self.postMessage(message), fromShared),
);
self.onmessage = (event: MessageEvent<HostMessage>) => handle(event.data);
