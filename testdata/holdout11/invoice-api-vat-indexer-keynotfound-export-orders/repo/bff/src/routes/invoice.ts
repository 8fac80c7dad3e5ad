import { Router } from 'express';
import { invoiceClient } from '../clients/invoice';

export const invoiceRouter = Router();

invoiceRouter.get('/api/orders/:id/invoice', async (req, res, next) => {
  try {
    const pdf = await invoiceClient.getPdf(req.params.id, req.user.id);
    res.set('Content-Type', 'application/pdf');
    res.set('Cache-Control', 'private, max-age=300');
    res.send(pdf);
  } catch (err) {
    next(err);
  }
});
