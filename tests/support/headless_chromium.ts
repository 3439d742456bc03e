/**
 * Headless Chromium driven over the DevTools protocol (a WebSocket on
 * 127.0.0.1), for tests that open a page: console errors and uncaught
 * exceptions are collected, scripts evaluated, screenshots taken. Started
 * with the flags this machine needs (no sandbox as root, no background
 * networking: the network is closed) and a fresh profile folder, and killed
 * when disposed.
 *
 * @module
 */

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The Chromium executable, or null when none is installed. */
export function findChromium(): string | null {
  const fromEnv = Deno.env.get("RAGBENCH_CHROMIUM");
  for (const path of fromEnv ? [fromEnv, ...CANDIDATES] : CANDIDATES) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return null;
}

/** A page in a running browser. */
export interface BrowserPage {
  /** Console errors, uncaught exceptions and error log entries seen so far. */
  readonly errors: string[];
  /** Loads `url` and resolves when its load event fired. */
  open(url: string): Promise<void>;
  /** Evaluates `expression` in the page and returns its (JSON) value. */
  evaluate<T>(expression: string): Promise<T>;
  /**
   * A PNG screenshot of the viewport; with `clip`, of that rectangle of the
   * page (CSS pixels from the page's top left; make the viewport as tall as
   * the page with `resize` first to reach below it).
   */
  screenshot(clip?: { x: number; y: number; width: number; height: number }): Promise<Uint8Array>;
  /** Sets the viewport's size in CSS pixels (the page reflows as in a window of that size). */
  resize(width: number, height: number): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** Starts Chromium and opens a blank page; dispose it to stop the browser. */
export async function startBrowser(executable: string): Promise<BrowserPage> {
  const profile = await Deno.makeTempDir({ prefix: "ragbench_chromium_" });
  const child = new Deno.Command(executable, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      `--user-data-dir=${profile}`,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "--window-size=1280,1600",
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  };
  try {
    const url = await devtoolsUrl(child.stderr, 20_000);
    return await connect(url, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

async function devtoolsUrl(stderr: ReadableStream<Uint8Array>, timeoutMs: number): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const timer = new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now()));
    const chunk = await Promise.race([reader.read(), timer]);
    if (chunk === null || chunk.done) break;
    seen += chunk.value;
    const match = seen.match(/DevTools listening on (ws:\/\/\S+)/);
    if (match) {
      // Keep draining stderr so the browser never blocks on a full pipe.
      (async () => {
        try {
          while (!(await reader.read()).done) { /* drain */ }
        } catch { /* closed */ }
      })();
      return match[1];
    }
    if (seen.length > 1_000_000) seen = seen.slice(-10_000);
  }
  throw new Error(
    `Chromium did not print its DevTools address in ${timeoutMs} ms:\n${seen.slice(-2000)}`,
  );
}

async function connect(url: string, stop: () => Promise<void>): Promise<BrowserPage> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners: Array<(method: string, params: Record<string, unknown>) => void> = [];
  const errors: string[] = [];
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    if (typeof message.id === "number") {
      const entry = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) entry?.reject(new Error(JSON.stringify(message.error)));
      else entry?.resolve(message.result ?? {});
      return;
    }
    for (const listener of listeners) listener(message.method, message.params ?? {});
  };
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        if (pending.delete(id)) reject(new Error(`${method}: no answer in 30 s`));
      }, 30_000);
      pending.set(id, {
        resolve(value) {
          clearTimeout(timer);
          resolve(value);
        },
        reject(error) {
          clearTimeout(timer);
          reject(error);
        },
      });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }) as {
    sessionId: string;
  };
  listeners.push((method, params) => {
    if (method === "Runtime.consoleAPICalled" && params.type === "error") {
      const args = (params.args as Array<{ value?: unknown; description?: string }>) ?? [];
      errors.push(`console.error: ${args.map((a) => a.value ?? a.description).join(" ")}`);
    }
    if (method === "Runtime.exceptionThrown") {
      const details = params.exceptionDetails as {
        text?: string;
        exception?: { description?: string };
      };
      errors.push(`exception: ${details.exception?.description ?? details.text}`);
    }
    if (method === "Log.entryAdded") {
      const entry = params.entry as { level?: string; text?: string; url?: string };
      if (entry.level === "error") errors.push(`log: ${entry.text} ${entry.url ?? ""}`.trim());
    }
  });
  const session = (method: string, params: Record<string, unknown> = {}) =>
    send(method, params, sessionId);
  await session("Page.enable");
  await session("Runtime.enable");
  await session("Log.enable");
  return {
    errors,
    async open(pageUrl) {
      const loaded = new Promise<void>((resolve) => {
        listeners.push((method) => {
          if (method === "Page.loadEventFired") resolve();
        });
      });
      await session("Page.navigate", { url: pageUrl });
      await loaded;
    },
    async evaluate<T>(expression: string) {
      const result = await session("Runtime.evaluate", { expression, returnByValue: true }) as {
        result: { value?: T };
        exceptionDetails?: { text: string; exception?: { description?: string } };
      };
      if (result.exceptionDetails) {
        throw new Error(
          `page threw: ${
            result.exceptionDetails.exception?.description ?? result.exceptionDetails.text
          }`,
        );
      }
      return result.result.value as T;
    },
    async screenshot(clip) {
      const { data } = await session("Page.captureScreenshot", {
        format: "png",
        ...(clip ? { clip: { ...clip, scale: 1 } } : {}),
      }) as { data: string };
      return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    },
    async resize(width, height) {
      await session("Emulation.setDeviceMetricsOverride", {
        width,
        height,
        deviceScaleFactor: 1,
        mobile: false,
      });
    },
    async [Symbol.asyncDispose]() {
      try {
        await send("Browser.close").catch(() => {});
        socket.close();
      } finally {
        for (const entry of pending.values()) entry.reject(new Error("browser closed"));
        pending.clear();
        await stop();
      }
    },
  };
}
