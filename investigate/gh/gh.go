// Package gh holds the GitHub-backed capabilities (go-github v62): changes
// (recent commits touching a service or a file, with their diffs) and source
// (a window of lines around an anchored file:line through the Contents API,
// a file-name lookup that maps stack frames to repository paths, and the
// deployment manifests of a service). It never searches file contents
// repository-wide.
package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
)

// Config configures the GitHub capabilities.
type Config struct {
	APIURL  string // default https://api.github.com/ ; GitHub Enterprise: https://HOST/api/v3/
	Token   string
	Repo    string // owner/name
	Ref     string // default: the repository's default branch
	Timeout time.Duration
	MaxBody int64
	// Guard checks the addresses dialled for a user-supplied URL (nil:
	// an operator's URL, unrestricted).
	Guard *httpc.Guard
}

// NewClient builds a go-github client for an API URL and token with a
// bounded, retrying transport that follows redirects only within the host;
// guard, when set, checks the addresses dialled (a user-supplied URL).
func NewClient(apiURL, token string, maxBody int64, guard *httpc.Guard) (*github.Client, error) {
	var base http.RoundTripper
	if guard != nil {
		base = guard.Transport()
	}
	hc := &http.Client{Transport: httpc.NewTransport(httpc.TransportOptions{Base: base, MaxBody: maxBody}), CheckRedirect: httpc.SameHostRedirects}
	c := github.NewClient(hc)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	if strings.TrimSpace(apiURL) != "" {
		u, err := url.Parse(strings.TrimSpace(apiURL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("github_api_url %q must be an absolute http(s) URL", httpc.SafeURL(apiURL))
		}
		u.User = nil
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		c.BaseURL = u
	}
	return c, nil
}

// repo is the shared state of both capabilities for one investigation:
// client, repository coordinates and a cached tree listing.
type repo struct {
	cfg         Config
	client      *github.Client
	owner, name string
	err         error

	mu      sync.Mutex
	ref     string
	tree    []string
	treeErr error
}

func newRepo(cfg Config) *repo {
	r := &repo{cfg: cfg}
	if cfg.Timeout <= 0 {
		r.cfg.Timeout = 10 * time.Second
	}
	if strings.TrimSpace(cfg.Repo) == "" {
		return r
	}
	parts := strings.Split(strings.TrimSpace(cfg.Repo), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		r.err = fmt.Errorf("repo %q must be owner/name", cfg.Repo)
		return r
	}
	r.owner, r.name = parts[0], parts[1]
	r.client, r.err = NewClient(cfg.APIURL, cfg.Token, cfg.MaxBody, cfg.Guard)
	return r
}

func (r *repo) availability(family investigate.Family) investigate.Availability {
	switch {
	case strings.TrimSpace(r.cfg.Repo) == "":
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: "repo is not set (owner/name)"}
	case r.err != nil:
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: r.err.Error()}
	}
	return investigate.Availability{Configured: true}
}

// New returns the changes and source capabilities over one repository.
func New(cfg Config) (*Changes, *Source) {
	r := newRepo(cfg)
	return &Changes{r: r}, &Source{r: r}
}

func (r *repo) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.cfg.Timeout)
}

// resolveRef returns the configured ref or the default branch.
func (r *repo) resolveRef(ctx context.Context) (string, error) {
	r.mu.Lock()
	ref := r.ref
	r.mu.Unlock()
	if ref != "" {
		return ref, nil
	}
	if r.cfg.Ref != "" {
		ref = r.cfg.Ref
	} else {
		cctx, cancel := r.call(ctx)
		defer cancel()
		repo, _, err := r.client.Repositories.Get(cctx, r.owner, r.name)
		if err != nil {
			return "", classify(ctx, "get repository", err)
		}
		ref = repo.GetDefaultBranch()
	}
	r.mu.Lock()
	r.ref = ref
	r.mu.Unlock()
	return ref, nil
}

// paths lists the repository's files at the ref once per investigation.
func (r *repo) paths(ctx context.Context) ([]string, error) {
	r.mu.Lock()
	tree, terr := r.tree, r.treeErr
	r.mu.Unlock()
	if tree != nil || terr != nil {
		return tree, terr
	}
	ref, err := r.resolveRef(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := r.call(ctx)
	defer cancel()
	t, _, err := r.client.Git.GetTree(cctx, r.owner, r.name, ref, true)
	var out []string
	if err == nil {
		for _, e := range t.Entries {
			if e.GetType() == "blob" {
				out = append(out, e.GetPath())
			}
		}
		if out == nil {
			out = []string{}
		}
	} else {
		err = classify(ctx, "list repository tree", err)
	}
	r.mu.Lock()
	r.tree, r.treeErr = out, err
	r.mu.Unlock()
	return out, err
}

// read fetches one file's content at the ref.
func (r *repo) read(ctx context.Context, p string) (string, error) {
	ref, err := r.resolveRef(ctx)
	if err != nil {
		return "", err
	}
	cctx, cancel := r.call(ctx)
	defer cancel()
	fc, _, _, err := r.client.Repositories.GetContents(cctx, r.owner, r.name, p, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return "", classify(ctx, "read "+p, err)
	}
	if fc == nil {
		return "", investigate.NewToolError(investigate.ErrKindInvalidArgs, p+" is a directory", nil)
	}
	content, err := fc.GetContent()
	if err != nil {
		return "", investigate.NewToolError(investigate.ErrKindBadResponse, "decode "+p, err)
	}
	return content, nil
}

// classify maps go-github errors onto tool error kinds.
func classify(ctx context.Context, what string, err error) error {
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var er *github.ErrorResponse
	var tl *httpc.ErrBodyTooLarge
	switch {
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return investigate.NewToolError(investigate.ErrKindTimeout, what+": no answer in time", nil)
	case errors.As(err, &rl):
		return investigate.NewToolError(investigate.ErrKindRateLimited, fmt.Sprintf("%s: GitHub rate limit exhausted until %s", what, rl.Rate.Reset.Format(time.RFC3339)), nil)
	case errors.As(err, &ab):
		return investigate.NewToolError(investigate.ErrKindRateLimited, what+": GitHub secondary rate limit", nil)
	case errors.As(err, &tl):
		return investigate.NewToolError(investigate.ErrKindTooLarge, what+": "+tl.Error(), nil)
	case errors.As(err, &er):
		code := 0
		if er.Response != nil {
			code = er.Response.StatusCode
		}
		// GitHub's message is response text: it stays out of receipts.
		msg := fmt.Sprintf("%s: HTTP %d", what, code)
		switch {
		case code == http.StatusUnauthorized:
			return investigate.NewToolError(investigate.ErrKindUnauthorized, msg, nil)
		case code == http.StatusForbidden:
			return investigate.NewToolError(investigate.ErrKindForbidden, msg, nil)
		case code == http.StatusNotFound:
			return investigate.NewToolError(investigate.ErrKindNotFound, msg, nil)
		case code >= 500:
			return investigate.NewToolError(investigate.ErrKindServer, msg, nil)
		}
		return investigate.NewToolError(investigate.ErrKindBadResponse, msg, nil)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		if uerr.Timeout() {
			return investigate.NewToolError(investigate.ErrKindTimeout, what+": no answer in time", nil)
		}
		return investigate.NewToolError(investigate.ErrKindUnreachable, fmt.Sprintf("%s: %v", what, uerr.Err), nil)
	}
	return investigate.NewToolError(investigate.ErrKindBadResponse, what, err)
}
