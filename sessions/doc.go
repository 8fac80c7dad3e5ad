// Package sessions owns everything AutoHeal keeps in Redis: per-thread and
// per-channel settings with encrypted secrets, event de-duplication, locks,
// the work queue on Redis Streams, incident thread records (alert
// convergence), approval records for the pull-request flow, idempotent
// result posting and investigations parked until a credential is given.
//
// Several bot replicas share one Redis, so every operation that decides who
// does something is atomic (SET NX, Lua scripts, WATCH/MULTI, consumer
// groups), and every key has a TTL or a bound. The package knows neither
// Slack nor any backend: channels, thread timestamps, issue keys and job ids
// are plain strings.
//
// # Using it
//
//	rdb, _ := sessions.Connect(ctx, os.Getenv("REDIS_URL")) // or embedded.Open for the demo
//	key, _ := sessions.ParseKey(os.Getenv(sessions.EncryptionKeyEnv)) // skip when unset: secrets are then refused
//	store, _ := sessions.New(rdb, sessions.Options{EncryptionKey: key})
//	queue, _ := sessions.NewQueue(rdb, sessions.QueueOptions{Stream: "{autoheal}:jobs"})
//
// A Slack event: FirstSeen(event_id) to answer once, Set/Resolve for
// settings (Resolve gives thread > channel > env with the source of each),
// Enqueue a Job (ErrQueueFull means answer 503 / "busy"). A worker: Run
// with a Handler that returns nil to acknowledge, an error to retry, or
// Permanent(err) to dead-letter. The final Slack post goes through
// GetResult / ClaimResultPost / MarkResultPosted so a re-run job never
// posts twice. Alerts: OpenOrFire decides who posts the thread root and who
// investigates; SetRootTS / WaitRootTS / IncidentForThread connect the
// thread. Approve clicks: BeginApproval with the Actor (user, proposal,
// channel, thread; started=false means someone else is on it or the
// proposal is decided), RecordStep, CompleteApproval or FailApproval with
// the lease, Reject; decisions land in the audit log (RecordAudit for the
// rest, ReadAudit to read it). A job that lacks a credential: Park it, and
// Unpark after the user sets the setting.
//
// # Key layout
//
// All keys start with Options.Prefix ("autoheal"): session:<scope>,
// seen:<id>, once:<key>, lock:<name>, result:{<job>}[:claim],
// incident:<key>, incident-thread:<channel>:<ts>, approval:{<key>} (and
// approval:{<key>}:audit, the per-approval log of older versions, read
// until it expires), audit (the audit stream), parked:<channel>.
// Identifiers with unusual characters are hashed.
//
// Redis Cluster: keys that a script touches together share a hash tag. The
// queue's derived keys are the stream name plus a suffix (":dead",
// ":errors", ":dedupe:<id>"), so in a cluster name the stream with a hash
// tag, for example "{autoheal}:jobs".
package sessions
