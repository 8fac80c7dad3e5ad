/**
 * Address checks for invitations. This is deliberately loose (full
 * verification happens when the invitee clicks the link); it only keeps
 * obvious typos and pasted CSV fragments out of the invites table.
 */

// Compiled once at module load instead of per call: bulk invites of 500+
// addresses spent ~30% of their CPU building this RegExp (#2231).
export const EMAIL_PATTERN =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/gi;

const MAX_EMAIL_LENGTH = 254;

export function normalizeEmail(raw: string): string {
  return raw.trim().replace(/^mailto:/i, '');
}

export function isValidEmail(raw: string): boolean {
  const email = normalizeEmail(raw);
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH) {
    return false;
  }
  return EMAIL_PATTERN.test(email);
}

export function maskEmail(email: string): string {
  const [local, domain] = email.split('@');
  if (!domain) return '***';
  return `${local.slice(0, 1)}***@${domain}`;
}
