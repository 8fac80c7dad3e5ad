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
// ids and user group ids; refusals are audited), takes the approval record
// in Redis for the clicked proposal (sessions.Store: one click or replica at
// a time; a proposal is decided once, a later proposal of the same issue
// key may be decided again) and runs idempotent steps, each safe to repeat
// after a crash or a failure:
//
//  1. find the issue key's pull request (currentPR): the open one of the
//     branch autoheal/<issue-key-slug>, or, when that one was merged or
//     closed, of the branch that follows it (autoheal/<slug>-after-<N>);
//  2. an open one is updated (updatePR): the change is applied to the files
//     as they are at its head (reviewers' commits kept; a change to the lines
//     AutoHeal's own earlier commit changed replaces that change only when
//     every commit on the branch is AutoHeal's) and pushed as one
//     fast-forward commit, and the title and body are rewritten for the new
//     root cause; a pull request that already carries the proposal (its
//     <!-- autoheal:proposal=... --> marker) is left as it is;
//  3. otherwise the proposal is re-validated against the base branch head
//     (re-applied when the base moved, refused clearly when it no longer
//     applies or is already there);
//  4. under a Redis lock per fix hash (the repository, and each file's path
//     with the lines the change removes and adds), look for another issue
//     key's open pull request carrying the same change (its body's
//     <!-- autoheal:fix=... --> marker, and exactly the approved content at
//     its head): when there is one, comment on it and link it instead of
//     opening a duplicate (Outcome.SameFix);
//  5. create one commit (blobs, a tree on the base tree, the commit) and only
//     then the branch pointing at it; a branch that already exists is reused
//     when its tree carries the change, fast-forwarded with one commit
//     otherwise; "Reference already exists" means another attempt won;
//  6. open the pull request (its body: diagnosis, evidence, confidence, the
//     change, the regression test, the pull request it follows, the thread
//     link and the hidden issue-key, proposal and fix markers); "already
//     exists" returns it.
//
// Every text published (title, body, commit message, comments, branch name)
// passes the redactor and a final scan that refuses to publish anything
// still holding a secret; committed lines may not add a registered secret
// or a token. A failure leaves the record failed with a human message
// ("GitHub refused to create the branch: the token lacks contents:write
// (403).", "GitHub rate limit reached ...; retry after 14:05 UTC.") and the
// next click resumes. Completions, failures and rejections are recorded in
// the audit log by the store; Outcome.Audit says which.
//
// Standing and Refire never write code. Standing (before a result is shown)
// says whether the key's open pull request already carries the result's
// change, whether the change would update it, or whether the key's pull
// request was merged or closed. Refire comments on the open pull request
// when the incident fired again without a new investigation, or with one
// that proposes the same change (or none); a different change is only
// offered in the thread (StatusUpdateOffered), and a merged or closed pull
// request gets nothing (StatusPRClosed). It never opens a pull request.
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
//	st, err := svc.Standing(ctx, key, result, nil)      // before showing it: Approve, "Update pull request #N", or no button
//	out, err := svc.Approve(ctx, remediate.ApproveRequest{IssueKey: key, User: userID, ProposalID: jobID, Result: result, Proposal: prop, ThreadURL: link})
//	out, err := svc.Reject(ctx, remediate.RejectRequest{IssueKey: key, User: userID, ProposalID: jobID, Reason: reason})
//	text := svc.ViewPatch(prop)
//	out, err := svc.Refire(ctx, remediate.RefireRequest{IssueKey: key, Result: newResult, Reinvestigated: true, ThreadURL: link, FireCount: n})
//	title, body := svc.IssueReport(result); out, err := svc.CreateIssue(ctx, remediate.IssueRequest{...})
//
// Post out.Message in the thread and out.Ephemeral to the clicking user
// only; both are redacted already.
package remediate
