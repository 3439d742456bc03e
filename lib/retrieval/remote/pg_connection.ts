/**
 * A PostgreSQL connection string, read the way libpq reads its URI form,
 * with nothing taken from the environment: ragbench never reads `PGHOST`,
 * `PGPASSWORD`, `~/.pgpass` or the login name (each would be a permission
 * and a hidden input), so the string names everything, and a password comes
 * through a `${VAR}` template filled in before this is called.
 *
 *     postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=...]
 *     postgresql://USER@/DATABASE?host=/var/run/postgresql     (a Unix socket folder)
 *     postgresql://USER@%2Fvar%2Frun%2Fpostgresql/DATABASE       (the same)
 *
 * The port defaults to 5432 and the database to the user; a Unix socket is
 * the file `.s.PGSQL.PORT` in the folder. Query parameters other than
 * `host`, `port`, `user`, `password`, `dbname`, `sslmode`, `connect_timeout`
 * and `application_name` are refused, so a typo is not silently ignored.
 *
 * @module
 */

/** Where and how to connect. */
export interface PgTarget {
  /** Host name or address for TCP; null for a Unix socket. */
  host: string | null;
  port: number;
  /** The socket file (`<folder>/.s.PGSQL.<port>`); null for TCP. */
  socket: string | null;
  user: string;
  password: string | null;
  database: string;
  /** `disable`, `allow`, `prefer`, `require`, `verify-ca` or `verify-full`. */
  sslmode: string;
  /** Seconds to wait for a connection; null: the caller's default. */
  connectTimeoutS: number | null;
  /** Safe to print: `postgresql://user@host:port/db` (no password, no query). */
  printable: string;
}

const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"];
const PARAMS = [
  "host",
  "port",
  "user",
  "password",
  "dbname",
  "sslmode",
  "connect_timeout",
  "application_name",
];

/**
 * Reads `text`.
 *
 * @throws {SyntaxError} saying what is wrong (never quoting a password).
 */
export function parsePgConnection(text: string): PgTarget {
  const scheme = /^(postgres|postgresql):\/\//.exec(text);
  if (scheme === null) {
    throw new SyntaxError(
      "a connection string starts with postgresql:// (e.g. postgresql://user@127.0.0.1:5432/db)",
    );
  }
  const rest = text.slice(scheme[0].length);
  const hashAt = rest.indexOf("#");
  const body = hashAt < 0 ? rest : rest.slice(0, hashAt);
  const queryAt = body.indexOf("?");
  const beforeQuery = queryAt < 0 ? body : body.slice(0, queryAt);
  const query = new URLSearchParams(queryAt < 0 ? "" : body.slice(queryAt + 1));
  const slash = beforeQuery.indexOf("/");
  const authority = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash < 0 ? "" : beforeQuery.slice(slash + 1);
  const at = authority.lastIndexOf("@");
  const userInfo = at < 0 ? "" : authority.slice(0, at);
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  const colon = userInfo.indexOf(":");
  let user = decode(colon < 0 ? userInfo : userInfo.slice(0, colon), "user");
  let password: string | null = colon < 0 ? null : decode(userInfo.slice(colon + 1), "password");

  for (const key of query.keys()) {
    if (!PARAMS.includes(key)) {
      throw new SyntaxError(`the connection string's parameter "${key}" is not supported`);
    }
  }
  let host: string;
  let portText: string;
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (close < 0) throw new SyntaxError("unclosed [ in the connection string's host");
    host = hostPort.slice(1, close);
    portText = hostPort.slice(close + 1).replace(/^:/, "");
  } else {
    const portAt = hostPort.lastIndexOf(":");
    host = decode(portAt < 0 ? hostPort : hostPort.slice(0, portAt), "host");
    portText = portAt < 0 ? "" : hostPort.slice(portAt + 1);
  }
  host = query.get("host") ?? host;
  portText = query.get("port") ?? portText;
  user = query.get("user") ?? user;
  password = query.get("password") ?? password;
  const database = query.get("dbname") ?? decode(path, "database name");
  if (host === "") {
    throw new SyntaxError(
      "the connection string names no host: give one (postgresql://user@127.0.0.1/db), " +
        "or a Unix socket folder (postgresql://user@/db?host=/var/run/postgresql)",
    );
  }
  if (user === "") {
    throw new SyntaxError(
      "the connection string names no user (postgresql://USER@host/db): " +
        "ragbench does not read PGUSER or the login name",
    );
  }
  const port = portText === "" ? 5432 : Number(portText);
  if (!/^[0-9]{1,5}$/.test(portText || "5432") || port < 1 || port > 65535) {
    throw new SyntaxError(`the connection string's port "${portText}" is not a port number`);
  }
  const sslmode = query.get("sslmode") ?? "prefer";
  if (!SSL_MODES.includes(sslmode)) {
    throw new SyntaxError(`sslmode "${sslmode}" is not one of ${SSL_MODES.join(", ")}`);
  }
  const timeout = query.get("connect_timeout");
  const connectTimeoutS = timeout === null ? null : Number(timeout);
  if (connectTimeoutS !== null && !(Number.isInteger(connectTimeoutS) && connectTimeoutS > 0)) {
    throw new SyntaxError(`connect_timeout "${timeout}" is not a whole number of seconds`);
  }
  const socketDir = host.startsWith("/") ? host.replace(/\/+$/, "") : null;
  const db = database === "" ? user : database;
  const socket = socketDir === null ? null : `${socketDir}/.s.PGSQL.${port}`;
  return {
    host: socketDir === null ? host : null,
    port,
    socket,
    user,
    password,
    database: db,
    sslmode: socket === null ? sslmode : "disable",
    connectTimeoutS,
    printable: socket === null
      ? `postgresql://${user}@${host.includes(":") ? `[${host}]` : host}:${port}/${db}`
      : `postgresql://${user}@${socket}/${db}`,
  };
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new SyntaxError(`the connection string's ${what} has a bad %-escape`);
  }
}
