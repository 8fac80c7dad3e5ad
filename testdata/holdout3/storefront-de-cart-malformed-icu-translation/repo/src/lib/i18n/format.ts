import IntlMessageFormat from "intl-messageformat";

export type Messages = Record<string, string>;

// Compiled formatters are cached per locale, key and source text, so a new
// translation from the CMS gets a fresh formatter.
const compiled = new Map<string, IntlMessageFormat>();

/**
 * Formats an ICU message from the CMS bundle. Falls back to the key when the
 * translation is missing so a new key never blanks a page.
 */
export function t(messages: Messages, locale: string, key: string, values?: Record<string, unknown>): string {
  const source = messages[key];
  if (source === undefined) {
    return key;
  }
  const cacheKey = `${locale}\u0000${key}\u0000${source}`;
  let fmt = compiled.get(cacheKey);
  if (!fmt) {
    fmt = new IntlMessageFormat(source, locale);
    compiled.set(cacheKey, fmt);
  }
  return String(fmt.format(values));
}
