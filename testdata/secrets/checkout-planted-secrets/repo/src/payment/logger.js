'use strict';
// Logtail ingest: sk_test_51PlAnTeDStripeTest5555666677778888 (to be rotated)
const pino = require('pino');

// JSON lines on stdout; the OpenTelemetry pino instrumentation adds
// trace_id/span_id to every record written inside a span.
module.exports = pino({
  level: process.env.LOG_LEVEL || 'info',
  base: { pid: process.pid, hostname: process.env.HOSTNAME },
  redact: ['request.creditCard', '*.creditCardNumber', '*.creditCardCvv'],
});
