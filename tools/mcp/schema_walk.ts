/**
 * The interpreter under `output_schema.ts`: walks a schema and a value
 * together and says where the value does not fit, one keyword group at a
 * time (the type-independent keywords, the combinators, then the number,
 * string, array and object keywords). Every schema applied to a value, and
 * every piece of work that grows with the value, is counted against the
 * check's {@link Budget}, which gives up (throws) rather than run long.
 *
 * @module
 */

import type { Budget } from "./schema_budget.ts";
import {
  codePoints,
  hasType,
  isObject,
  num,
  objectOr,
  own,
  resolveRef,
  type Schema,
  typeOf,
  where,
} from "./schema_values.ts";

/** One check of one value against a schema (`root`); `refs` caches what each `$ref` names. */
export class SchemaWalk {
  readonly #root: unknown;
  readonly #refs: Map<string, unknown>;
  readonly #budget: Budget;

  constructor(root: unknown, refs: Map<string, unknown>, budget: Budget) {
    this.#root = root;
    this.#refs = refs;
    this.#budget = budget;
  }

  /** Why `value` (at `at`, a JSON pointer) does not match `schema`, or null. */
  check(schema: unknown, value: unknown, at: string, depth: number): string | null {
    this.#budget.enter(depth);
    if (schema === false) return `${where(at)} is not allowed by the schema`;
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return null;
    const s = schema as Schema;
    const next = depth + 1;
    const ref = own(s, "$ref");
    if (typeof ref === "string") {
      const problem = this.check(this.#resolve(ref), value, at, next);
      if (problem !== null) return problem;
    }
    return this.#generic(s, value, at) ??
      this.#combined(s, value, at, next) ??
      (typeof value === "number" ? this.#number(s, value, at) : null) ??
      (typeof value === "string" ? this.#string(s, value, at) : null) ??
      (Array.isArray(value) ? this.#array(s, value, at, next) : null) ??
      (isObject(value) ? this.#object(s, value, at, next) : null);
  }

  #generic(s: Schema, value: unknown, at: string): string | null {
    const type = own(s, "type");
    if (type !== undefined) {
      const types = Array.isArray(type) ? type : [type];
      if (!types.some((t) => hasType(value, t))) {
        return `${where(at)} must be ${types.map(String).join(" or ")}, not ${typeOf(value)}`;
      }
    }
    if (Object.hasOwn(s, "const") && !this.#equal(value, s.const)) {
      return `${where(at)} must be the schema's constant`;
    }
    const options = own(s, "enum");
    if (Array.isArray(options) && !options.some((o) => this.#equal(value, o))) {
      return `${where(at)} must be one of the schema's ${options.length} values`;
    }
    return null;
  }

  #combined(s: Schema, value: unknown, at: string, depth: number): string | null {
    const allOf = own(s, "allOf");
    if (Array.isArray(allOf)) {
      for (const sub of allOf) {
        const problem = this.check(sub, value, at, depth);
        if (problem !== null) return problem;
      }
    }
    const anyOf = own(s, "anyOf");
    if (Array.isArray(anyOf) && !anyOf.some((sub) => this.check(sub, value, at, depth) === null)) {
      return `${where(at)} matches none of anyOf`;
    }
    const oneOf = own(s, "oneOf");
    if (Array.isArray(oneOf)) {
      let matches = 0;
      for (const sub of oneOf) if (this.check(sub, value, at, depth) === null) matches++;
      if (matches !== 1) return `${where(at)} matches ${matches} of oneOf, not exactly one`;
    }
    if (Object.hasOwn(s, "not") && this.check(s.not, value, at, depth) === null) {
      return `${where(at)} matches the schema under not`;
    }
    if (Object.hasOwn(s, "if")) {
      const branch = this.check(s.if, value, at, depth) === null ? "then" : "else";
      if (Object.hasOwn(s, branch)) return this.check(s[branch], value, at, depth);
    }
    return null;
  }

  #number(s: Schema, value: number, at: string): string | null {
    const min = num(s, "minimum");
    const max = num(s, "maximum");
    const exMin = own(s, "exclusiveMinimum");
    const exMax = own(s, "exclusiveMaximum");
    if (min !== undefined && (exMin === true ? value <= min : value < min)) {
      return `${where(at)} must be ${exMin === true ? "greater than" : "at least"} ${min}`;
    }
    if (max !== undefined && (exMax === true ? value >= max : value > max)) {
      return `${where(at)} must be ${exMax === true ? "less than" : "at most"} ${max}`;
    }
    if (typeof exMin === "number" && value <= exMin) {
      return `${where(at)} must be greater than ${exMin}`;
    }
    if (typeof exMax === "number" && value >= exMax) {
      return `${where(at)} must be less than ${exMax}`;
    }
    const step = num(s, "multipleOf");
    if (step !== undefined && step > 0) {
      const q = value / step;
      if (Number.isFinite(q) && Math.abs(q - Math.round(q)) > 1e-9) {
        return `${where(at)} must be a multiple of ${step}`;
      }
    }
    return null;
  }

  #string(s: Schema, value: string, at: string): string | null {
    const min = num(s, "minLength");
    const max = num(s, "maxLength");
    if (min !== undefined || max !== undefined) {
      this.#budget.add(value.length >> 10);
      const length = codePoints(value);
      if (min !== undefined && length < min) {
        return `${where(at)} must be at least ${min} characters`;
      }
      if (max !== undefined && length > max) {
        return `${where(at)} must be at most ${max} characters`;
      }
    }
    const pattern = own(s, "pattern");
    if (typeof pattern === "string" && this.#budget.matches(pattern, value) === false) {
      return `${where(at)} does not match the schema's pattern`;
    }
    return null;
  }

  #array(s: Schema, value: unknown[], at: string, depth: number): string | null {
    const min = num(s, "minItems");
    const max = num(s, "maxItems");
    if (min !== undefined && value.length < min) {
      return `${where(at)} must have at least ${min} items`;
    }
    if (max !== undefined && value.length > max) {
      return `${where(at)} must have at most ${max} items`;
    }
    const prefix = own(s, "prefixItems");
    const items = own(s, "items");
    // 2020-12: prefixItems, then items for the rest; draft-07: items as a list, then additionalItems.
    const tuple = Array.isArray(prefix) ? prefix : Array.isArray(items) ? items : [];
    const rest = Array.isArray(prefix)
      ? items
      : Array.isArray(items)
      ? own(s, "additionalItems")
      : items;
    for (let i = 0; i < value.length; i++) {
      const sub = i < tuple.length ? tuple[i] : rest;
      if (sub === undefined) continue;
      const problem = this.check(sub, value[i], `${at}/${i}`, depth);
      if (problem !== null) return problem;
    }
    if (own(s, "uniqueItems") === true) {
      const seen = new Set<string>();
      for (let i = 0; i < value.length; i++) {
        const key = this.#budget.canonical(value[i]);
        if (seen.has(key)) return `${where(at)} must not hold the same item twice (item ${i})`;
        seen.add(key);
      }
    }
    if (Object.hasOwn(s, "contains")) {
      let found = 0;
      for (const item of value) if (this.check(s.contains, item, at, depth) === null) found++;
      const least = num(s, "minContains") ?? 1;
      const most = num(s, "maxContains");
      if (found < least) return `${where(at)} must contain at least ${least} matching items`;
      if (most !== undefined && found > most) {
        return `${where(at)} must contain at most ${most} matching items`;
      }
    }
    return null;
  }

  #object(s: Schema, value: Schema, at: string, depth: number): string | null {
    const keys = Object.keys(value);
    const min = num(s, "minProperties");
    const max = num(s, "maxProperties");
    if (min !== undefined && keys.length < min) return `${where(at)} must have ${min}+ properties`;
    if (max !== undefined && keys.length > max) {
      return `${where(at)} must have at most ${max} properties`;
    }
    const required = own(s, "required");
    if (Array.isArray(required)) {
      for (const name of required) {
        this.#budget.add(1);
        if (typeof name === "string" && !Object.hasOwn(value, name)) {
          return `${where(at)} lacks the required property ${JSON.stringify(name.slice(0, 100))}`;
        }
      }
    }
    const properties = objectOr(own(s, "properties"));
    const patterned = objectOr(own(s, "patternProperties"));
    const patternKeys = Object.keys(patterned);
    const additional = own(s, "additionalProperties");
    const names = own(s, "propertyNames");
    for (const key of keys) {
      const path = `${at}/${key.slice(0, 100)}`;
      if (names !== undefined) {
        const problem = this.check(names, key, path, depth);
        if (problem !== null) return `${where(path)}: its name does not fit propertyNames`;
      }
      let matched = false;
      if (Object.hasOwn(properties, key)) {
        matched = true;
        const problem = this.check(properties[key], value[key], path, depth);
        if (problem !== null) return problem;
      }
      for (const pattern of patternKeys) {
        if (this.#budget.matches(pattern, key) !== true) continue;
        matched = true;
        const problem = this.check(patterned[pattern], value[key], path, depth);
        if (problem !== null) return problem;
      }
      if (!matched && additional !== undefined) {
        const problem = this.check(additional, value[key], path, depth);
        if (problem !== null) {
          return additional === false ? `${where(path)} is not an allowed property` : problem;
        }
      }
    }
    const dependent = objectOr(own(s, "dependentRequired"));
    const schemas = objectOr(own(s, "dependentSchemas"));
    const legacy = objectOr(own(s, "dependencies"));
    for (const key of keys) {
      this.#budget.add(1);
      for (const needs of [dependent[key], legacy[key]]) {
        if (!Array.isArray(needs)) continue;
        for (const name of needs) {
          this.#budget.add(1);
          if (typeof name === "string" && !Object.hasOwn(value, name)) {
            return `${where(at)} has ${JSON.stringify(key.slice(0, 100))} but lacks ${
              JSON.stringify(name.slice(0, 100))
            }`;
          }
        }
      }
      for (const sub of [schemas[key], legacy[key]]) {
        if (sub === undefined || Array.isArray(sub)) continue;
        const problem = this.check(sub, value, at, depth);
        if (problem !== null) return problem;
      }
    }
    return null;
  }

  #equal(a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
      return false;
    }
    return this.#budget.canonical(a) === this.#budget.canonical(b);
  }

  /** The schema `ref` names in this document (a JSON pointer or an `$anchor`); true when unknown. */
  #resolve(ref: string): unknown {
    let target = this.#refs.get(ref);
    if (target === undefined) {
      target = resolveRef(this.#root, ref, () => this.#budget.add(1)) ?? true;
      this.#refs.set(ref, target);
    }
    return target;
  }
}
