package gh

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// Locating the fields Kubernetes analyzers name (source_manifests with
// targets): the repository that deploys the workload is read (the GitOps
// target's, when it is on the configured GitHub and readable; else the
// configured repository, with a note), and each field is mapped onto the
// line that produces it (investigate.Locator: plain manifests, Kustomize,
// Helm values).

// fieldTarget is one field to locate, with the workload it breaks.
type fieldTarget struct {
	investigate.FieldRef
	Service string `json:"service"`
}

// maxTargets bounds the fields located in one call.
const maxTargets = 8

// standardTargets are the fields of a service's workload that pod states
// put at fault (an image that cannot be pulled, a memory limit that kills,
// a probe on the wrong port), for the workload and container named like
// the service.
func standardTargets(service string) []fieldTarget {
	c := "spec.template.spec.containers[" + service + "]."
	var out []fieldTarget
	for _, f := range []string{"image", "resources.limits.memory", "livenessProbe.httpGet.port", "readinessProbe.httpGet.port"} {
		out = append(out, fieldTarget{FieldRef: investigate.FieldRef{Kind: "Deployment", Name: service, Field: c + f}, Service: service})
	}
	return out
}

// repoFiles adapts a repository to investigate.RepoFiles for one call.
type repoFiles struct {
	ctx   context.Context
	r     *repo
	paths []string
}

func (f repoFiles) Paths() []string { return f.paths }

func (f repoFiles) Read(p string) ([]byte, error) {
	s, err := f.r.read(f.ctx, p)
	return []byte(s), err
}

// deployRepo chooses the repository to read for a deploy target.
func (s *Source) deployRepo(ctx context.Context, d investigate.DeployTarget) (*repo, investigate.DeployTarget) {
	used := d
	used.Repo = s.r.cfg.Repo
	if d.Repo == "" || strings.EqualFold(d.Repo, s.r.cfg.Repo) {
		if d.Source == "" {
			used.Source = "configured"
		}
		return s.r, used
	}
	if owner, _, _ := strings.Cut(d.Repo, "/"); !strings.EqualFold(owner, s.r.owner) {
		// A cluster object names the repository: the deployment's
		// credentials read only repositories of the configured owner.
		used.Note = joinNote(d.Note, fmt.Sprintf("the deploying repository %s is not under %s, the configured repository's owner; %s was searched instead", d.Repo, s.r.owner, s.r.cfg.Repo))
		return s.r, used
	}
	if host := gitHost(d.RepoURL); host != "" && !sameGitHub(host, s.r.cfg.APIURL) {
		used.Note = joinNote(d.Note, fmt.Sprintf("the deploying repository %s is on %s, not on the configured GitHub; the configured repository %s was searched instead", d.Repo, host, s.r.cfg.Repo))
		return s.r, used
	}
	cfg := s.r.cfg
	cfg.Repo, cfg.Ref = d.Repo, d.Ref
	other := newRepo(cfg)
	if other.err == nil {
		if _, err := other.paths(ctx); err == nil {
			used.Repo, used.Ref = d.Repo, other.ref
			return other, used
		} else {
			used.Note = joinNote(d.Note, fmt.Sprintf("the deploying repository %s could not be read (%s); the configured repository %s was searched instead", d.Repo, investigate.KindOf(err), s.r.cfg.Repo))
		}
	}
	return s.r, used
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// gitHost is the host of a Git URL (https, ssh or scp-like).
func gitHost(u string) string {
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "git@") {
		h, _, _ := strings.Cut(strings.TrimPrefix(u, "git@"), ":")
		return strings.ToLower(h)
	}
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.ToLower(pu.Hostname())
}

// sameGitHub reports whether a Git host is the one the API URL serves
// (github.com for api.github.com, the host itself for GitHub Enterprise).
func sameGitHub(host, apiURL string) bool {
	api := "api.github.com"
	if apiURL != "" {
		if pu, err := url.Parse(apiURL); err == nil && pu.Hostname() != "" {
			api = strings.ToLower(pu.Hostname())
		}
	}
	return api == host || api == "api."+host
}

// locate maps each target onto the repository.
func (s *Source) locate(ctx context.Context, targets []fieldTarget, deploy investigate.DeployTarget) ([]investigate.Finding, map[string]any, error) {
	r, used := s.deployRepo(ctx, deploy)
	paths, err := r.paths(ctx)
	if err != nil {
		return nil, nil, err
	}
	loc := investigate.NewLocator(repoFiles{ctx: ctx, r: r, paths: paths}, deploy)
	var findings []investigate.Finding
	var views []map[string]any
	for _, t := range targets {
		l, ok := loc.Locate(t.FieldRef)
		if !ok {
			continue
		}
		view := map[string]any{"object": t.Object(), "field": t.Field}
		at := map[string]string{"field": investigate.FieldK8sRef, "path": l.Path, "value": l.Value, "mapped_by": l.How, "exact": fmt.Sprint(l.Exact)}
		if l.Missing != "" {
			at["missing"] = l.Missing
		}
		t.FieldRef.SetAttrs(at)
		used.SetAttrs(at)
		q := fmt.Sprintf("%s %s is set at %s = %s", t.Object(), t.Field, l.Path, l.Value)
		if !l.Exact {
			q = fmt.Sprintf("%s %s is not set; it belongs under %s", t.Object(), t.Field, l.Path)
		}
		findings = append(findings, investigate.Finding{Kind: investigate.KindManifest, Family: investigate.FamilySource, Service: t.Service,
			File: l.File, Line: l.Line, Count: 1, Quote: investigate.Quote(q, 240), Attrs: at})
		view["at"], view["exact"] = fmt.Sprintf("%s:%d", l.File, l.Line), l.Exact
		views = append(views, view)
	}
	data := map[string]any{"repo": used.Repo, "fields": views}
	if used.Note != "" {
		data["note"] = used.Note
	}
	return findings, data, nil
}
