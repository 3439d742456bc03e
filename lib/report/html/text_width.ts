/**
 * How wide a line of text is drawn, estimated without a font or a canvas
 * (the report is written by a process with neither), so that the plots can
 * place their labels where they overlap nothing. The estimate errs wide: for
 * each printable ASCII character it is the larger advance of DejaVu Sans and
 * Liberation Sans (metric-compatible with Arial and Helvetica), the fonts a
 * `sans-serif` label falls back to on Linux and the widest of the common
 * ones; Segoe UI, San Francisco and Roboto are narrower. Any other character
 * counts as a full em, and one outside the Basic Multilingual Plane (an
 * emoji) as 1.25 em.
 *
 * @module
 */

/** Advance widths of U+0020..U+007E in thousandths of an em. */
const ASCII_WIDTHS = [
  318,
  401,
  460,
  838,
  637,
  951,
  780,
  275,
  391,
  391,
  500,
  838,
  318,
  361,
  318,
  337,
  637,
  637,
  637,
  637,
  637,
  637,
  637,
  637,
  637,
  637,
  337,
  337,
  838,
  838,
  838,
  557,
  1016,
  685,
  687,
  723,
  771,
  667,
  611,
  778,
  752,
  295,
  500,
  667,
  558,
  863,
  749,
  788,
  667,
  788,
  723,
  667,
  611,
  732,
  685,
  989,
  686,
  667,
  686,
  391,
  337,
  391,
  838,
  557,
  500,
  613,
  635,
  550,
  635,
  616,
  353,
  635,
  634,
  278,
  278,
  580,
  278,
  975,
  634,
  612,
  635,
  635,
  412,
  521,
  393,
  634,
  592,
  818,
  592,
  592,
  525,
  637,
  337,
  637,
  838,
];

/** The drawn width of `text` at `fontSize` pixels, in pixels, erring wide. */
export function textWidth(text: string, fontSize: number): number {
  let thousandths = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0x20 && code <= 0x7e) thousandths += ASCII_WIDTHS[code - 0x20];
    else if (code > 0xffff) thousandths += 1250;
    else thousandths += 1000;
  }
  return (thousandths / 1000) * fontSize;
}
