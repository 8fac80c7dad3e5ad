import { cache } from "react";
import type { Messages } from "./format";

const CONTENT_API = process.env.CONTENT_API_URL ?? "http://content-api.content.svc.cluster.local";

/**
 * Translation bundles come from Contentful through content-api (which drops its
 * cache on every publish webhook). Next's fetch cache keeps them for 60 s.
 */
export const loadMessages = cache(async (locale: string, ns: string): Promise<Messages> => {
  const res = await fetch(`${CONTENT_API}/v1/translations/${locale}?ns=${ns}`, { next: { revalidate: 60 } });
  if (!res.ok) {
    throw new Error(`translations ${locale}/${ns}: HTTP ${res.status}`);
  }
  return res.json();
});
