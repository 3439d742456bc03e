import assert from "node:assert/strict";
import { extractNumbers } from "../../../lib/score/numbers.ts";
import { withinCpu } from "../../support/cpu_time.ts";

/** [prose, numbers read, why]: the table documents the reading rule case by case. */
const CASES: [string, number[], string][] = [
  // Plain numbers, units, sentence ends.
  ["330 metres", [330], "a number before a unit"],
  ["It is 330.", [330], "a sentence-final period is not a decimal point"],
  ["It is 3.5. Then 4.", [3.5, 4], "a decimal followed by a sentence end"],
  ["3.5 km", [3.5], "a decimal"],
  ["007", [7], "leading zeros"],
  ["no numbers here", [], "no digits"],
  ["five hundred", [], "number words are not read"],
  // Glued to letters.
  ["330m", [330], "a unit glued after"],
  ["1889AD", [1889], "letters glued after"],
  ["1st, 22nd, 3rd and 4th", [1, 22, 3, 4], "ordinals"],
  ["COVID-19", [19], "a hyphen after a letter is not a sign"],
  ["F-16 and mp3", [16, 3], "letters glued before"],
  // Thousands separators.
  ["1,250", [1250], "comma thousands"],
  ["8,849 m", [8849], "comma thousands before a unit"],
  ["1,000,000", [1000000], "several comma groups"],
  ["$1,250.50", [1250.5], "currency, comma thousands and a decimal"],
  ["1,25", [1, 25], "a two-digit group is not a thousands group"],
  ["1,2345", [1, 2345], "a four-digit group is not a thousands group"],
  ["1,250,5", [1250, 5], "grouping stops at the first short group"],
  ["2019,250 people", [2019, 250], "a leading group over three digits does not group"],
  ["3,5", [3, 5], "no decimal comma"],
  ["1, 2, 3", [1, 2, 3], "a spaced list"],
  ["100,200,300", [100200300], "known ambiguity: an unspaced list of three-digit numbers"],
  ["1 250", [1, 250], "a plain space never groups"],
  ["1\u00A0250", [1, 250], "a no-break space never groups"],
  ["8\u202F849 m", [8849], "a narrow no-break space groups thousands"],
  ["1\u2009250\u2009000", [1250000], "a thin space groups thousands"],
  ["1,250\u2009000", [1250, 0], "separators are not mixed within a number"],
  ["1.000.000", [1, 0, 0], "European thousands dots are a dotted chain"],
  ["1.250,50", [1.25, 50], "European decimal comma is not supported"],
  // Leading dot.
  [".5", [0.5], "a leading dot at the start"],
  ["about .5 of it", [0.5], "a leading dot after a space"],
  ["(-.5)", [-0.5], "a leading dot after a sign"],
  ["file.5", [5], "a dot after a letter is not a decimal point"],
  ["e.g. 5", [5], "an abbreviation's periods"],
  // Dotted chains.
  ["version 2.0.1", [2, 0, 1], "a version is not a decimal"],
  ["192.168.0.1", [192, 168, 0, 1], "an address"],
  ["see section 3.2.1.", [3, 2, 1], "a section number ending a sentence"],
  ["-1.2.3", [1, 2, 3], "dotted chains take no sign"],
  // Signs.
  ["-5", [-5], "a hyphen-minus at the start"],
  ["-0.5", [-0.5], "a negative decimal"],
  ["−430 m", [-430], "a Unicode minus sign"],
  ["-0", [0], "negative zero reads as zero"],
  ["from -5 to -10", [-5, -10], "signs after spaces"],
  ["(-5)", [-5], "a sign after a bracket"],
  ["x=-5; y:-6, z,-7", [-5, -6, -7], "signs after = : ,"],
  ['"-5"', [-5], "a sign after a quote"],
  ["-$5 and −€3", [-5, -3], "a sign before a currency symbol"],
  ["+5", [5], "a plus sign"],
  ["±0.5", [0.5], "plus-minus is not a sign"],
  ["330±5", [330, 5], "a tolerance"],
  ["10 - 5", [10, 5], "a spaced dash is not a sign"],
  ["5%-10%", [5, 10], "a hyphen after a percent sign is a range"],
  ["2020-2021", [2020, 2021], "a range of years"],
  ["2020−2021", [2020, 2021], "a range written with a Unicode minus"],
  ["2020–2021", [2020, 2021], "an en dash range"],
  ["2025-03-05", [2025, 3, 5], "an ISO date"],
  ["555-1234", [555, 1234], "a phone-like number"],
  ["+1 555-1234", [1, 555, 1234], "a phone number with a country code"],
  ["pages 5--7", [5, 7], "a double hyphen range"],
  ["minus 5 °C", [-5], "the word minus before a number"],
  ["temperatures of Minus 40", [-40], "minus in any case"],
  ["negative 3", [-3], "the word negative before a number"],
  ["10 minus 4 is 6", [10, 4, 6], "minus after a number is arithmetic"],
  ["10% minus 4", [10, 4], "minus after a percentage is arithmetic"],
  ["aminus 5", [5], "minus inside a word is not a sign"],
  ["minus\n\n\n\n5", [5], "minus too far from the number is not a sign"],
  // Percentages, fractions, times.
  ["12.5%", [12.5], "a percentage"],
  ["24/7", [24, 7], "a slash separates"],
  ["1/2", [1, 2], "no fractions"],
  ["12:30", [12, 30], "a time"],
  ["03/05/2025", [3, 5, 2025], "a slashed date"],
  // Scale words.
  ["1.2 million", [1.2, 1200000], "a scale word gives both readings"],
  ["1.1 million", [1.1, 1100000], "scaling is exact in decimal"],
  ["3 billion", [3, 3000000000], "billion"],
  ["5 thousand", [5, 5000], "thousand"],
  ["2 trillion", [2, 2000000000000], "trillion"],
  ["3 Millions", [3, 3000000], "a plural, capitalised scale word"],
  ["1.2-million", [1.2, 1200000], "a hyphenated scale word"],
  ["1,200 million", [1200, 1200000000], "a grouped number with a scale word"],
  ["-1.5 billion", [-1.5, -1500000000], "the sign carries to the scaled reading"],
  ["$3bn", [3, 3000000000], "bn glued"],
  ["3 bn", [3, 3000000000], "bn after a space"],
  ["5k run", [5, 5000], "a glued k"],
  ["5K", [5, 5000], "a glued capital K"],
  ["5km", [5], "k starting a unit is not a scale"],
  ["5 k", [5], "a spaced k is not a scale"],
  ["330m", [330], "m is metres, not million"],
  ["$5M", [5], "M is not a scale word"],
  ["5 millionaires", [5], "a scale word must end the word"],
  ["5  million", [5], "at most one space before a scale word"],
  // Scientific notation.
  ["1.5e6", [1500000], "scientific notation"],
  ["2E-3", [0.002], "a negative exponent"],
  ["1.5 × 10^6", [1.5, 10, 6], "written powers of ten are not understood"],
  ["#2e5a3c", [2, 5, 3], "an exponent glued to letters is not an exponent"],
  ["1e400", [], "infinity is dropped"],
  // Mixed prose.
  [
    "The Eiffel Tower is 330 metres tall and was completed in 1889.",
    [330, 1889],
    "a sentence",
  ],
  ["Burj Khalifa (828 m) opened on 4 January 2010.", [828, 4, 2010], "a sentence with a date"],
];

for (const [text, want, why] of CASES) {
  Deno.test(`extractNumbers reads ${JSON.stringify(text)} as [${want.join(", ")}]: ${why}`, () => {
    assert.deepEqual(extractNumbers(text), want);
  });
}

Deno.test("extractNumbers keeps duplicates in text order", () => {
  assert.deepEqual(extractNumbers("5, 3, 5"), [5, 3, 5]);
});

Deno.test("extractNumbers never returns negative zero", () => {
  for (const n of extractNumbers("-0 −0.0 minus 0")) assert.ok(Object.is(n, 0), `got ${n}`);
});

Deno.test("extractNumbers reads a long answer quickly (well under 2000 ms)", () => {
  const text = "In 2019, 1,250 people (about 12.5%) paid $3.5 million; ".repeat(20_000);
  const numbers = withinCpu(2000, () => extractNumbers(text));
  assert.deepEqual(numbers.slice(0, 5), [2019, 1250, 12.5, 3.5, 3500000]);
  assert.equal(numbers.length, 5 * 20_000);
});
