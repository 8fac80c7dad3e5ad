import { Router } from 'express';
import { getProfile } from '../upstream/profile';
import { getCourses } from '../upstream/courses';
import { logger } from '../logger';

export const dashboard = Router();

dashboard.get('/api/dashboard', async (req, res) => {
  try {
    const [profile, courses] = await Promise.all([getProfile(req.user.id, req.traceHeaders), getCourses(req.user.id, req.traceHeaders)]);
    res.json({ profile, courses });
  } catch (err) {
    logger.error({ err, userId: req.user.id }, 'dashboard upstream failed');
    res.status(502).json({ error: 'upstream_failed' });
  }
});
