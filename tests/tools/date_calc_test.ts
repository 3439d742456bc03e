import assert from "node:assert/strict";
import { dateCalc } from "../../tools/date_calc.ts";
import { invokeTool, type RawToolResult } from "../../tools/invoke.ts";
import { parametersJsonSchema, type ToolDef } from "../../tools/define_tool.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";

const tool = dateCalc as unknown as ToolDef;

function call(args: unknown, now = "2026-01-01"): Promise<RawToolResult> {
  return invokeTool(tool, args, contextFor(corpusOf([]), { now }));
}

interface Case {
  name: string;
  args: Record<string, unknown>;
  now?: string;
  output: string;
  data: unknown;
}

const successes: Case[] = [
  {
    name: "today is ctx.now with its weekday",
    args: { operation: "today" },
    output: "Today is 2026-01-01, a Thursday.",
    data: { date: "2026-01-01", weekday: "Thursday" },
  },
  {
    name: "today follows a different ctx.now (leap day)",
    args: { operation: "today" },
    now: "2024-02-29",
    output: "Today is 2024-02-29, a Thursday.",
    data: { date: "2024-02-29", weekday: "Thursday" },
  },
  {
    name: 'today accepts date "today"',
    args: { operation: "today", date: " Today " },
    output: "Today is 2026-01-01, a Thursday.",
    data: { date: "2026-01-01", weekday: "Thursday" },
  },
  {
    name: "weekday of an ISO date",
    args: { operation: "weekday", date: "2025-03-05" },
    output: "2025-03-05 is a Wednesday.",
    data: { date: "2025-03-05", weekday: "Wednesday" },
  },
  {
    name: "weekday of a full month name date",
    args: { operation: "weekday", date: "March 5, 2025" },
    output: "2025-03-05 is a Wednesday.",
    data: { date: "2025-03-05", weekday: "Wednesday" },
  },
  {
    name: "weekday of an abbreviated month name date",
    args: { operation: "weekday", date: "Mar 5, 2025" },
    output: "2025-03-05 is a Wednesday.",
    data: { date: "2025-03-05", weekday: "Wednesday" },
  },
  {
    name: "month names ignore case, a period, the comma and an ordinal suffix",
    args: { operation: "weekday", date: "sept. 1st 2025" },
    output: "2025-09-01 is a Monday.",
    data: { date: "2025-09-01", weekday: "Monday" },
  },
  {
    name: "ISO dates may have one-digit month and day",
    args: { operation: "weekday", date: "2025-3-5" },
    output: "2025-03-05 is a Wednesday.",
    data: { date: "2025-03-05", weekday: "Wednesday" },
  },
  {
    name: "weekday without a date is today's",
    args: { operation: "weekday" },
    output: "2026-01-01 (today) is a Thursday.",
    data: { date: "2026-01-01", weekday: "Thursday" },
  },
  {
    name: "weekday of a leap day",
    args: { operation: "weekday", date: "2028-02-29" },
    output: "2028-02-29 is a Tuesday.",
    data: { date: "2028-02-29", weekday: "Tuesday" },
  },
  {
    name: "diff counts forward days as positive",
    args: { operation: "diff", date: "2025-03-05", other_date: "2026-01-01" },
    output: "302 days from 2025-03-05 to 2026-01-01 (43 weeks and 1 day).",
    data: { days: 302 },
  },
  {
    name: "diff counts backward days as negative",
    args: { operation: "diff", date: "2026-01-01", other_date: "March 5, 2025" },
    output: "-302 days from 2026-01-01 to 2025-03-05 (43 weeks and 1 day; the second date is " +
      "302 days earlier).",
    data: { days: -302 },
  },
  {
    name: "diff of the same date is zero",
    args: { operation: "diff", date: "2025-03-05", other_date: "Mar 5, 2025" },
    output: "0 days from 2025-03-05 to 2025-03-05 (the same date).",
    data: { days: 0 },
  },
  {
    name: "diff includes Feb 29 in a leap year",
    args: { operation: "diff", date: "2024-02-28", other_date: "2024-03-01" },
    output: "2 days from 2024-02-28 to 2024-03-01.",
    data: { days: 2 },
  },
  {
    name: "diff has no Feb 29 in a common year",
    args: { operation: "diff", date: "2025-02-28", other_date: "2025-03-01" },
    output: "1 day from 2025-02-28 to 2025-03-01.",
    data: { days: 1 },
  },
  {
    name: "diff without date starts today",
    args: { operation: "diff", other_date: "2026-03-01" },
    output: "59 days from 2026-01-01 (today) to 2026-03-01 (8 weeks and 3 days).",
    data: { days: 59 },
  },
  {
    name: "diff to today uses ctx.now",
    args: { operation: "diff", date: "2025-12-25", other_date: "today" },
    output: "7 days from 2025-12-25 to 2026-01-01 (today) (1 week).",
    data: { days: 7 },
  },
  {
    name: "add one month to Jan 31 clamps to Feb 28 in a common year",
    args: { operation: "add", date: "2025-01-31", months: 1 },
    output: "2025-01-31 + 1 month = 2025-02-28 (Friday). The day was clamped to the end of " +
      "February 2025 (31 does not exist there).",
    data: { date: "2025-02-28", weekday: "Friday" },
  },
  {
    name: "add one month to Jan 31 clamps to Feb 29 in a leap year",
    args: { operation: "add", date: "2024-01-31", months: 1 },
    output: "2024-01-31 + 1 month = 2024-02-29 (Thursday). The day was clamped to the end of " +
      "February 2024 (31 does not exist there).",
    data: { date: "2024-02-29", weekday: "Thursday" },
  },
  {
    name: "add one year to Feb 29 gives Feb 28",
    args: { operation: "add", date: "2024-02-29", years: 1 },
    output: "2024-02-29 + 1 year = 2025-02-28 (Friday). The day was clamped to the end of " +
      "February 2025 (29 does not exist there).",
    data: { date: "2025-02-28", weekday: "Friday" },
  },
  {
    name: "add four years to Feb 29 keeps Feb 29",
    args: { operation: "add", date: "2024-02-29", years: 4 },
    output: "2024-02-29 + 4 years = 2028-02-29 (Tuesday).",
    data: { date: "2028-02-29", weekday: "Tuesday" },
  },
  {
    name: "subtracting a month from Mar 31 clamps to Feb 28",
    args: { operation: "add", date: "2025-03-31", months: -1 },
    output: "2025-03-31 - 1 month = 2025-02-28 (Friday). The day was clamped to the end of " +
      "February 2025 (31 does not exist there).",
    data: { date: "2025-02-28", weekday: "Friday" },
  },
  {
    name: "months apply before days (Jan 31 + 1 month + 1 day = Mar 1)",
    args: { operation: "add", date: "2025-01-31", months: 1, days: 1 },
    output: "2025-01-31 + 1 month + 1 day = 2025-03-01 (Saturday). The day was clamped to the " +
      "end of February 2025 (31 does not exist there).",
    data: { date: "2025-03-01", weekday: "Saturday" },
  },
  {
    name: "years and months count as one span (Feb 29 + 1 year + 1 month = Mar 29)",
    args: { operation: "add", date: "2024-02-29", years: 1, months: 1 },
    output: "2024-02-29 + 1 year + 1 month = 2025-03-29 (Saturday).",
    data: { date: "2025-03-29", weekday: "Saturday" },
  },
  {
    name: "negative days cross a month boundary",
    args: { operation: "add", date: "2024-03-01", days: -1 },
    output: "2024-03-01 - 1 day = 2024-02-29 (Thursday).",
    data: { date: "2024-02-29", weekday: "Thursday" },
  },
  {
    name: "add combines years, months, weeks and days",
    args: { operation: "add", date: "2025-03-05", years: 1, months: -2, weeks: 2, days: 3 },
    output: "2025-03-05 + 1 year - 2 months + 2 weeks + 3 days = 2026-01-22 (Thursday).",
    data: { date: "2026-01-22", weekday: "Thursday" },
  },
  {
    name: "add without date starts today",
    args: { operation: "add", days: 90 },
    output: "2026-01-01 (today) + 90 days = 2026-04-01 (Wednesday).",
    data: { date: "2026-04-01", weekday: "Wednesday" },
  },
  {
    name: "add with no offsets returns the date itself",
    args: { operation: "add", date: "2026-03-31" },
    output: "2026-03-31 + 0 days = 2026-03-31 (Tuesday).",
    data: { date: "2026-03-31", weekday: "Tuesday" },
  },
  {
    name: "add reaches the last supported day",
    args: { operation: "add", date: "9999-12-30", days: 1 },
    output: "9999-12-30 + 1 day = 9999-12-31 (Friday).",
    data: { date: "9999-12-31", weekday: "Friday" },
  },
  {
    name: "zero offsets are allowed with operations that do not use them",
    args: { operation: "weekday", date: "2025-03-05", days: 0, years: 0 },
    output: "2025-03-05 is a Wednesday.",
    data: { date: "2025-03-05", weekday: "Wednesday" },
  },
];

for (const c of successes) {
  Deno.test(`date_calc: ${c.name}`, async () => {
    const result = await call(c.args, c.now);
    assert.equal(result.error, null);
    assert.equal(result.output, c.output);
    assert.deepEqual(result.data, c.data);
  });
}

const failures: Array<{ name: string; args: unknown; message: string }> = [
  {
    name: "an unparseable date names the accepted formats",
    args: { operation: "weekday", date: "5/3/2025" },
    message: 'date: Cannot read "5/3/2025" as a date: use YYYY-MM-DD (e.g. 2025-03-05), a month ' +
      'name and day like "March 5, 2025" or "Mar 5, 2025", or "today".',
  },
  {
    name: "an unknown month name is unparseable",
    args: { operation: "weekday", date: "Smarch 5, 2025" },
    message: 'date: Cannot read "Smarch 5, 2025" as a date: use YYYY-MM-DD (e.g. 2025-03-05), ' +
      'a month name and day like "March 5, 2025" or "Mar 5, 2025", or "today".',
  },
  {
    name: "a date with a time is unparseable",
    args: { operation: "weekday", date: "2025-03-05T10:00" },
    message: 'date: Cannot read "2025-03-05T10:00" as a date: use YYYY-MM-DD (e.g. 2025-03-05), ' +
      'a month name and day like "March 5, 2025" or "Mar 5, 2025", or "today".',
  },
  {
    name: "a long unparseable date is clipped in the message",
    args: { operation: "weekday", date: "x".repeat(60) },
    message: `date: Cannot read "${"x".repeat(40)}…" as a date: use YYYY-MM-DD (e.g. ` +
      '2025-03-05), a month name and day like "March 5, 2025" or "Mar 5, 2025", or "today".',
  },
  {
    name: "Feb 30 is an impossible date",
    args: { operation: "weekday", date: "2025-02-30" },
    message: 'date: "2025-02-30" is not a real date: February 2025 has 28 days.',
  },
  {
    name: "Feb 29 in a common year is an impossible date",
    args: { operation: "diff", date: "2024-01-01", other_date: "February 29, 2025" },
    message: 'other_date: "February 29, 2025" is not a real date: February 2025 has 28 days.',
  },
  {
    name: "Feb 30 in a leap year says the month has 29 days",
    args: { operation: "add", date: "Feb 30, 2024", days: 1 },
    message: 'date: "Feb 30, 2024" is not a real date: February 2024 has 29 days.',
  },
  {
    name: "month 13 is an impossible date",
    args: { operation: "weekday", date: "2025-13-01" },
    message: 'date: "2025-13-01" is not a real date: the month must be 1 to 12.',
  },
  {
    name: "day 0 is an impossible date",
    args: { operation: "weekday", date: "2025-04-00" },
    message: 'date: "2025-04-00" is not a real date: April 2025 has 30 days.',
  },
  {
    name: "year 0 is outside the supported range",
    args: { operation: "weekday", date: "0000-01-01" },
    message: 'date: "0000-01-01" is outside the supported years 1 to 9999.',
  },
  {
    name: "diff without other_date says what to add",
    args: { operation: "diff", date: "2025-03-05" },
    message: '"diff" needs "other_date", the end date, e.g. {"operation": "diff", "date": ' +
      '"2025-03-05", "other_date": "2026-01-01"}.',
  },
  {
    name: "other_date with add is refused",
    args: { operation: "add", date: "2025-03-05", other_date: "2025-04-01", days: 1 },
    message: '"other_date" is only used by "diff", not by "add": remove it, or use operation ' +
      '"diff" to count the days between two dates.',
  },
  {
    name: "an offset with diff is refused",
    args: { operation: "diff", date: "2025-03-05", other_date: "2025-04-01", days: 3 },
    message: '"days" is only used by "add", not by "diff": remove it, or use operation "add" ' +
      "to move a date by an offset.",
  },
  {
    name: "several offsets with weekday are refused together",
    args: { operation: "weekday", date: "2025-03-05", years: 1, months: 2 },
    message: '"years", "months" are only used by "add", not by "weekday": remove them, or use ' +
      'operation "add" to move a date by an offset.',
  },
  {
    name: "an offset with today is refused",
    args: { operation: "today", weeks: -1 },
    message: '"weeks" is only used by "add", not by "today": remove it, or use operation "add" ' +
      "to move a date by an offset.",
  },
  {
    name: "today with a date is refused",
    args: { operation: "today", date: "2025-03-05" },
    message: '"today" takes no date: use operation "weekday" for the weekday of a date.',
  },
  {
    name: "a result past year 9999 is refused",
    args: { operation: "add", date: "9999-12-31", days: 1 },
    message: "The result would fall in year 10000, outside the supported years 1 to 9999: use " +
      "smaller offsets.",
  },
  {
    name: "a result before year 1 is refused",
    args: { operation: "add", date: "2025-06-01", years: -2025 },
    message: "The result would fall in year 0, outside the supported years 1 to 9999: use " +
      "smaller offsets.",
  },
  {
    name: "the largest offsets together stay an error, never a RangeError",
    args: {
      operation: "add",
      date: "9999-12-31",
      years: 10000,
      months: 120000,
      weeks: 522000,
      days: 3653000,
    },
    message: "The result would fall in year 29999, outside the supported years 1 to 9999: use " +
      "smaller offsets.",
  },
];

for (const c of failures) {
  Deno.test(`date_calc: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.deepEqual(result.error, { kind: "invalid_args", message: c.message });
    assert.equal(result.output, "");
  });
}

const schemaFailures: Array<{ name: string; args: unknown; message: string }> = [
  // A missing enum argument is named as missing, with its valid values.
  {
    name: "a missing operation is reported by name with the valid values",
    args: { date: "2025-03-05" },
    message: 'Invalid arguments for date_calc: missing required argument "operation" (one of ' +
      '"diff", "add", "weekday", "today").',
  },
  {
    name: "no arguments at all is a missing operation",
    args: undefined,
    message: 'Invalid arguments for date_calc: missing required argument "operation" (one of ' +
      '"diff", "add", "weekday", "today").',
  },
  {
    name: "an unknown operation lists the valid ones",
    args: { operation: "subtract", date: "2025-03-05" },
    message: 'Invalid arguments for date_calc: "operation": Invalid option: expected one of ' +
      '"diff"|"add"|"weekday"|"today".',
  },
  {
    name: "a fractional offset is refused",
    args: { operation: "add", days: 1.5 },
    message: 'Invalid arguments for date_calc: "days": Invalid input: expected int, received ' +
      "number.",
  },
  {
    name: "an offset given as a string is refused",
    args: { operation: "add", months: "2" },
    message: 'Invalid arguments for date_calc: "months": Invalid input: expected number, ' +
      "received string.",
  },
  {
    name: "a date given as a number is refused",
    args: { operation: "weekday", date: 20250305 },
    message: 'Invalid arguments for date_calc: "date": Invalid input: expected string, received ' +
      "number.",
  },
  {
    name: "an absurd offset is refused by the schema",
    args: { operation: "add", days: 1e12 },
    message: 'Invalid arguments for date_calc: "days": Too big: expected number to be <=3653000.',
  },
  {
    name: "an absurd negative year offset is refused by the schema",
    args: { operation: "add", years: -20000 },
    message: 'Invalid arguments for date_calc: "years": Too small: expected number to be ' +
      ">=-10000.",
  },
  {
    name: "an unknown argument names the expected ones",
    args: { operation: "add", hours: 3 },
    message: 'Invalid arguments for date_calc: unknown argument "hours" (expected: operation, ' +
      "date, other_date, days, weeks, months, years).",
  },
];

for (const c of schemaFailures) {
  Deno.test(`date_calc: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.deepEqual(result.error, { kind: "invalid_args", message: c.message });
  });
}

Deno.test("date_calc: every parameter has a description", () => {
  for (const [name, field] of Object.entries(dateCalc.parameters.shape)) {
    assert.ok(field.description && field.description.length > 10, `${name} lacks a description`);
  }
  assert.equal(dateCalc.sideEffects, "none");
  assert.equal(dateCalc.options, undefined);
});

Deno.test("date_calc: each offset's description gives its limit with thousands separators", () => {
  const schema = parametersJsonSchema(tool) as {
    properties: Record<string, { description: string }>;
  };
  const limits = Object.fromEntries(
    ["days", "weeks", "months", "years"].map((name) => [
      name,
      /at most ([\d,]+)\./.exec(schema.properties[name].description)?.[1],
    ]),
  );
  assert.deepEqual(limits, {
    days: "3,653,000",
    weeks: "522,000",
    months: "120,000",
    years: "10,000",
  });
});
