import { createHash } from 'node:crypto';

/**
 * Deterministic per-student question order: the same student sees the same
 * order when they reload, neighbours see different orders (QZ-512).
 */
export function shuffleQuestions<T>(questions: T[], attemptSeed: string): T[] {
  const out = [...questions];
  let h = createHash('sha256').update(attemptSeed).digest();
  for (let i = out.length - 1; i > 0; i--) {
    if (i % 8 === 0) h = createHash('sha256').update(h).digest();
    const j = h.readUInt32BE((i % 8) * 4) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
