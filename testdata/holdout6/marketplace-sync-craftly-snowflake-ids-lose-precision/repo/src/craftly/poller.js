'use strict';

const craftly = require('./client');
const { saveOrder } = require('../orders/repository');
const log = require('../log');

async function pollOnce(shop) {
  const orders = await craftly.listNewOrders(shop.token, shop.cursor);
  for (const o of orders) {
    try {
      const full = await craftly.getOrder(shop.token, o.id);
      await saveOrder('craftly', full);
      await craftly.acknowledge(shop.token, o.id);
    } catch (err) {
      log.error({ err, partner: 'craftly', orderId: o.id }, 'order import failed');
    }
  }
}

module.exports = { pollOnce };
