'use strict';

const { trace } = require('@opentelemetry/api');

const tracer = trace.getTracer('shipment-api');

/**
 * Carriers report leg ETAs as local wall-clock strings. The tracking page
 * shows them in UTC, with the last leg's ETA as the delivery estimate.
 */
function normaliseEta(leg) {
  if (!leg.etaLocal) {
    return null;
  }
  const eta = new Date(leg.etaLocal + 'Z');
  return { legId: leg.id, carrier: leg.carrier, etaUtc: eta.toISOString() };
}

function computeEtas(shipment) {
  return tracer.startActiveSpan('eta.compute', (span) => {
    try {
      span.setAttribute('app.shipment.legs', shipment.legs.length);
      const legs = shipment.legs.map(normaliseEta).filter(Boolean);
      return { legs, deliveryEta: legs.length ? legs[legs.length - 1].etaUtc : null };
    } finally {
      span.end();
    }
  });
}

module.exports = { computeEtas, normaliseEta };
