const ASSIGNER_URL = process.env.EXPERIMENT_ASSIGNER_URL ?? 'http://experiment-assigner.web.svc:8080';

export async function getAssignments(userId: string | undefined, anonId: string) {
  const res = await fetch(`${ASSIGNER_URL}/v1/assignments?user=${userId ?? ''}&anon=${anonId}`, {
    signal: AbortSignal.timeout(300),
  });
  if (!res.ok) throw new Error(`experiment-assigner ${res.status}`);
  return (await res.json()) as Record<string, string>;
}
