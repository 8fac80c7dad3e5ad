// Package remediate turns an investigation result into something a human
// can approve: a proposal by bucket, and an approval-gated, idempotent pull
// request on GitHub that converges when the incident fires again. It never
// decides confidence: whether to show the Approve button at all is the
// caller's (the band comes from the investigation).
//
// # Proposals
//
// Propose applies the hard rules of the four buckets:
//
//   - code bug: the result's unified diff is applied to the file as it is at
//     the investigated ref (read through the Contents API) by a strict
//     applier (ApplyHunks: context must match, offsets tolerated like GNU
//     patch, fuzz 0). Only a clean apply yields an eligible proposal; the
//     reason otherwise names the hunk ("Patch does not apply cleanly to
//     src/x.js at main: hunk 1 (@@ -55,7 +55,9 @@) does not match anywhere:
//     ...").
//   - infrastructure: a surgical edit of one YAML value (EditYAML): the
//     scalar at ManifestEdit.File:Line is located with yaml.v3 nodes and its
//     bytes are spliced, so comments, order, quoting, indentation, anchors and
//     line endings are untouched; the file is re-parsed to prove that only
//     that value changed.
//   - bad data and flakes: never a pull request; the proposal carries a
//     Markdown report (IssueReport) for an optional "Create issue" action.
//
// A Proposal is plain JSON-serializable data: the bot keeps it with the
// thread, shows Diff (ViewPatch) and, when Ineligible is set, shows that
// reason instead of the Approve button.
//
// # The pull-request flow
//
// Approve checks that the clicker is an approver (AUTOHEAL_APPROVERS: user
// ids and user group ids; refusals are audited on the approval record),
// takes the approval record in Redis (sessions.Store: one click or replica
// at a time) and runs idempotent steps, each safe to repeat after a crash or
// a failure:
//
//  1. look up an open pull request whose head is the branch
//     autoheal/<issue-key-slug> (it exists: make sure it carries the change
//     and finish);
//  2. re-validate the proposal against the base branch head (re-apply the
//     change when the base moved, refuse clearly when it no longer applies);
//  3. under a Redis lock per fix hash (the repository, and each file's path
//     with the lines the change removes and adds), look for another issue
//     key's open pull request carrying the same change (its body's
//     <!-- autoheal:fix=... --> marker, and exactly the approved content at
//     its head): when there is one, comment on it and link it instead of
//     opening a duplicate (Outcome.SameFix);
//  4. create one commit (blobs, a tree on the base tree, the commit) and only
//     then the branch pointing at it; a branch that already exists is reused
//     when its tree carries the change, fast-forwarded with one commit
//     otherwise; "Reference already exists" means another attempt won;
//  5. open the pull request (its body: diagnosis, evidence, confidence, the
//     change, the regression test, the thread link and the hidden
//     <!-- autoheal:issue-key=... --> and fix markers); "already exists"
//     returns it.
//
// Every text published (title, body, commit message, comments, branch name)
// passes the redactor and a final scan that refuses to publish anything
// still holding a secret; committed lines may not add a registered secret
// or a token. A failure leaves the record failed with a human message
// ("GitHub refused to create the branch: the token lacks contents:write
// (403).", "GitHub rate limit reached ...; retry after 14:05 UTC.") and the
// next click resumes.
//
// Refire converges the open pull request of a re-fired issue key. Without a
// new investigation for the fire (Reinvestigated false, e.g. within the
// cooldown) it only comments that the incident fired again and that
// nothing new was investigated. With one: a comment
// when the new proposal yields the content the PR already has, exactly one
// incremental commit when the fix differs (a comment with the suggestion
// instead when people pushed their own commits), nothing without an open
// PR. It never opens a second pull request.
//
// # Using it from the bot
//
//	svc, _ := remediate.New(remediate.Options{
//		GitHub:    remediate.GitHubOptions{APIURL: os.Getenv("GITHUB_API_URL"), Token: os.Getenv("GITHUB_TOKEN")},
//		Store:     store, // *sessions.Store
//		Approvers: approvers, // remediate.ParseApprovers(os.Getenv(remediate.ApproversEnv))
//		Groups:    slackGroups, // usergroups.users.list, cached
//	})
//	prop, err := svc.Propose(ctx, result)          // after the investigation; keep prop with the thread
//	out, err := svc.Approve(ctx, remediate.ApproveRequest{IssueKey: key, User: userID, Result: result, Proposal: prop, ThreadURL: link})
//	out, err := svc.Reject(ctx, key, userID, reason)
//	text := svc.ViewPatch(prop)
//	out, err := svc.Refire(ctx, remediate.RefireRequest{IssueKey: key, Result: newResult, Reinvestigated: true, ThreadURL: link, FireCount: n})
//	title, body := svc.IssueReport(result); out, err := svc.CreateIssue(ctx, remediate.IssueRequest{...})
//
// Post out.Message in the thread and out.Ephemeral to the clicking user
// only; both are redacted already.
package remediate
