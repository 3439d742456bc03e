/**
 * An example custom tool: length unit conversion. A config offers it as
 *
 *   tools: [{name: convert_length, path: "../examples/custom_tool/unit_convert.ts#convertLength"}]
 *
 * It runs in its own process with no permissions (side effects: none).
 */

import { defineTool, toolError, toolResult, z } from "ragbench/tool";

/** Metres per unit. */
const METRES: Record<string, number> = {
  mm: 0.001,
  m: 1,
  km: 1000,
  in: 0.0254,
  ft: 0.3048,
  mi: 1609.344,
};
const UNITS = ["mm", "m", "km", "in", "ft", "mi"] as const;

/** Converts a length between metric and imperial units. */
export const convertLength = defineTool({
  name: "convert_length",
  description: "Convert a length between units (mm, m, km, in, ft, mi). Use it instead of " +
    "converting in your head.",
  parameters: z.object({
    value: z.number().describe("The length to convert, e.g. 330"),
    from: z.enum(UNITS).describe("Unit of the value"),
    to: z.enum(UNITS).describe("Unit to convert to"),
  }),
  sideEffects: "none",
  run({ value, from, to }) {
    if (!Number.isFinite(value)) return toolError("invalid_args", "value must be a finite number");
    const converted = value * METRES[from] / METRES[to];
    const rounded = Number(converted.toPrecision(6));
    return toolResult({
      output: `${value} ${from} = ${rounded} ${to}`,
      data: { value: rounded, unit: to },
    });
  },
});
