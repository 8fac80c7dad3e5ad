const express = require('express');
const { dispatchClient } = require('../clients/dispatch');
const logger = require('../logger');

const router = express.Router();

router.post('/v1/rides/:rideId/match', async (req, res) => {
  try {
    const offer = await dispatchClient.match(req.params.rideId, req.body.pickup, req.body.preferEv === true);
    res.json({ status: 'matched', driverId: offer.driver_id, etaSeconds: offer.eta_s });
  } catch (err) {
    logger.error({ err, rideId: req.params.rideId }, 'dispatch request failed');
    res.status(502).json({ error: 'matching_unavailable' });
  }
});

module.exports = router;
