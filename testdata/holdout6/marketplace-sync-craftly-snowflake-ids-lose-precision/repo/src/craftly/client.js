'use strict';

const { request } = require('undici');
const BASE = process.env.CRAFTLY_API_URL || 'https://api.craftly.example';

async function call(method, path, token, body) {
  const res = await request(BASE + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.statusCode >= 400) {
    const text = await res.body.text();
    throw new CraftlyError(res.statusCode, text, path);
  }
  return res.body.json();
}

async function listNewOrders(token, since) {
  const page = await call('GET', `/v3/orders?status=paid&created_after=${encodeURIComponent(since)}`, token);
  return page.orders.map((o) => ({ id: o.id, createdAt: o.created_at, shop: o.shop_id }));
}

const getOrder = (token, id) => call('GET', `/v3/orders/${id}`, token);
const acknowledge = (token, id) => call('POST', `/v3/orders/${id}/acknowledge`, token, {});

class CraftlyError extends Error {
  constructor(status, body, path) {
    super(`craftly ${status} on ${path}: ${body}`);
    this.status = status;
  }
}

module.exports = { listNewOrders, getOrder, acknowledge, CraftlyError };
