/** Contentful request budget: 7 req/s on the delivery API for our space (WEB-1711). */
export const CONTENTFUL_MAX_RPS = 6;
export const CONTENTFUL_RETRY_AFTER_FALLBACK_MS = 1200;
