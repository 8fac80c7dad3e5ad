import { Router } from 'express';
import { logger } from '../logger';
import { getStudyIndex } from '../index-store';
import { applyHangingProtocol } from '../hangingProtocols';

export const studies = Router();

studies.get('/studies/:studyUid', async (req, res) => {
  const index = await getStudyIndex(req.params.studyUid);
  if (!index) {
    // The router has stored the study but study-indexer has not written its
    // index yet (normally < 30 s after the last instance arrives).
    logger.warn({ studyUid: req.params.studyUid, user: req.user?.id }, 'study not indexed');
    return res.status(404).json({ error: 'study_not_indexed' });
  }
  res.json(applyHangingProtocol(index, req.user?.preferences));
});
