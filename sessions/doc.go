// Package sessions owns everything AutoHeal keeps in Redis: per-thread and
// per-channel settings with encrypted secrets, event de-duplication, locks,
// the work queue on Redis Streams, incident thread records (alert
// convergence), approval records for the pull-request flow, idempotent
// result posting and investigations parked until a credential is given.
//
// Several bot replicas share one Redis, so every operation that decides who
// does something is atomic (SET NX, Lua scripts, consumer groups), and every
// key has a TTL or a bound. The package knows neither Slack nor any backend:
// channels, thread timestamps, issue keys and job ids are plain strings.
//
// Redis Cluster: keys that a script touches together share a hash tag. The
// queue's derived keys are the stream name plus a suffix, so in a cluster
// name the stream with a hash tag, for example "{autoheal}:jobs".
package sessions
