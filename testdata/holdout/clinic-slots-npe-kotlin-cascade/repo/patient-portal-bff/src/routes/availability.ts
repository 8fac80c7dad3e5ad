import { Router } from 'express';
import { appointmentClient } from '../clients/appointment';
import { logger } from '../logger';

export const availability = Router();

// GET /api/appointments/availability?specialty=dermatology&date=2026-08-12&visit=video
availability.get('/availability', async (req, res) => {
  const { specialty, date, visit } = req.query as Record<string, string>;
  try {
    const slots = await appointmentClient.searchSlots({
      specialty,
      date,
      visitType: visit === 'video' ? 'VIDEO' : 'IN_PERSON',
    });
    res.json({ slots });
  } catch (err) {
    logger.error({ err, specialty, date, visit }, 'failed to load availability');
    res.status(500).json({ error: 'availability_unavailable' });
  }
});
