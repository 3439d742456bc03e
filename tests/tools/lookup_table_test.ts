import assert from "node:assert/strict";
import { lookupTable } from "../../tools/lookup_table.ts";
import { invokeTool, type RawToolResult } from "../../tools/invoke.ts";
import type { ToolDef } from "../../tools/define_tool.ts";
import type { Table } from "../../lib/types.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";

const tool = lookupTable as unknown as ToolDef;

const prices: Table = {
  source: "prices.csv",
  title: "Product prices",
  columns: ["product", "price", "year"],
  rows: [
    { product: "HarborShield", price: "12.50", year: "2020" },
    { product: "HarborShield", price: "13.00", year: "2021" },
    { product: "TideGuard", price: "9.99", year: "2020" },
    { product: " Lantern X ", price: "", year: "2021" },
  ],
};

const sales: Table = {
  source: "data/sales.json",
  title: "Regional sales",
  columns: ["Region", "Year", "units", "note", "active"],
  rows: [
    { Region: "North", Year: 2020, units: 120, note: "first\nyear", active: false },
    { Region: "South", Year: 2020, units: 95, note: null, active: false },
    { Region: "North", Year: 2021, units: 130, note: "grew", active: true },
  ],
};

const odd: Table = {
  source: "odd.json",
  title: "odd.json",
  columns: ["constructor", "name"],
  rows: [{ name: "a" }],
};

const tables = [prices, sales, odd];

function call(args: unknown, withTables: Table[] = tables): Promise<RawToolResult> {
  return invokeTool(tool, args, contextFor(corpusOf([{ id: "d1", text: "x" }], withTables)));
}

const successes: Array<{ name: string; args: unknown; output: string; data?: unknown }> = [
  {
    name: "where values match ignoring case and surrounding spaces",
    args: { where: { product: "  harborshield " } },
    output: "prices.csv: product=HarborShield; price=12.50; year=2020\n" +
      "prices.csv: product=HarborShield; price=13.00; year=2021",
    data: {
      results: [
        { doc_id: "prices.csv", row: { product: "HarborShield", price: "12.50", year: "2020" } },
        { doc_id: "prices.csv", row: { product: "HarborShield", price: "13.00", year: "2021" } },
      ],
    },
  },
  {
    name: "a cell with surrounding spaces matches the trimmed value",
    args: { where: { product: "LANTERN X" } },
    output: "prices.csv: product= Lantern X ; price=; year=2021",
  },
  {
    name: "a number matches CSV text and JSON numbers by its string form, across tables",
    args: { where: { year: 2020 }, select: ["year"] },
    output: "prices.csv: year=2020\nprices.csv: year=2020\n" +
      "data/sales.json: Year=2020\ndata/sales.json: Year=2020",
    data: {
      results: [
        { doc_id: "prices.csv", row: { year: "2020" } },
        { doc_id: "prices.csv", row: { year: "2020" } },
        { doc_id: "data/sales.json", row: { Year: 2020 } },
        { doc_id: "data/sales.json", row: { Year: 2020 } },
      ],
    },
  },
  {
    name: "where column names match ignoring case; tables without the column are skipped",
    args: { where: { YEAR: "2021", " region ": "north" } },
    output: "data/sales.json: Region=North; Year=2021; units=130; note=grew; active=true",
    data: {
      results: [{
        doc_id: "data/sales.json",
        row: { Region: "North", Year: 2021, units: 130, note: "grew", active: true },
      }],
    },
  },
  {
    name: "a boolean matches a JSON boolean cell",
    args: { where: { active: true }, select: ["region"] },
    output: "data/sales.json: Region=North",
  },
  {
    name: "select returns the chosen columns in the order asked, spelt as the table spells them",
    args: { where: { product: "tideguard" }, select: ["Price", "PRODUCT"] },
    output: "prices.csv: price=9.99; product=TideGuard",
    data: { results: [{ doc_id: "prices.csv", row: { price: "9.99", product: "TideGuard" } }] },
  },
  {
    name: "an empty select means all columns",
    args: { where: { product: "tideguard" }, select: [] },
    output: "prices.csv: product=TideGuard; price=9.99; year=2020",
  },
  {
    name: "source keeps only tables whose path contains it, case-insensitively",
    args: { where: { year: 2020 }, source: "SALES", select: ["region"] },
    output: "data/sales.json: Region=North\ndata/sales.json: Region=South",
  },
  {
    name: "source also matches the table title",
    args: { where: { year: 2020 }, source: "regional", select: ["region"] },
    output: "data/sales.json: Region=North\ndata/sales.json: Region=South",
  },
  {
    name: "limit cuts the rows and says how many more match",
    args: { where: { year: 2020 }, limit: 1 },
    output: "prices.csv: product=HarborShield; price=12.50; year=2020\n" +
      "3 more matching rows not shown: raise limit or add conditions.",
    data: {
      results: [
        { doc_id: "prices.csv", row: { product: "HarborShield", price: "12.50", year: "2020" } },
      ],
    },
  },
  {
    name: "the default limit is 5",
    args: { where: {} },
    output: "prices.csv: product=HarborShield; price=12.50; year=2020\n" +
      "prices.csv: product=HarborShield; price=13.00; year=2021\n" +
      "prices.csv: product=TideGuard; price=9.99; year=2020\n" +
      "prices.csv: product= Lantern X ; price=; year=2021\n" +
      "data/sales.json: Region=North; Year=2020; units=120; note=first year; active=false\n" +
      "3 more matching rows not shown: raise limit or add conditions.",
  },
  {
    name: "an empty where with a source shows the table's first rows",
    args: { where: {}, source: "sales", limit: 2 },
    output: "data/sales.json: Region=North; Year=2020; units=120; note=first year; active=false\n" +
      "data/sales.json: Region=South; Year=2020; units=95; note=; active=false\n" +
      "1 more matching row not shown: raise limit or add conditions.",
    data: {
      results: [
        {
          doc_id: "data/sales.json",
          row: { Region: "North", Year: 2020, units: 120, note: "first\nyear", active: false },
        },
        {
          doc_id: "data/sales.json",
          row: { Region: "South", Year: 2020, units: 95, note: null, active: false },
        },
      ],
    },
  },
  {
    name: "a missing cell reads as empty, never as an inherited property",
    args: { where: { name: "a" } },
    output: "odd.json: constructor=; name=a",
    data: { results: [{ doc_id: "odd.json", row: { constructor: null, name: "a" } }] },
  },
  {
    name: "no matching row is a result that names the closest value",
    args: { where: { product: "HarbourShield" } },
    output:
      'No rows match product=HarbourShield: no row has product=HarbourShield (closest value: "HarborShield").',
    data: { results: [] },
  },
  {
    name: "no matching row without a close value names the failing condition",
    args: { where: { product: "Zeppelin", year: 2020 } },
    output: "No rows match product=Zeppelin, year=2020: no row has product=Zeppelin.",
    data: { results: [] },
  },
  {
    name: "no matching row when each condition alone matches says so",
    args: { where: { product: "TideGuard", year: 2021 } },
    output: "No rows match product=TideGuard, year=2021 (each condition matches some row, but " +
      "no row meets all of them).",
    data: { results: [] },
  },
];

for (const c of successes) {
  Deno.test(`lookup_table: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.equal(result.error, null);
    assert.equal(result.output, c.output);
    if (c.data !== undefined) assert.deepEqual(result.data, c.data);
  });
}

const manyTables: Table[] = Array.from({ length: 12 }, (_, i) => ({
  source: `t${i}.csv`,
  title: `t${i}.csv`,
  columns: ["id", "value"],
  rows: [{ id: String(i), value: "v" }],
}));

const failures: Array<
  { name: string; args: unknown; tables?: Table[]; kind: string; message: string }
> = [
  {
    name: "an unknown where column lists the columns with a did-you-mean",
    args: { where: { prodcut: "HarborShield" } },
    kind: "invalid_args",
    message: 'where: no table has a column "prodcut" — did you mean "product"? Columns: ' +
      "prices.csv (product, price, year); data/sales.json (Region, Year, units, note, active); " +
      "odd.json (constructor, name).",
  },
  {
    name: "an unknown select column within a source names the source",
    args: { where: { product: "TideGuard" }, select: ["cost"], source: "prices" },
    kind: "invalid_args",
    message: 'select: no table matching source "prices" has a column "cost". Columns: ' +
      "prices.csv (product, price, year).",
  },
  {
    name: "a column of another table is unknown once source excludes that table",
    args: { where: { region: "north" }, source: "prices.csv" },
    kind: "invalid_args",
    message: 'where: no table matching source "prices.csv" has a column "region". Columns: ' +
      "prices.csv (product, price, year).",
  },
  {
    name: "the column list is bounded when there are many tables",
    args: { where: { nme: "x" } },
    tables: manyTables,
    kind: "invalid_args",
    message: 'where: no table has a column "nme". Columns: ' +
      Array.from({ length: 10 }, (_, i) => `t${i}.csv (id, value)`).join("; ") +
      "; and 2 more tables.",
  },
  {
    name: "a source matching no table lists the tables",
    args: { where: { product: "x" }, source: "inventory" },
    kind: "not_found",
    message: `No table's path or title contains "inventory". Tables: prices.csv ` +
      `("Product prices"), data/sales.json ("Regional sales"), odd.json.`,
  },
  {
    name: "a corpus without tables is unavailable",
    args: { where: { product: "x" } },
    tables: [],
    kind: "unavailable",
    message: "The collection has no tables (CSV or JSON files), so there is nothing to look " +
      "up: use search or corpus_grep on the documents instead.",
  },
  {
    name: "a missing where is reported by name",
    args: { select: ["price"] },
    kind: "invalid_args",
    message: 'Invalid arguments for lookup_table: missing required argument "where".',
  },
  {
    name: "a where given as a string is refused",
    args: { where: "product=HarborShield" },
    kind: "invalid_args",
    message: 'Invalid arguments for lookup_table: "where": Invalid input: expected record, ' +
      "received string.",
  },
  {
    name: "a where value that is an object is refused",
    args: { where: { product: { eq: "x" } } },
    kind: "invalid_args",
    message: 'Invalid arguments for lookup_table: "where.product": Invalid input.',
  },
  {
    name: "select given as a string is refused",
    args: { where: { product: "x" }, select: "price" },
    kind: "invalid_args",
    message: 'Invalid arguments for lookup_table: "select": Invalid input: expected array, ' +
      "received string.",
  },
  {
    name: "a limit of 0 is refused",
    args: { where: { product: "x" }, limit: 0 },
    kind: "invalid_args",
    message: 'Invalid arguments for lookup_table: "limit": Too small: expected number to be >=1.',
  },
  {
    name: "a limit over 100 is refused",
    args: { where: { product: "x" }, limit: 101 },
    kind: "invalid_args",
    message: 'Invalid arguments for lookup_table: "limit": Too big: expected number to be <=100.',
  },
];

for (const c of failures) {
  Deno.test(`lookup_table: ${c.name}`, async () => {
    const result = await call(c.args, c.tables);
    assert.deepEqual(result.error, { kind: c.kind, message: c.message });
  });
}

Deno.test("lookup_table: every parameter has a description", () => {
  for (const [name, field] of Object.entries(lookupTable.parameters.shape)) {
    assert.ok(field.description && field.description.length > 10, `${name} lacks a description`);
  }
  assert.equal(lookupTable.sideEffects, "none");
  assert.equal(lookupTable.options, undefined);
});

Deno.test('lookup_table: a "__proto__" column in where (model JSON) is a column no table has, not dropped', async () => {
  const result = await call(JSON.parse('{"where": {"__proto__": "x"}}'));
  assert.equal(result.error?.kind, "invalid_args");
  assert.match(result.error!.message, /^where: no table has a column "__proto__"\. Columns: /);
});

Deno.test('lookup_table: a table with a "__proto__" column is filtered on it like any column', async () => {
  const proto: Table = {
    source: "proto.json",
    title: "proto.json",
    columns: ["__proto__", "name"],
    rows: [
      JSON.parse('{"__proto__": "x", "name": "first"}'),
      JSON.parse('{"__proto__": "y", "name": "second"}'),
    ],
  };
  const result = await call(JSON.parse('{"where": {"__proto__": "y"}, "select": ["name"]}'), [
    proto,
  ]);
  assert.equal(result.error, null);
  assert.equal(result.output, "proto.json: name=second");
});

Deno.test('lookup_table: an unknown "__proto__" argument is named as written', async () => {
  const result = await call(JSON.parse('{"where": {}, "__proto__": 1}'));
  assert.equal(result.error?.kind, "invalid_args");
  assert.match(result.error!.message, /unknown argument "__proto__" \(expected: /);
});
