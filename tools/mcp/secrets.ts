/**
 * `${VAR}` templates and the masking of the values they expand to: the
 * shared implementation is `lib/util/secrets.ts` (retrievers that reach an
 * engine with a password use it too); MCP code imports it from here.
 *
 * @module
 */

export * from "../../lib/util/secrets.ts";
