/**
 * Entry of the worker that runs the built-in tools. It is started with no
 * Deno permissions at all (no read, write, net, env, run, ffi): built-ins
 * read only the corpus the host posts to them.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { BUILTIN_TOOLS } from "../registry.ts";
import type { HostMessage } from "./protocol.ts";
import { callServer } from "./serve_calls.ts";

const serve = callServer(BUILTIN_TOOLS, (message) => self.postMessage(message));

// Messages are handled one at a time, in order: a call never overtakes `init`.
let queue = Promise.resolve();
self.onmessage = (event: MessageEvent<HostMessage>) => {
  queue = queue.then(() => serve(event.data));
};
