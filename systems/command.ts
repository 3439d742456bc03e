/**
 * `command`: the user's pipeline as a program. For each question the
 * command is started once (in the config file's folder), the `request:`
 * JSON is written to its stdin as one line, and the JSON it writes to stdout
 * before exiting with 0 is read by the `response:` paths
 * (service_system.ts). It gets a cleared environment: `HOME`, `LOGNAME`,
 * `PATH`, `SHELL`, `TERM` and `USER` (when ragbench may read them) and its
 * own `env:`, whose values may hold `${VAR}`.
 *
 * A process that runs past `timeout_s`, writes over `max_response_mb` or
 * whose question is cancelled is killed with every process it started
 * (command_process.ts); an exit that is not 0 quotes the end of its stderr.
 * Such failures (and timeouts) are run again up to `max_retries` times;
 * output that is not JSON is not.
 *
 * @module
 */

import { DEFAULT_ENV_VARS, defaultEnvironment } from "../tools/mcp/default_env.ts";
import { fillTemplates, readEnv, Secrets, templateNames } from "../lib/util/secrets.ts";
import { isAbsolute, resolvePath } from "../lib/util/paths.ts";
import {
  RetriesExhausted,
  type RetryReport,
  SYSTEM_CLOCK,
  withRetries,
} from "../lib/llm/retry_policy.ts";
import { callCommand, CommandError } from "./command_process.ts";
import { type CommandOptions, commandOptionsSchema } from "./service_options.ts";
import { ServiceCallError, serviceSystem } from "./service_system.ts";

/** The program to start: a path with a slash is the config folder's; a bare name is PATH's. */
export function commandProgram(program: string, configDir: string): string {
  return program.includes("/") && !isAbsolute(program) ? resolvePath(configDir, program) : program;
}

/** The command system. */
export const command = serviceSystem({
  type: "command",
  description:
    "Your pipeline as a program: run once per question, the request as JSON on stdin, the reply as JSON on stdout.",
  options: commandOptionsSchema,
  endpoint: (o: CommandOptions) => ({ command: o.command, env: o.env }),
  target: (o: CommandOptions) => o.command[0],
  open(o: CommandOptions, env) {
    const secrets = new Secrets();
    const own = fillTemplates(o.env, readEnv, secrets, `system "${env.name}"`);
    const configDir = env.configDir ?? Deno.cwd();
    const spec = {
      program: commandProgram(o.command[0], configDir),
      args: o.command.slice(1),
      cwd: configDir,
      env: { ...defaultEnvironment(), ...own },
      timeoutMs: o.timeout_s * 1000,
      maxBytes: Math.round(o.max_response_mb * 1_048_576),
      secrets,
    };
    return {
      secrets,
      async send(body, signal) {
        let report: RetryReport | undefined;
        try {
          const { value, report: done } = await withRetries(
            (attemptSignal) => callCommand(spec, body, attemptSignal),
            {
              maxRetries: o.max_retries,
              clock: SYSTEM_CLOCK,
              signal,
              classify: (error) => ({
                status: null,
                headers: null,
                retryable: error instanceof CommandError && error.retryable,
              }),
            },
          );
          report = done;
          return { value, attempts: report };
        } catch (error) {
          if (!(error instanceof RetriesExhausted)) throw error;
          const last = error.cause;
          const what = last instanceof CommandError ? last.message : String(last);
          const retries = error.report.retries;
          throw new ServiceCallError(
            retries === 0
              ? what
              : `${what} (Gave up after ${retries} ${retries === 1 ? "retry" : "retries"}.)`,
            error.report,
          );
        }
      },
    };
  },
  needs(o: CommandOptions, ctx) {
    return [
      {
        name: "run",
        value: "",
        why: `running system ${ctx.name}'s command and stopping every process it starts ` +
          "(Deno signals a process group only with --allow-run for every program)",
      },
      ...DEFAULT_ENV_VARS.map((variable) => ({
        name: "env" as const,
        value: variable,
        why: "the default environment of command systems",
      })),
      ...templateNames(Object.values(o.env)).map((variable) => ({
        name: "env" as const,
        value: variable,
        why: `\${${variable}} in system ${ctx.name}'s env`,
      })),
    ];
  },
});
