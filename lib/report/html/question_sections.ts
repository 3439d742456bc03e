/**
 * The report's sections built from the per-question lines: mean score by
 * question kind and tag, the questions whose verdict changed between repeats,
 * and the failure labels per system.
 *
 * @module
 */

import { flipRate } from "../../score/significance.ts";
import { type Html, markup } from "./html.ts";
import type { ReportLine } from "./question_data.ts";
import { genericTable, type Row, section, tableWrap } from "./tables.ts";

/** Mean answer score per system by question kind and by tag. */
export function breakdownSection(
  systems: readonly string[],
  lines: readonly ReportLine[],
): Html | "" {
  const byKind = groupScores(systems, lines, (l) => [l.kind ?? "(none)"]);
  const byTag = groupScores(systems, lines, (l) => l.tags.length ? l.tags : []);
  if (byKind.groups.length === 0) return "";
  return section(
    "breakdown",
    "Score by question kind and tag",
    markup`${breakdownTable("kind", systems, byKind)}${
      byTag.groups.length ? breakdownTable("tag", systems, byTag) : ""
    }`,
  );
}

/** Most unstable questions listed. */
const UNSTABLE_LISTED = 50;

/**
 * With repeats: the questions whose verdict changed between repeats, most
 * unstable first, with each one's flip rate (changes between consecutive
 * repeats / (repeats − 1)).
 */
export function stabilitySection(
  systems: readonly string[],
  lines: readonly ReportLine[],
): Html | "" {
  // Only a line past repeat 1 can make a question repeated (a job has one line): a run without
  // one skips a map of every line.
  if (!lines.some((l) => l.repeat > 1)) return "";
  const shown = new Set(systems);
  const verdicts = new Map<string, Array<[number, boolean]>>();
  for (const line of lines) {
    if (line.answer_score === null || !shown.has(line.system)) continue;
    const key = `${line.system}\u0000${line.question_id}`;
    let list = verdicts.get(key);
    if (!list) verdicts.set(key, list = []);
    list.push([line.repeat, line.passed === true]);
  }
  const rows: Row[] = [];
  let repeated = false;
  for (const [key, list] of verdicts) {
    if (list.length < 2) continue;
    repeated = true;
    const ordered = list.sort((a, b) => a[0] - b[0]).map((v) => v[1]);
    const rate = flipRate(ordered)!;
    if (rate === 0) continue;
    const [system, question] = key.split("\u0000");
    rows.push({
      system,
      question,
      repeats: ordered.length,
      passed: ordered.filter(Boolean).length,
      flip_rate: rate,
    });
  }
  if (!repeated) return "";
  rows.sort((a, b) => Number(b.flip_rate) - Number(a.flip_rate));
  const body = rows.length
    ? genericTable(
      ["system", "question", "repeats", "passed", "flip_rate"],
      rows.slice(0, UNSTABLE_LISTED),
    )
    : markup`<p>Every question got the same verdict in every repeat.</p>`;
  return section(
    "stability",
    "Questions whose verdict changed between repeats",
    markup`${body}${
      rows.length > UNSTABLE_LISTED
        ? markup`<p class="note">${rows.length - UNSTABLE_LISTED} more not listed.</p>`
        : ""
    }`,
  );
}

/** Failure labels per system, from the lines' `failure_label`. */
export function failureSection(
  systems: readonly string[],
  lines: readonly ReportLine[],
): Html | "" {
  // One pass over the lines (a run can have a million): counts by system and label.
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  for (const l of lines) {
    if (!l.failure_label) continue;
    seen.add(l.failure_label);
    const key = `${l.system}\u0000${l.failure_label}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const labels = [...seen].sort();
  if (labels.length === 0) return "";
  const count = (s: string, label: string) => counts.get(`${s}\u0000${label}`) ?? 0;
  return section(
    "failures",
    "Why questions failed",
    genericTable(
      ["system", ...labels],
      systems.map((s) => ({
        system: s,
        ...Object.fromEntries(labels.map((l) => [l, count(s, l)])),
      })),
    ),
  );
}

interface Groups {
  groups: string[];
  cells: Map<string, { total: number; n: number }>;
}

function groupScores(
  systems: readonly string[],
  lines: readonly ReportLine[],
  keys: (l: ReportLine) => readonly string[],
): Groups {
  const cells = new Map<string, { total: number; n: number }>();
  const groups = new Set<string>();
  const shown = new Set(systems);
  for (const line of lines) {
    if (line.answer_score === null || !shown.has(line.system)) continue;
    for (const key of keys(line)) {
      groups.add(key);
      const id = `${line.system}\u0000${key}`;
      const cell = cells.get(id) ?? { total: 0, n: 0 };
      cell.total += line.answer_score;
      cell.n++;
      cells.set(id, cell);
    }
  }
  return { groups: [...groups].sort(), cells };
}

function breakdownTable(what: string, systems: readonly string[], g: Groups): Html {
  const head = g.groups.map((k) => markup`<th>${k}</th>`);
  const body = systems.map((s) =>
    markup`<tr><th scope="row">${s}</th>${
      g.groups.map((k) => {
        const c = g.cells.get(`${s}\u0000${k}`);
        if (!c) return markup`<td>-</td>`;
        const mean = (c.total / c.n).toFixed(3);
        return markup`<td class="num heat" style="--v:${mean}">${mean} <small>(${c.n})</small></td>`;
      })
    }</tr>`
  );
  return markup`<h3>By ${what}</h3>${
    tableWrap(
      markup`<table><thead><tr><th>system</th>${head}</tr></thead><tbody>${body}</tbody></table>`,
    )
  }`;
}
