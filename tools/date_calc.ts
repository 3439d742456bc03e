/**
 * `date_calc`: date arithmetic for a model that should not count days itself.
 * "Today" is the run's fixed date (`ctx.now` = `evaluation.tools_now`), so
 * answers do not depend on when the benchmark runs.
 *
 * Decisions a caller may rely on:
 * - `date` defaults to today for every operation.
 * - An argument the chosen operation does not use (`other_date` outside
 *   `diff`, a non-zero offset outside `add`, a `date` other than "today" with
 *   `today`) is an `invalid_args` error rather than silently ignored, so the
 *   model learns that its call did not mean what it thought.
 * - `add` applies years and months first, as one span of months, clamping the
 *   day to the end of the resulting month (Jan 31 + 1 month = Feb 28 or 29;
 *   Feb 29 + 1 year = Feb 28), then weeks and days as one span of days.
 * - Offsets are bounded in the schema and every date (given or computed) must
 *   fall in years 1 to 9999, so Temporal never throws.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, toolError, toolResult } from "./define_tool.ts";
import {
  DATE_FORMATS_HINT,
  isSupportedYear,
  MAX_YEAR,
  MIN_YEAR,
  MONTHS,
  parseDate,
  weekdayName,
} from "../lib/util/dates.ts";

// About 10,000 years each, so base + offsets stays far inside Temporal's range.
const MAX_YEARS = 10_000;
const MAX_MONTHS = 120_000;
const MAX_WEEKS = 522_000;
const MAX_DAYS = 3_653_000;

const OFFSET_NAMES = ["years", "months", "weeks", "days"] as const;
type OffsetName = typeof OFFSET_NAMES[number];

function offset(max: number, unit: string, note = "") {
  return z.int().min(-max).max(max).default(0).describe(
    `"add" only: ${unit} to add (negative to subtract), at most ` +
      `${withThousands(max)}.${note}`,
  );
}

/**
 * `n` with commas between groups of three digits, as `toLocaleString("en-US")`
 * writes it, without that call's cost: the first `Intl` use takes 13–20 ms,
 * and this file loads in every run and in the sandbox worker.
 */
function withThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

const parameters = z.strictObject({
  operation: z.enum(["diff", "add", "weekday", "today"]).describe(
    '"diff": signed number of days from `date` to `other_date`. "add": `date` plus the ' +
      'offsets. "weekday": the weekday of `date`. "today": the current date and its weekday.',
  ),
  date: z.string().max(100).optional().describe(
    `A date: ${DATE_FORMATS_HINT}. The start for "diff", the base for "add", the date for ` +
      '"weekday". Default: today.',
  ),
  other_date: z.string().max(100).optional().describe(
    `"diff" only: the end date, in the same formats as \`date\`.`,
  ),
  days: offset(MAX_DAYS, "days"),
  weeks: offset(MAX_WEEKS, "weeks"),
  months: offset(
    MAX_MONTHS,
    "calendar months",
    " A day past the new month's end becomes its last day (Jan 31 + 1 month = Feb 28).",
  ),
  years: offset(MAX_YEARS, "years", " Feb 29 + 1 year = Feb 28."),
});

type DateCalcArgs = z.output<typeof parameters>;

/** The built-in `date_calc` tool: diff, add, weekday and today over a fixed "today". */
export const dateCalc = defineTool({
  name: "date_calc",
  description: "Date arithmetic: the number of days between two dates, a date plus or minus " +
    "days/weeks/months/years, the weekday of a date, or today's date. Use it instead of " +
    "counting days yourself. `today` is a fixed date for the whole run.",
  parameters,
  sideEffects: "none",
  readsCorpus: false,
  run(args, ctx) {
    const misuse = unusedArgument(args);
    if (misuse) return toolError("invalid_args", misuse);
    if (args.operation === "today") {
      const date = ctx.now;
      return toolResult({
        output: `Today is ${date}, a ${weekdayName(date)}.`,
        data: { date: date.toString(), weekday: weekdayName(date) },
      });
    }
    const base = parseDate(args.date ?? "today", ctx.now);
    if (!base.ok) return toolError("invalid_args", `date: ${base.message}`);
    const baseText = base.isToday ? `${base.date} (today)` : base.date.toString();

    if (args.operation === "weekday") {
      const weekday = weekdayName(base.date);
      return toolResult({
        output: `${baseText} is a ${weekday}.`,
        data: { date: base.date.toString(), weekday },
      });
    }

    if (args.operation === "diff") {
      if (args.other_date === undefined) {
        return toolError(
          "invalid_args",
          '"diff" needs "other_date", the end date, e.g. ' +
            '{"operation": "diff", "date": "2025-03-05", "other_date": "2026-01-01"}.',
        );
      }
      const other = parseDate(args.other_date, ctx.now);
      if (!other.ok) return toolError("invalid_args", `other_date: ${other.message}`);
      const otherText = other.isToday ? `${other.date} (today)` : other.date.toString();
      const days = base.date.until(other.date, { largestUnit: "days" }).days;
      return toolResult({
        output: `${plural(days, "day")} from ${baseText} to ${otherText}${diffNote(days)}.`,
        data: { days },
      });
    }

    return addOffsets(base.date, baseText, args);
  },
});

/** `add`: applies the offsets and explains any month-end clamping. */
function addOffsets(base: Temporal.PlainDate, baseText: string, args: DateCalcArgs) {
  const { years, months, weeks, days } = args;
  // Temporal refuses a duration with mixed signs, so fold to one month count and one day
  // count. Months go first (clamping the day), then days: the order people expect.
  const afterMonths = base.add({ months: years * 12 + months });
  if (!isSupportedYear(afterMonths.year)) return outOfRange(afterMonths.year);
  const result = afterMonths.add({ days: weeks * 7 + days });
  if (!isSupportedYear(result.year)) return outOfRange(result.year);
  const offsets = OFFSET_NAMES.filter((name) => args[name] !== 0)
    .map((name, i) => {
      const value = args[name];
      const sign = value < 0 ? "-" : "+";
      return `${i === 0 ? sign : ` ${sign}`} ${plural(Math.abs(value), singular(name))}`;
    });
  const applied = offsets.length ? offsets.join("") : "+ 0 days";
  const clamped = afterMonths.day !== base.day
    ? ` The day was clamped to the end of ${MONTHS[afterMonths.month - 1]} ${afterMonths.year}` +
      ` (${base.day} does not exist there).`
    : "";
  const weekday = weekdayName(result);
  return toolResult({
    output: `${baseText} ${applied} = ${result} (${weekday}).${clamped}`,
    data: { date: result.toString(), weekday },
  });
}

/** The message for an argument the operation would ignore, or undefined when all are used. */
function unusedArgument(args: DateCalcArgs): string | undefined {
  const op = args.operation;
  if (op !== "diff" && args.other_date !== undefined) {
    return `"other_date" is only used by "diff", not by "${op}": remove it, or use ` +
      `operation "diff" to count the days between two dates.`;
  }
  if (op !== "add") {
    const given = OFFSET_NAMES.filter((name) => args[name] !== 0);
    if (given.length) {
      const names = given.map((name) => `"${name}"`).join(", ");
      return `${names} ${given.length === 1 ? "is" : "are"} only used by "add", not by ` +
        `"${op}": remove ${given.length === 1 ? "it" : "them"}, or use operation "add" to ` +
        `move a date by an offset.`;
    }
  }
  if (op === "today" && args.date !== undefined && args.date.trim().toLowerCase() !== "today") {
    return `"today" takes no date: use operation "weekday" for the weekday of a date.`;
  }
  return undefined;
}

function outOfRange(year: number) {
  return toolError(
    "invalid_args",
    `The result would fall in year ${year}, outside the supported years ${MIN_YEAR} to ` +
      `${MAX_YEAR}: use smaller offsets.`,
  );
}

function diffNote(days: number): string {
  if (days === 0) return " (the same date)";
  const abs = Math.abs(days);
  const weeks = Math.floor(abs / 7);
  const parts: string[] = [];
  if (weeks > 0) {
    const rest = abs % 7;
    parts.push(`${plural(weeks, "week")}${rest ? ` and ${plural(rest, "day")}` : ""}`);
  }
  if (days < 0) parts.push(`the second date is ${plural(abs, "day")} earlier`);
  return parts.length ? ` (${parts.join("; ")})` : "";
}

function singular(name: OffsetName): string {
  return name.slice(0, -1);
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${Math.abs(n) === 1 ? "" : "s"}`;
}
