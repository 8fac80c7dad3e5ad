import type { Client } from '@elastic/elasticsearch';
import { esRequests } from '../metrics';
import type { ProgressEvent } from '../types';

const INDEX = 'watch-progress';

export const docId = (profileId: string, titleId: string) => `${profileId}:${titleId}`;

export class ProgressStore {
  constructor(private readonly es: Client) {}

  async save(p: ProgressEvent): Promise<void> {
    await this.es.update({
      index: INDEX,
      id: docId(p.profileId, p.titleId),
      doc: {
        profile_id: p.profileId,
        title_id: p.titleId,
        position_s: p.positionS,
        duration_s: p.durationS,
        progress_pct: p.durationS > 0 ? Math.min(100, Math.round((p.positionS / p.durationS) * 100)) : 0,
        device: p.device,
        updated_at: new Date().toISOString(),
      },
      doc_as_upsert: true,
    });
    esRequests.inc({ op: 'update', result: 'ok' });
  }

  async continueWatching(profileId: string, size = 20) {
    const res = await this.es.search({
      index: INDEX,
      size,
      query: { bool: { filter: [{ term: { profile_id: profileId } }, { range: { position_s: { gt: 60 } } }] } },
      sort: [{ updated_at: 'desc' }],
    });
    return res.hits.hits.map((h) => h._source);
  }
}
