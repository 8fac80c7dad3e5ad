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
// Alerts enqueue the same job (NewInvestigationJob) with the thread the
// alert opened, and run through the same worker.
//
// Nothing here talks to a backend directly: capabilities come from
// investigate/capset, pull requests from a Remediator.
package bot
