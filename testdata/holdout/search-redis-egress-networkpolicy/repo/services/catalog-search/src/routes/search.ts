import { Router } from 'express';
import { cached } from '../cache';
import { opensearch } from '../opensearch';
import { logger } from '../logger';

export const search = Router();

search.get('/v1/search', async (req, res) => {
  const q = String(req.query.q ?? '').trim().toLowerCase();
  const region = String(req.headers['x-region'] ?? 'us');
  if (q.length < 2) {
    return res.status(400).json({ error: 'query_too_short' });
  }
  try {
    const hits = await cached(`search:${region}:${q}`, () => opensearch.searchTitles(q, region));
    res.json({ hits });
  } catch (err) {
    logger.error({ err, q, region }, 'search failed');
    res.status(503).json({ error: 'search_unavailable' });
  }
});

search.get('/v1/titles/:id', async (req, res) => {
  const title = await opensearch.getTitle(req.params.id);
  return title ? res.json(title) : res.status(404).end();
});
