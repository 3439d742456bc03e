/**
 * Stops a run calling a model host that is down. A call that gets no HTTP
 * response on any of its attempts (connection refused, reset or closed, no
 * such host, every attempt timed out) is a connection failure; after
 * `model.max_connection_failures` of them in a row on one host (its scheme,
 * name and port), every later call to that host fails at once, without
 * touching the network, with a message saying why and what the last failure
 * was. The run's remaining questions on that host are then recorded as
 * errors in seconds instead of each one retrying against a dead server. Any
 * call that gets a response (a reply, or an HTTP error such as 429 or 500)
 * resets the count: the host is up. A call cancelled by its caller counts
 * neither way. Once stopped, a host stays stopped for the run.
 *
 * @module
 */

/** Default of `model.max_connection_failures`. */
export const DEFAULT_MAX_CONNECTION_FAILURES = 5;

/** One host's state, shared by every model that calls it. */
interface HostState {
  /** Connection failures in a row. */
  failures: number;
  /** Why calls stopped; null while they may go. */
  stopped: string | null;
}

/** The hosts of one run (one per run: models on the same host share a count). */
export class HostBreakers {
  #hosts = new Map<string, HostState>();

  /** The breaker of the host of `baseUrl`, stopping after `limit` failures in a row. */
  for(baseUrl: string, limit: number): HostBreaker {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`max connection failures must be an integer >= 1, got ${limit}`);
    }
    const host = hostOf(baseUrl);
    let state = this.#hosts.get(host);
    if (!state) this.#hosts.set(host, state = { failures: 0, stopped: null });
    return new HostBreaker(host, limit, state);
  }
}

/** What one model sees of its host's state. */
export class HostBreaker {
  constructor(
    /** `scheme://name:port` of the host. */
    readonly host: string,
    /** Connection failures in a row that stop calls. */
    readonly limit: number,
    readonly state: HostState,
  ) {}

  /** Why calls to the host stopped; null while they may go. */
  stopped(): string | null {
    return this.state.stopped;
  }

  /** A call got a response: the host is up. */
  answered(): void {
    this.state.failures = 0;
  }

  /** A call got no response on any attempt; `message` says what happened. */
  failedToConnect(message: string): void {
    if (this.state.stopped !== null) return;
    this.state.failures++;
    if (this.state.failures >= this.limit) {
      this.state.stopped = `Not calling the model API at ${this.host}: the run stopped calling ` +
        `this host after ${this.state.failures} model calls in a row got no response (the last: ` +
        `${message.replace(/\s+/g, " ").trim()}). Start the server, or check model.base_url; ` +
        `model.max_connection_failures (now ${this.limit}) sets how many such failures stop the calls.`;
    }
  }
}

/** `scheme://host:port` of a URL (the port made explicit), or the text itself when it is no URL. */
export function hostOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    return `${url.protocol}//${url.hostname}:${port}`;
  } catch {
    return baseUrl;
  }
}
