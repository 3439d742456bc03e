/**
 * Masking the literal secrets of a retriever's settings for the run folder
 * (`config.resolved.yaml`, the hashes of `run.json`): `${VAR}` templates are
 * kept as written (they name a variable, never its value), and every value
 * a config writes literally where a secret stands is replaced by
 * {@link SECRET_MASK}. Each kind says which of its keys hold one (its
 * `persisted` facet, lib/retrieval/kinds/).
 *
 * @module
 */

/** What replaces a literal secret. */
export const SECRET_MASK = "[secret]";

const TEMPLATE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/** A literal value masked; a template (or null) kept. */
export function maskValue(value: string | null): string | null {
  return value === null || TEMPLATE.test(value) ? value : SECRET_MASK;
}

/** Headers with every literal value masked (a header may carry a token; a template is kept). */
export function maskHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    Object.defineProperty(out, name, {
      value: TEMPLATE.test(value) ? value : SECRET_MASK,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * `text` (a URL or a connection string) with the password of its user
 * information masked (`scheme://user:PASSWORD@host`) and a `password=`
 * query parameter masked, unless they are templates.
 */
export function maskUrl(text: string): string {
  let out = text;
  const scheme = out.indexOf("://");
  if (scheme >= 0) {
    const start = scheme + 3;
    const end = [...["/", "?", "#"].map((c) => out.indexOf(c, start)), out.length]
      .filter((i) => i >= 0).reduce((a, b) => Math.min(a, b));
    const at = out.lastIndexOf("@", end);
    if (at > start) {
      const colon = out.indexOf(":", start);
      if (colon >= 0 && colon < at) {
        const password = out.slice(colon + 1, at);
        if (!TEMPLATE.test(password)) {
          out = `${out.slice(0, colon + 1)}${SECRET_MASK}${out.slice(at)}`;
        }
      }
    }
  }
  return out.replace(
    /([?&]password=)([^&#]*)/gi,
    (whole, key: string, value: string) => TEMPLATE.test(value) ? whole : `${key}${SECRET_MASK}`,
  );
}
