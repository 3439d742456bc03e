/**
 * Reading and writing calendar dates for tools and config: the date formats a
 * model may send, English weekday and month names, and the supported year
 * range. Built on `Temporal.PlainDate` (no time zones involved anywhere).
 *
 * @module
 */

/** Earliest year a date may have (Temporal allows more; people and tables do not need it). */
export const MIN_YEAR = 1;
/** Latest year a date may have, so every date prints as YYYY-MM-DD. */
export const MAX_YEAR = 9999;

/** English weekday names, Monday first (index = `PlainDate.dayOfWeek - 1`). */
export const WEEKDAYS = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
  "Sunday",
] as const;

/** English month names, January first (index = month - 1). */
export const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

/** The accepted date formats, as one phrase for error messages and descriptions. */
export const DATE_FORMATS_HINT =
  'YYYY-MM-DD (e.g. 2025-03-05), a month name and day like "March 5, 2025" or "Mar 5, 2025", ' +
  'or "today"';

/** The outcome of {@link parseDate}: a date, or a sentence saying what is wrong with the text. */
export type ParsedDate =
  | { ok: true; date: Temporal.PlainDate; isToday: boolean }
  | { ok: false; message: string };

const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
// "March 5, 2025", "Mar. 5 2025", "march 5th, 2025": month, day, optional ordinal suffix, year.
const MONTH_NAME_DATE = /^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(\d{4})$/;

/** Lower-case month name or abbreviation -> month number (1-12). */
const MONTH_NUMBERS: ReadonlyMap<string, number> = new Map(
  MONTHS.flatMap((name, i) => {
    const lower = name.toLowerCase();
    const entries: Array<[string, number]> = [[lower, i + 1], [lower.slice(0, 3), i + 1]];
    if (lower === "september") entries.push(["sept", 9]);
    return entries;
  }),
);

/**
 * Parses a date written as YYYY-MM-DD (month and day may have one digit),
 * `March 5, 2025` / `Mar 5, 2025` (full or three-letter English month name,
 * also `Sept`; case-insensitive; the comma, a period after the abbreviation
 * and an ordinal suffix such as `5th` are optional), or `today` (= `today`).
 * Rejects impossible dates (2025-02-30) and years outside
 * {@link MIN_YEAR}..{@link MAX_YEAR}. Never throws.
 */
export function parseDate(text: string, today: Temporal.PlainDate): ParsedDate {
  const trimmed = text.trim();
  const lower = trimmed.toLowerCase();
  if (lower === "today") return { ok: true, date: today, isToday: true };
  let parts: { year: number; month: number; day: number } | undefined;
  const iso = ISO_DATE.exec(trimmed);
  if (iso) {
    parts = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
  } else {
    const named = MONTH_NAME_DATE.exec(lower);
    const month = named ? MONTH_NUMBERS.get(named[1]) : undefined;
    if (named && month !== undefined) {
      parts = { year: Number(named[3]), month, day: Number(named[2]) };
    }
  }
  if (parts === undefined) {
    return {
      ok: false,
      message: `Cannot read "${clip(trimmed)}" as a date: use ${DATE_FORMATS_HINT}.`,
    };
  }
  const { year, month, day } = parts;
  if (year < MIN_YEAR || year > MAX_YEAR) {
    return {
      ok: false,
      message: `"${trimmed}" is outside the supported years ${MIN_YEAR} to ${MAX_YEAR}.`,
    };
  }
  if (month < 1 || month > 12) {
    return { ok: false, message: `"${trimmed}" is not a real date: the month must be 1 to 12.` };
  }
  const monthDays = Temporal.PlainYearMonth.from({ year, month }).daysInMonth;
  if (day < 1 || day > monthDays) {
    return {
      ok: false,
      message: `"${trimmed}" is not a real date: ${
        MONTHS[month - 1]
      } ${year} has ${monthDays} days.`,
    };
  }
  return { ok: true, date: Temporal.PlainDate.from({ year, month, day }), isToday: false };
}

/** The English weekday name of a date, e.g. "Wednesday". */
export function weekdayName(date: Temporal.PlainDate): string {
  return WEEKDAYS[date.dayOfWeek - 1];
}

/** True when `year` is in the supported range {@link MIN_YEAR}..{@link MAX_YEAR}. */
export function isSupportedYear(year: number): boolean {
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

/** Keeps echoed model text short in messages. */
function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
