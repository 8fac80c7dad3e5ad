package bot

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate/httpc"
	"github.com/autoheal/autoheal/sessions"
)

// PRStateReader reads what became of a pull request: "open", "merged" or
// "closed". A Remediator that also implements it (RemediatorFromService
// does, through remediate's GitHub client) has the pull requests of
// recalled incidents refreshed, so that "Seen before" says whether the
// earlier fix was merged.
type PRStateReader interface {
	PRState(ctx context.Context, repo string, number int, settings config.Settings, guard *httpc.Guard) (string, error)
}

func (r serviceRemediator) PRState(ctx context.Context, repo string, number int, settings config.Settings, guard *httpc.Guard) (string, error) {
	return r.s.PRState(ctx, repo, number, credentials(settings, guard))
}

// Bounds of the refresh: the whole recall waits at most prRefreshBudget for
// GitHub; a state read is reused for prStateTTL (a merged pull request
// stays merged: prMergedTTL); the cache holds at most prStateCacheSize.
const (
	prRefreshBudget  = 5 * time.Second
	prStateTTL       = 10 * time.Minute
	prMergedTTL      = 24 * time.Hour
	prStateCacheSize = 1000
)

// prStateCache remembers pull request states read from GitHub.
type prStateCache struct {
	mu      sync.Mutex
	entries map[string]prStateEntry
}

type prStateEntry struct {
	state string
	until time.Time
}

func (c *prStateCache) get(key string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.After(e.until) {
		return "", false
	}
	return e.state, true
}

func (c *prStateCache) put(key, state string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]prStateEntry{}
	}
	if len(c.entries) >= prStateCacheSize {
		// Expired entries go first; if none, the one that expires soonest.
		oldest, first := "", true
		for k, e := range c.entries {
			if now.After(e.until) {
				delete(c.entries, k)
				continue
			}
			if first || e.until.Before(c.entries[oldest].until) {
				oldest, first = k, false
			}
		}
		if len(c.entries) >= prStateCacheSize {
			delete(c.entries, oldest)
		}
	}
	ttl := prStateTTL
	if state == "merged" {
		ttl = prMergedTTL
	}
	c.entries[key] = prStateEntry{state: state, until: now.Add(ttl)}
}

// prOfURL reads owner/name and the number from a pull request's web URL
// (https://github.com/acme/shop/pull/41, or a GitHub Enterprise host).
func prOfURL(raw string) (repo string, number int, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", 0, false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 4 || parts[2] != "pull" || parts[0] == "" || parts[1] == "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return parts[0] + "/" + parts[1], n, true
}

// refreshPRStates reads again from GitHub the state of the pull requests
// of recalled incidents (at most the ones shown), through the thread's
// GitHub settings, and keeps what changed in the memory. Bounded in time,
// cached, and never fatal: a state that cannot be read stays as it was.
func (b *Bot) refreshPRStates(ctx context.Context, recs []sessions.MemoryRecord, cfg config.Settings, log *slog.Logger) {
	reader, ok := b.o.Remediator.(PRStateReader)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, prRefreshBudget)
	defer cancel()
	for i := range recs {
		r := &recs[i]
		if r.PRURL == "" {
			continue
		}
		repo, number, ok := prOfURL(r.PRURL)
		if !ok || (r.PRNumber > 0 && r.PRNumber != number) || !repoAllowed(b.o.AllowedRepos, repo) {
			continue
		}
		key := strings.ToLower(repo) + "#" + strconv.Itoa(number)
		state, cached := b.prStates.get(key, b.o.Clock.Now())
		if !cached {
			if ctx.Err() != nil {
				log.Warn("pull request state not refreshed: out of time", "pr", r.PRURL)
				continue
			}
			st, err := reader.PRState(ctx, repo, number, cfg, b.guard)
			if err != nil {
				log.Warn("pull request state not refreshed", "pr", r.PRURL, "err", b.o.Redactor.String(err.Error()))
				continue
			}
			state = st
			b.prStates.put(key, state, b.o.Clock.Now())
		}
		if state == "" || state == r.PRState {
			continue
		}
		r.PRState = state
		if err := b.o.Store.Amend(ctx, r.ID, func(m *sessions.MemoryRecord) { m.PRState = state }); err != nil {
			log.Warn("pull request state not remembered", "pr", r.PRURL, "err", err)
		}
	}
}
