import assert from "node:assert/strict";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import { modelSchema } from "../../../lib/config/schema.ts";
import { modelKey, systemModel } from "../../../lib/config/system_model.ts";
import { ConfigError } from "../../../lib/errors.ts";

const RUN = modelSchema.parse({
  name: "gpt-4o-mini",
  price: { input_per_mtok: 9, output_per_mtok: 9 },
});
const WHERE = { file: "m.yaml", absolute: "/p/configs/m.yaml" };
const BASE = "name: t\ncorpus: c.json\nquestions: q.yaml\n";

Deno.test("system model: no model: of its own is the run's model itself", () => {
  assert.equal(systemModel(RUN, undefined), RUN);
});

Deno.test("system model: its keys are merged over the run's; a new name drops the run's price", () => {
  const own = systemModel(RUN, { name: "gpt-4o", temperature: 0.5 });
  assert.equal(own.name, "gpt-4o");
  assert.equal(own.temperature, 0.5);
  assert.equal(own.api_key_env, "OPENAI_API_KEY");
  assert.equal(own.price, undefined, "the run's price belongs to gpt-4o-mini");
  const priced = systemModel(RUN, {
    name: "gpt-4o",
    price: { input_per_mtok: 1, output_per_mtok: 2 },
  });
  assert.deepEqual(priced.price, { input_per_mtok: 1, output_per_mtok: 2 });
  assert.deepEqual(systemModel(RUN, { max_retries: 0 }).price, RUN.price, "same name keeps it");
});

Deno.test("system model: equal configs share a key, any differing key separates them", () => {
  assert.equal(modelKey(systemModel(RUN, { name: "gpt-4o-mini" })), modelKey(RUN));
  assert.notEqual(modelKey(systemModel(RUN, { temperature: 1 })), modelKey(RUN));
  assert.notEqual(modelKey(systemModel(RUN, { base_url: "http://h:1/v1" })), modelKey(RUN));
});

Deno.test("config: a system's model: is merged onto SystemConfig.model", () => {
  const config = parseConfig(
    `${BASE}model: {name: gpt-4o-mini, api_key_env: A}\nsystems:\n  - {type: closed_book}\n  - {type: agent_search, model: {name: llama3, base_url: "http://localhost:11434/v1", api_key_env: null}}\n`,
    WHERE,
    REGISTRIES,
  );
  assert.equal(config.systems[0].model, config.model);
  assert.deepEqual(
    [
      config.systems[1].model.name,
      config.systems[1].model.base_url,
      config.systems[1].model.api_key_env,
    ],
    ["llama3", "http://localhost:11434/v1", null],
  );
  assert.equal(config.systems[1].model.timeout_s, 60, "run defaults carry over");
});

Deno.test("config: an unknown key in a system's model: is an error with its line and a did-you-mean", () => {
  assert.throws(
    () =>
      parseConfig(
        `${BASE}systems:\n  - {type: agent_search, model: {nmae: gpt-4o}}\n`,
        WHERE,
        REGISTRIES,
      ),
    (error) =>
      error instanceof ConfigError &&
      /^Cannot load config "m\.yaml" \(line 5, column \d+\): unknown key "nmae" in systems\[0\]\.model — did you mean "name"\?/
        .test(error.message),
  );
});
