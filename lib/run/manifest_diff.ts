/**
 * What differs between an earlier run's manifest (`run.json`, manifest.ts)
 * and the current one, in the words `--resume` refuses with: one line per
 * difference, naming the section (file, system, key) and both values.
 * Differences in what never changes a result (see manifest.ts) are not
 * reported.
 *
 * @module
 */

import { hashValue, type PathDigest } from "./digest.ts";
import { comparedEvaluation, comparedModel, type RunManifest } from "./manifest.ts";

/** Longest value quoted in a difference before it is cut. */
const QUOTE_LIMIT = 60;

function quote(value: unknown): string {
  const text = value === undefined ? "(unset)" : JSON.stringify(value);
  return text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT - 1)}…` : text;
}

function objectDifferences(
  section: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => hashValue(before[k] ?? null) !== hashValue(after[k] ?? null))
    .map((k) => `${section}.${k}: ${quote(before[k])} → ${quote(after[k])}`);
}

function digestDifferences(
  role: string,
  before: readonly PathDigest[],
  after: readonly PathDigest[],
): string[] {
  const paths = (list: readonly PathDigest[]) => list.map((d) => d.path);
  if (hashValue(paths(before)) !== hashValue(paths(after))) {
    return [`${role}: the files differ (${quote(paths(before))} → ${quote(paths(after))})`];
  }
  return after.flatMap((d, i) => {
    const old = before[i].sha256;
    if (d.sha256 === old) return [];
    if (d.sha256 === null || old === null) {
      return [`${role}: "${d.path}" was read in only one of the runs (read permission differs)`];
    }
    return [`${role}: "${d.path}" changed${d.files > 1 ? ` (${d.files} files)` : ""}`];
  });
}

function systemDifferences(before: RunManifest["systems"], after: RunManifest["systems"]) {
  const out: string[] = [];
  const old = new Map(before.map((s) => [s.name, s]));
  const now = new Map(after.map((s) => [s.name, s]));
  for (const s of after) {
    const o = old.get(s.name);
    if (!o) {
      out.push(`systems: "${s.name}" is new (not in the earlier run)`);
      continue;
    }
    if (o.type !== s.type) out.push(`system "${s.name}": type ${quote(o.type)} → ${quote(s.type)}`);
    else if (o.config_sha256 !== s.config_sha256) {
      out.push(`system "${s.name}": its config entry changed`);
    }
    if (o.prompts_sha256 !== s.prompts_sha256) out.push(`system "${s.name}": its prompts changed`);
    if (hashValue(o.tools) !== hashValue(s.tools)) {
      out.push(`system "${s.name}": offered tools ${quote(o.tools)} → ${quote(s.tools)}`);
    } else if (o.tool_schemas_sha256 !== s.tool_schemas_sha256) {
      out.push(`system "${s.name}": its tool schemas (descriptions or parameters) changed`);
    }
  }
  for (const s of before) {
    if (!now.has(s.name)) out.push(`systems: "${s.name}" is not in this run`);
  }
  return out;
}

/** A different `--shard` (or one run sharded and the other not) would mix two sets of jobs. */
function shardDifferences(before: RunManifest["shard"], after: RunManifest["shard"]): string[] {
  const name = (b: RunManifest["shard"]) =>
    b === undefined ? "none (the whole run)" : `${b.index}/${b.count}`;
  if (before === undefined && after === undefined) return [];
  if (before?.index !== after?.index || before?.count !== after?.count) {
    return [`--shard: ${name(before)} → ${name(after)}`];
  }
  if (hashValue(before?.layout) !== hashValue(after?.layout)) {
    return [`--shard ${name(after)}: the jobs of the whole run differ, so the split does`];
  }
  return [];
}

/**
 * What differs between the manifest of an earlier run and the current one,
 * one line each naming the section (file, system, key); empty when a resume
 * may continue.
 */
export function manifestDifferences(before: RunManifest, after: RunManifest): string[] {
  const out: string[] = [];
  if (before.mock !== after.mock) {
    out.push(
      `mock: the earlier run ${before.mock ? "used" : "did not use"} --mock; this one ${
        after.mock ? "does" : "does not"
      }`,
    );
  }
  out.push(
    ...objectDifferences("model", comparedModel(before.model), comparedModel(after.model)),
  );
  out.push(
    ...objectDifferences(
      "evaluation",
      comparedEvaluation(before.evaluation),
      comparedEvaluation(after.evaluation),
    ),
  );
  out.push(...objectDifferences("tools", before.tools, after.tools));
  for (const role of ["corpus", "questions", "mock_script", "custom_tools"] as const) {
    out.push(...digestDifferences(role, before.inputs[role], after.inputs[role]));
  }
  out.push(...shardDifferences(before.shard, after.shard));
  if (before.selection.limit !== after.selection.limit) {
    out.push(`--limit: ${quote(before.selection.limit)} → ${quote(after.selection.limit)}`);
  }
  out.push(...systemDifferences(before.systems, after.systems));
  if (before.scorer.version !== after.scorer.version) {
    out.push(`scorer: version ${before.scorer.version} → ${after.scorer.version}`);
  } else if (hashValue(before.scorer.metrics) !== hashValue(after.scorer.metrics)) {
    out.push("scorer: the metric definitions changed");
  }
  if (out.length === 0 && before.config_sha256 !== after.config_sha256) {
    out.push("config: its name or description changed");
  }
  return out;
}
