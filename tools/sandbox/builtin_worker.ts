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
import { callServer, inOrder } from "./serve_calls.ts";

const handle = inOrder(callServer(BUILTIN_TOOLS, (message) => self.postMessage(message)));
self.onmessage = (event: MessageEvent<HostMessage>) => handle(event.data);
