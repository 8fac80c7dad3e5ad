const MAX_PREVIEW = 120;

/** Single-line preview of a comment for the activity feed. */
export function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_PREVIEW) {
    return flat;
  }
  return flat.slice(0, MAX_PREVIEW - 1) + '…';
}
