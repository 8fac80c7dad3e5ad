package remediate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/sessions"
)

// Two incidents (two issue keys, two threads) can lead to the same change:
// one alert on the checkout error rate and one on payment's exceptions, both
// fixed by guarding the same line. The second approval then links the pull
// request the first one opened, instead of opening a duplicate.
//
// A change is named by its fix hash: the repository, and per file its path
// and the lines the change removes and adds (positions left out, so that an
// unrelated move elsewhere in the file does not hide a duplicate). Pull
// requests carry the hash in a hidden marker in their body; an open
// AutoHeal pull request with the same marker whose head still has exactly
// the approved content is the same fix. Replicas serialize the look-up and
// the opening per fix hash with a Redis lock (FixLocker), so two approvals
// racing on two keys open one pull request.

const (
	fixMarkerPrefix = "<!-- autoheal:fix="
	fixMarkerSuffix = " -->"
	// maxOpenPRPages bounds the listing of open pull requests (100 each).
	maxOpenPRPages = 3
	fixLockTTL     = 2 * time.Minute
	fixLockWait    = 30 * time.Second
)

// FixLocker serializes the duplicate check and the opening of one fix
// across replicas; *sessions.Store implements it. Without one (a store
// that does not lock), duplicates are still found, but two approvals at the
// same instant may both open a pull request.
type FixLocker interface {
	Lock(ctx context.Context, name string, ttl time.Duration) (*sessions.Lock, error)
}

// fixHash names the change files make to orig in repo.
func fixHash(repo string, files []FileChange, orig map[string][]byte) string {
	fs := append([]FileChange(nil), files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	h := sha256.New()
	fmt.Fprintf(h, "repo %s\n", strings.ToLower(repo))
	for _, f := range fs {
		fmt.Fprintf(h, "file %s\n", f.Path)
		for _, l := range strings.Split(UnifiedDiff(f.Path, orig[f.Path], f.Content), "\n") {
			if strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ") {
				continue
			}
			if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
				h.Write([]byte(l))
				h.Write([]byte{'\n'})
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// FixMarker is the hidden HTML comment naming a fix hash in a PR body.
func FixMarker(hash string) string { return fixMarkerPrefix + hash + fixMarkerSuffix }

// markedIssueKey reads the issue key from a body's marker ("" when none).
func markedIssueKey(body string) string {
	i := strings.LastIndex(body, markerPrefix)
	if i < 0 {
		return ""
	}
	rest := body[i+len(markerPrefix):]
	j := strings.Index(rest, markerSuffix)
	if j < 0 {
		return ""
	}
	k, err := url.QueryUnescape(rest[:j])
	if err != nil {
		return ""
	}
	return k
}

// fixLock is a held per-fix lock.
type fixLock struct {
	lock *sessions.Lock
	ttl  time.Duration
}

// release lets the next approval of the fix go.
func (f fixLock) release(ctx context.Context) {
	if f.lock != nil {
		_ = f.lock.Unlock(context.WithoutCancel(ctx))
	}
}

// renew keeps the lock while the steps of the flow go on.
func (f fixLock) renew(ctx context.Context) {
	if f.lock != nil {
		_ = f.lock.Extend(ctx, f.ttl)
	}
}

// leaseStore is a store that says how long an approval's lease lasts
// (*sessions.Store).
type leaseStore interface {
	ApprovalLease() time.Duration
}

// fixLockTTLFor is how long a crashed approval's fix lock blocks the
// others: fixLockTTL, or the store's approval lease when shorter, so that
// the replica resuming the approval when its lease runs out finds the lock
// free (the flow renews it at every step).
func fixLockTTLFor(store ApprovalStore) time.Duration {
	if l, ok := store.(leaseStore); ok {
		if d := l.ApprovalLease(); d > 0 && d < fixLockTTL {
			return d
		}
	}
	return fixLockTTL
}

// lockFix takes the per-fix lock, waiting for another replica that holds
// it. It returns a lock that does nothing when the store cannot lock.
func (s *Service) lockFix(ctx context.Context, repo, hash string) (fixLock, error) {
	l, ok := s.store.(FixLocker)
	if !ok {
		return fixLock{}, nil
	}
	name := "remediate-fix:" + strings.ToLower(repo) + ":" + hash
	ttl := fixLockTTLFor(s.store)
	deadline := time.Now().Add(fixLockWait)
	for {
		lock, err := l.Lock(ctx, name, ttl)
		if err == nil {
			return fixLock{lock: lock, ttl: ttl}, nil
		}
		if !errors.Is(err, sessions.ErrLocked) {
			return fixLock{}, &flowError{msg: "Could not check for an open pull request with the same change (state store unavailable); try again.", err: err, retryable: true}
		}
		if time.Now().After(deadline) {
			return fixLock{}, &flowError{msg: "Another approval of the same change is still opening its pull request; try again in a minute.", err: err, retryable: true}
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fixLock{}, ctx.Err()
		case <-t.C:
		}
	}
}

// findSameFix returns an open AutoHeal pull request (on another branch
// than own) that carries the fix hash and exactly files at its head.
func (s *Service) findSameFix(ctx context.Context, rc *repoClient, own, hash string, files []FileChange) (*github.PullRequest, error) {
	marker := FixMarker(hash)
	opts := &github.PullRequestListOptions{State: "open", Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxOpenPRPages; page++ {
		cctx, cancel := rc.call(ctx)
		prs, resp, err := rc.c.PullRequests.List(cctx, rc.owner, rc.name, opts)
		cancel()
		if err != nil {
			return nil, classify(opFindPR, err)
		}
		for _, pr := range prs {
			head := pr.GetHead().GetRef()
			if pr.GetState() != "open" || head == own || !strings.HasPrefix(head, s.opts.BranchPrefix) || !strings.Contains(pr.GetBody(), marker) {
				continue
			}
			same, err := rc.hasFiles(ctx, pr.GetHead().GetSHA(), files)
			if err != nil {
				return nil, err
			}
			if same {
				return pr, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return nil, nil
}

// sameFixComment tells the reviewers of an open pull request that another
// incident was approved with the same change.
func sameFixComment(c prContext, red *redact.Redactor) string {
	r := func(s string) string { return red.String(s) }
	var b strings.Builder
	b.WriteString("🔗 Another incident led to the same change")
	if c.IssueKey != "" {
		fmt.Fprintf(&b, " (issue key %s)", inlineCode(r(c.IssueKey)))
	}
	if c.ApprovedBy != "" {
		fmt.Fprintf(&b, ", approved by Slack user %s", inlineCode(r(c.ApprovedBy)))
	}
	b.WriteString(". It is linked to this pull request instead of opening a duplicate.\n\n")
	if c.ThreadURL != "" {
		fmt.Fprintf(&b, "Slack thread: %s\n", r(c.ThreadURL))
	}
	b.WriteString(Marker(r(c.IssueKey)) + "\n")
	return clipBody(b.String(), c.IssueKey, red)
}
