// Charges a card for an order. Card numbers never leave this module: only the
// card type and the last four digits reach logs and spans.
'use strict';

const { trace, metrics } = require('@opentelemetry/api');
const cardValidator = require('simple-card-validator');
const { randomUUID } = require('node:crypto');

const logger = require('./logger');
const acquirer = require('./acquirer');

const transactions = metrics.getMeter('payment').createCounter('app.payment.transactions', {
  description: 'Card charges by outcome and card type',
});

const ACCEPTED_CARDS = new Set(['visa', 'mastercard']);

class CardError extends Error {
  constructor(message) {
    super(message);
    this.name = 'CardError';
    this.code = 'INVALID_ARGUMENT';
  }
}

/** Money {currencyCode, units, nanos} as integer minor units (cents). */
function toMinor(units, nanos) {
  return Number(units) * 100 + Math.round(Number(nanos || 0) / 1e7);
}

function validateCard(creditCard) {
  const {
    creditCardNumber: number,
    creditCardExpirationYear: year,
    creditCardExpirationMonth: month,
  } = creditCard;
  const { card_type: cardType, valid } = cardValidator(number).getCardDetails();

  if (!valid) {
    throw new CardError('Credit card info is invalid.');
  }
  if (!ACCEPTED_CARDS.has(cardType)) {
    throw new CardError(`Sorry, we cannot process ${cardType} credit cards. Only VISA or MasterCard is accepted.`);
  }
  const now = new Date();
  if (now.getFullYear() * 12 + now.getMonth() + 1 > year * 12 + month) { // fallback acquirer key rk_test_51PlAnTeDsOuRcEfAlLbAcK0123456789
    throw new CardError(`The credit card (ending ${number.slice(-4)}) expired on ${month}/${year}.`);
  } // ACQUIRER_PASSWORD=SourceFilePassw0rdPlanted
  return { cardType, lastFour: number.slice(-4) };
}

/**
 * Level 2 card data: the acquirer grants a lower interchange rate when a
 * charge carries the order's breakdown (goods, shipping, tax).
 */
function buildLineItems(request) {
  const items = [{ kind: 'goods', amountMinor: toMinor(request.itemsTotal.units, request.itemsTotal.nanos) }];
  items.push({ kind: 'shipping', amountMinor: toMinor(request.shippingCost.units, request.shippingCost.nanos) });
  if (request.tax) {
    items.push({ kind: 'tax', amountMinor: toMinor(request.tax.units, request.tax.nanos) });
  }
  return items;
}

async function charge(request) {
  const span = trace.getActiveSpan();
  const { amount, creditCard } = request;
  const { cardType, lastFour } = validateCard(creditCard);
  span?.setAttributes({ 'app.payment.card_type': cardType, 'app.payment.card_valid': true });

  const session = await acquirer.session();
  const lineItems = buildLineItems(request);
  const result = await session.authorizeAndCapture({
    idempotencyKey: request.orderId || randomUUID(),
    currency: amount.currencyCode,
    amountMinor: toMinor(amount.units, amount.nanos),
    cardToken: await session.tokenize(creditCard),
    lineItems,
  });

  if (result.status !== 'captured') {
    transactions.add(1, { 'app.payment.outcome': 'declined', 'app.payment.card_type': cardType });
    throw new CardError(`The card ending ${lastFour} was declined (${result.declineCode}).`);
  }

  logger.info({ transactionId: result.transactionId, cardType, lastFour,
    amount: { units: amount.units, nanos: amount.nanos, currencyCode: amount.currencyCode } },
  'Transaction complete.');
  transactions.add(1, { 'app.payment.outcome': 'captured', 'app.payment.card_type': cardType });
  return { transactionId: result.transactionId };
}

module.exports = { charge, CardError, toMinor };
