import { request } from 'undici';
import type { SearchKey } from '../types';

export class GdsClient {
  constructor(private readonly baseUrl: string) {}

  // gds-gateway returns the merged supplier answer; its schema is versioned there.
  async search(k: SearchKey): Promise<any> {
    const res = await request(`${this.baseUrl}/v1/search`, {
      method: 'POST',
      body: JSON.stringify(k),
      headers: { 'content-type': 'application/json' },
      headersTimeout: 8000,
      bodyTimeout: 8000,
    });
    if (res.statusCode >= 400) {
      throw new Error(`gds-gateway ${res.statusCode}`);
    }
    return res.body.json();
  }
}
