import { Agent } from 'undici';

// One pooled agent for all internal upstreams. Sockets are kept for reuse
// for 15s after their last response to avoid handshakes on bursty pages.
export const upstreamAgent = new Agent({
  connections: 128,
  keepAliveTimeout: 15_000,
  keepAliveMaxTimeout: 60_000,
  headersTimeout: 5_000,
  bodyTimeout: 10_000,
});
