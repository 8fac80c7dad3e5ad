const express = require('express');
const axios = require('axios');
const router = express.Router();
const EXPORT = process.env.CLAIMS_EXPORT_URL || 'http://claims-export.claims.svc:8080';

router.post('/claims/:id/export', async (req, res, next) => {
  try {
    const { data } = await axios.post(`${EXPORT}/claims/${req.params.id}/export`, { requestedBy: req.user.email });
    res.status(202).json(data);
  } catch (e) { next(e); }
});

router.get('/exports/:jobId', async (req, res, next) => {
  try {
    const { data } = await axios.get(`${EXPORT}/exports/${req.params.jobId}`);
    if (data.status === 'FAILED') {
      req.log.error({ jobId: req.params.jobId, reason: data.failureReason }, 'claim export failed');
      return res.status(502).json({ error: 'Export failed, please retry' });
    }
    res.json(data);
  } catch (e) { next(e); }
});

module.exports = router;
