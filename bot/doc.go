// Package bot is AutoHeal's Slack front end: Socket Mode events (app
// mentions, the /autoheal command, button clicks and modal submissions),
// per-thread settings given as `key: value` lines, and the worker that runs
// investigations from the job queue and shows them live in the thread.
//
// # Flow
//
// Every Socket Mode envelope is acknowledged the moment it is read; the work
// is handed to a bounded pool. A mention is answered once across replicas
// (sessions.FirstSeen on the event id): its settings go to the thread's
// session, and its issue text gets an immediate "Investigating…" reply and a
// job on the queue (sessions.Queue). Any replica's worker then resolves the
// session (thread > channel > environment), registers the secrets with
// redact, builds the capabilities, runs the investigation with an observer
// that feeds a coalescing Updater (at most one chat.update per message per
// interval, rate limits honoured, the final state always delivered), and
// posts the result exactly once (sessions.ClaimResultPost): the progress
// message becomes the result, long content follows in the thread. The
// result is kept in Redis (sessions.PutResultDoc) for View patch, Approve
// and Re-investigate. A job with no evidence backend configured is parked
// (sessions.Park) and resumes when a setting arrives.
//
// Alerts: the Alertmanager webhook (package alerts) queues one job per
// incident (issue key) of a notification and answers once they are queued.
// The worker handles it (alertjob.go): sessions.OpenOrFire counts the fire
// once per queue entry and decides, across replicas, who posts the root
// message in the route's channel and whether the cooldown allows a new
// investigation; the root is kept up to date ("fired again (n times)",
// resolved and how long it lasted) under a per-incident lock; a granted
// investigation runs in the thread through the same path as a mention's,
// with a job id derived from the incident, so a job reclaimed from a dead
// replica reuses its progress message and posts one result; once it is
// posted (or the investigation failed for good) the root shows the outcome
// in one line instead of "investigating" (alertoutcome.go). A re-fire
// converges an open pull request (Refirer), saying whether a new
// investigation ran for it; without one, nothing new is claimed.
//
// Approve: an approver's click opens (or finds, or resumes) the pull
// request through the Remediator, under a per-result lock; the thread then
// gets exactly one reply linking it ("Pull request opened: <url|#N title>"),
// whichever replica or retried click gets there (a lock and a record made
// after the post). When another incident's open pull request already
// carries the same change, it is linked instead of a duplicate.
//
// Nothing here talks to a backend directly: capabilities come from
// investigate/capset, pull requests from a Remediator.
package bot
