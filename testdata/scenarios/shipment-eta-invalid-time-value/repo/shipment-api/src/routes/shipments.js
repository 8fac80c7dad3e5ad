'use strict';

const express = require('express');
const { computeEtas } = require('../eta');
const carriers = require('../carriers');

const router = express.Router();

router.get('/v2/shipments/:trackingNo', async (req, res, next) => {
  try {
    const shipment = await carriers.lookup(req.params.trackingNo);
    if (!shipment) {
      return res.status(404).json({ error: 'not_found' });
    }
    const etas = computeEtas(shipment);
    res.json({ trackingNo: shipment.trackingNo, status: shipment.status, ...etas });
  } catch (err) {
    next(err);
  }
});

module.exports = router;
