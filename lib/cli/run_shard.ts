/**
 * `ragbench run --shard i/n`: which of the run's jobs this process runs
 * (lib/run/shard.ts), what its `run.json` records of the whole run, and the
 * line that says so. The shard's run directory is an ordinary run folder
 * (summaries of its own jobs), resumable with `--resume DIR --shard i/n`;
 * `ragbench merge` joins the shards into the folder the whole run writes.
 *
 * @module
 */

import {
  jobWeight,
  parseShard,
  type ShardBlock,
  shardBlock,
  shardFilter,
  shardName,
  type ShardSpec,
} from "../run/shard.ts";
import { modelCallsOf, type SystemDef } from "../../systems/system.ts";
import { plural } from "../util/plural.ts";
import type { ParsedArgs } from "./args.ts";

/** The `--shard` option's declaration. */
export const SHARD_OPTION = {
  name: "shard",
  value: "I/N",
  description: "Run only shard I of N of the jobs (1 ≤ I ≤ N; the same split on every " +
    "machine) into its own run directory, with 1/N of model.rate_limit and of " +
    "evaluation.max_cost_usd; join the shards with ragbench merge.",
} as const;

/** What a sharded run needs of its shard. */
export interface RunShard {
  spec: ShardSpec;
  /** Recorded in `run.json`. */
  block: ShardBlock;
  /** The runner's filter. */
  include: (system: string, questionId: string, repeat: number) => boolean;
  /** `shard 2/3: 63 of 189 jobs`. */
  line: string;
}

/** `--shard` parsed; undefined without it. */
export function shardOption(args: ParsedArgs): ShardSpec | undefined {
  const text = args.options.get("shard");
  return text === undefined ? undefined : parseShard(text);
}

/** The shard of this run over its planned systems and loaded questions. */
export function runShard(
  spec: ShardSpec,
  run: {
    systems: ReadonlyArray<{ name: string; def: SystemDef; options: Record<string, unknown> }>;
    questions: ReadonlyArray<{ id: string }>;
    repeats: number;
  },
): RunShard {
  const layout = {
    systems: run.systems.map((s) => ({
      name: s.name,
      weight: jobWeight(modelCallsOf(s.def, s.options)),
    })),
    questions: run.questions.map((q) => q.id),
    repeats: run.repeats,
  };
  const block = shardBlock(spec, layout);
  return {
    spec,
    block,
    include: shardFilter(spec, layout),
    line: `shard ${shardName(spec)}: ${plural(block.jobs, "job")} of the run's ${block.run_jobs}`,
  };
}
