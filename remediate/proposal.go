package remediate

import (
	"context"
	"crypto/sha1" //nolint:gosec // git object ids are SHA-1 by definition
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// Kind is what a proposal changes.
type Kind string

// Proposal kinds.
const (
	KindCodePatch    Kind = "code_patch"
	KindManifestEdit Kind = "manifest_edit"
	KindNone         Kind = "none"
)

// Ineligibility reasons that do not depend on the result's details.
const (
	ReasonNoRepo     = "No repository is configured (set repo: owner/name), so no pull request can be opened."
	ReasonFlake      = "Flakes get a report, not a PR."
	ReasonBadData    = "Bad data gets a remediation report, not a PR: the code is right, the records are wrong."
	ReasonUnknown    = "The root cause is not classified, so nothing is proposed for the repository."
	ReasonNilResult  = "There is no investigation result to propose a fix for."
	ReasonNeedsHuman = "Another explanation is as well supported by the evidence; a person decides before anything is proposed for the repository."
	maxFileBytes     = 1 << 20
	maxTitleRunes    = 120
	maxProposalFiles = 1
)

// ErrFileNotFound is returned by a RepoReader for a path missing at a ref.
var ErrFileNotFound = errors.New("file not found")

// RepoReader reads a file of a repository at a ref (branch, tag or commit;
// "" is the default branch). It returns an error wrapping ErrFileNotFound
// when the path does not exist there.
type RepoReader interface {
	ReadFile(ctx context.Context, repo, ref, path string) ([]byte, error)
}

// FileChange is one file of a proposal: its full new content and the git
// blob id of the content it was computed from.
type FileChange struct {
	Path    string `json:"path"`
	BaseSHA string `json:"base_sha"` // git blob id of the original content
	Content []byte `json:"content"`  // full new content
}

// Proposal is what AutoHeal offers to change in a repository for one
// result. It is plain data (JSON-serializable) so the bot can keep it with
// the thread until a click arrives.
type Proposal struct {
	Kind     Kind   `json:"kind"`
	IssueKey string `json:"issue_key,omitempty"`
	Repo     string `json:"repo,omitempty"` // owner/name
	Ref      string `json:"ref,omitempty"`  // the investigated ref the files were read at ("" = default branch)
	Title    string `json:"title,omitempty"`
	// Files hold the full new contents; Diff is the unified diff to show.
	Files []FileChange `json:"files,omitempty"`
	Diff  string       `json:"diff,omitempty"`
	// SourceDiff (code patches) or Edit (manifest edits) is the recipe the
	// files were computed with, re-applied when the base moved before approval.
	SourceDiff     string                    `json:"source_diff,omitempty"`
	Edit           *investigate.ManifestEdit `json:"edit,omitempty"`
	Explanation    string                    `json:"explanation,omitempty"`
	RegressionTest string                    `json:"regression_test,omitempty"`
	// Ineligible says why no pull request can be offered; the bot shows it
	// instead of the Approve button. Empty when a PR can be offered.
	Ineligible string `json:"ineligible,omitempty"`
	// Report is a Markdown remediation/flake report (bad data, flakes),
	// usable as a GitHub issue body; ReportTitle its title.
	ReportTitle string   `json:"report_title,omitempty"`
	Report      string   `json:"report,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// Eligible reports whether a pull request can be offered.
func (p *Proposal) Eligible() bool {
	return p != nil && p.Ineligible == "" && p.Kind != KindNone && len(p.Files) > 0
}

// ProposeOptions tune Propose.
type ProposeOptions struct {
	// Repo and Ref are used when the result names none.
	Repo, Ref string
	// MaxFileBytes bounds the files read (default 1 MiB).
	MaxFileBytes int
}

// Propose decides what may be proposed for a result, by bucket: a code bug
// gets its unified diff applied (fuzz 0) to the file as it is at the
// investigated ref, infrastructure gets a surgical edit of one YAML value,
// bad data and flakes get a report and never a pull request. A proposal that
// cannot be offered carries the reason in Ineligible; err is only for
// failures to read the repository (GitHub down, forbidden), worth a retry.
func Propose(ctx context.Context, res *investigate.HealResult, rr RepoReader, opts ProposeOptions) (*Proposal, error) {
	if res == nil {
		return &Proposal{Kind: KindNone, Ineligible: ReasonNilResult}, nil
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = maxFileBytes
	}
	p := &Proposal{Kind: KindNone, IssueKey: res.IssueKey, Repo: firstNonEmpty(res.Repo, opts.Repo), Ref: firstNonEmpty(res.Ref, opts.Ref)}
	fix := res.Fix
	if res.Contested() {
		p.Ineligible = ReasonNeedsHuman
		return p, nil
	}
	switch res.RootCause.Bucket {
	case investigate.BucketFlake:
		p.Ineligible = ReasonFlake
		p.ReportTitle, p.Report = IssueReport(res)
		return p, nil
	case investigate.BucketBadData:
		p.Ineligible = ReasonBadData
		p.ReportTitle, p.Report = IssueReport(res)
		return p, nil
	case investigate.BucketCodeBug:
		if fix.Patch == nil || strings.TrimSpace(fix.Patch.Diff) == "" {
			p.Ineligible = "No mechanical patch was produced for this code bug; apply the fix described above by hand."
			if fix.ManifestEdit != nil {
				p.Ineligible = "A code bug gets a code patch, never a manifest edit, and no patch was produced."
			}
			return p, nil
		}
		p.Kind = KindCodePatch
	case investigate.BucketInfrastructure:
		if fix.ManifestEdit == nil {
			p.Ineligible = "No manifest change was proposed for this infrastructure cause; it needs an operator action."
			if fix.Patch != nil {
				p.Ineligible = "Infrastructure gets a manifest or configuration edit, never a code patch, and no edit was proposed."
			}
			return p, nil
		}
		p.Kind = KindManifestEdit
	default:
		p.Ineligible = ReasonUnknown
		return p, nil
	}
	if p.Repo == "" {
		p.Kind, p.Ineligible = KindNone, ReasonNoRepo
		return p, nil
	}
	if _, _, err := splitRepo(p.Repo); err != nil {
		p.Kind, p.Ineligible = KindNone, fmt.Sprintf("The repository %q is not owner/name, so no pull request can be opened.", p.Repo)
		return p, nil
	}
	if rr == nil {
		return nil, errors.New("remediate: propose: no repository reader")
	}
	var err error
	switch p.Kind {
	case KindCodePatch:
		err = proposeCode(ctx, p, res, rr, opts)
	case KindManifestEdit:
		err = proposeManifest(ctx, p, res, rr, opts)
	}
	if err != nil {
		return nil, err
	}
	if p.Ineligible != "" {
		p.Kind, p.Files, p.Diff = KindNone, nil, ""
	}
	return p, nil
}

func proposeCode(ctx context.Context, p *Proposal, res *investigate.HealResult, rr RepoReader, opts ProposeOptions) error {
	patch := res.Fix.Patch
	if patch.Ref != "" {
		p.Ref = patch.Ref
	}
	p.SourceDiff = patch.Diff
	p.Explanation = patch.Explanation
	p.RegressionTest = res.Fix.RegressionTest
	files, err := ParseUnifiedDiff(patch.Diff)
	if err != nil {
		p.Ineligible = fmt.Sprintf("The suggested patch is not a valid unified diff: %v.", trimErr(err))
		return nil
	}
	if len(files) > maxProposalFiles {
		p.Ineligible = fmt.Sprintf("The suggested patch changes %d files; AutoHeal opens pull requests for one file.", len(files))
		return nil
	}
	file := cleanRepoPath(firstNonEmpty(patch.File, files[0].Path()))
	if file == "" {
		p.Ineligible = "The suggested patch does not name a file."
		return nil
	}
	if named := cleanRepoPath(files[0].Path()); named != "" && named != file {
		p.Ineligible = fmt.Sprintf("The suggested patch is for %s but names %s in its headers.", file, named)
		return nil
	}
	if investigate.IsManifestPath(file) {
		p.Ineligible = fmt.Sprintf("A code bug's patch may not change the deployment manifest %s.", file)
		return nil
	}
	if files[0].NewName == devNull {
		p.Ineligible = fmt.Sprintf("The suggested patch deletes %s; AutoHeal does not propose deletions.", file)
		return nil
	}
	var old []byte
	if files[0].OldName != devNull {
		old, err = readFile(ctx, rr, p, file, opts.MaxFileBytes)
		if err != nil || p.Ineligible != "" {
			return err
		}
	} else {
		_, err := rr.ReadFile(ctx, p.Repo, p.Ref, file)
		switch {
		case err == nil:
			p.Ineligible = fmt.Sprintf("The suggested patch creates %s, which already exists at %s.", file, refName(p.Ref))
			return nil
		case !errors.Is(err, ErrFileNotFound):
			return fmt.Errorf("remediate: read %s at %s: %w", file, refName(p.Ref), err)
		}
	}
	out, err := ApplyHunks(old, files[0].Hunks)
	if err != nil && AlreadyApplied(old, files[0].Hunks) {
		p.Ineligible = fmt.Sprintf("%s at %s already contains this change; no pull request is needed.", file, refName(p.Ref))
		return nil
	}
	if err != nil {
		p.Ineligible = fmt.Sprintf("Patch does not apply cleanly to %s at %s: %v.", file, refName(p.Ref), trimErr(err))
		return nil
	}
	if string(out) == string(old) {
		p.Ineligible = fmt.Sprintf("The patch changes nothing in %s at %s.", file, refName(p.Ref))
		return nil
	}
	p.Files = []FileChange{{Path: file, BaseSHA: blobSHA(old), Content: out}}
	p.Diff = UnifiedDiff(file, old, out)
	p.Title = codeTitle(res, file)
	return nil
}

func proposeManifest(ctx context.Context, p *Proposal, res *investigate.HealResult, rr RepoReader, opts ProposeOptions) error {
	e := *res.Fix.ManifestEdit
	e.File = cleanRepoPath(e.File)
	if e.Repo != "" && !strings.EqualFold(e.Repo, p.Repo) {
		// The workload is deployed from another repository (its GitOps
		// target): the change goes there.
		if _, _, err := splitRepo(e.Repo); err != nil {
			p.Ineligible = fmt.Sprintf("The deploying repository %q is not owner/name, so no pull request can be opened.", e.Repo)
			return nil
		}
		p.Repo, p.Ref = e.Repo, e.Ref
		p.Notes = append(p.Notes, fmt.Sprintf("The change goes to %s, the repository that deploys %s.", e.Repo, firstNonEmpty(res.RootCause.Service, "the workload")))
	}
	p.Edit = &e
	p.Explanation = e.Reason
	if e.File == "" {
		p.Ineligible = "The manifest edit does not name a file."
		return nil
	}
	if ext := path.Ext(e.File); ext != ".yaml" && ext != ".yml" {
		p.Ineligible = fmt.Sprintf("Only YAML manifests and Helm values files are edited, not %s.", e.File)
		return nil
	}
	old, err := readFile(ctx, rr, p, e.File, opts.MaxFileBytes)
	if err != nil || p.Ineligible != "" {
		return err
	}
	ed, err := EditYAML(old, e)
	if err != nil {
		p.Ineligible = fmt.Sprintf("The manifest edit does not apply to %s:%d at %s: %v.", e.File, e.Line, refName(p.Ref), trimErr(err))
		return nil
	}
	if ed.Note != "" {
		p.Notes = append(p.Notes, ed.Note)
	}
	p.Files = []FileChange{{Path: e.File, BaseSHA: blobSHA(old), Content: ed.Content}}
	p.Diff = UnifiedDiff(e.File, old, ed.Content)
	p.Title = manifestTitle(res, e)
	return nil
}

// readFile reads a proposal's file; a missing or oversized file makes the
// proposal ineligible, other failures are returned.
func readFile(ctx context.Context, rr RepoReader, p *Proposal, file string, limit int) ([]byte, error) {
	b, err := rr.ReadFile(ctx, p.Repo, p.Ref, file)
	if errors.Is(err, ErrFileNotFound) {
		p.Ineligible = fmt.Sprintf("%s does not exist in %s at %s.", file, p.Repo, refName(p.Ref))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remediate: read %s at %s: %w", file, refName(p.Ref), err)
	}
	if len(b) > limit {
		p.Ineligible = fmt.Sprintf("%s is larger than %d bytes; AutoHeal does not edit files that large.", file, limit)
		return nil, nil
	}
	return b, nil
}

// reapply recomputes a file change on top of newer content of the file;
// ErrAlreadyApplied when that content carries the change already.
func (p *Proposal) reapply(file string, current []byte) ([]byte, error) {
	switch p.Kind {
	case KindCodePatch:
		files, err := ParseUnifiedDiff(p.SourceDiff)
		if err != nil {
			return nil, err
		}
		out, err := ApplyHunks(current, files[0].Hunks)
		if err != nil && AlreadyApplied(current, files[0].Hunks) {
			return nil, ErrAlreadyApplied
		}
		return out, err
	case KindManifestEdit:
		if p.Edit == nil {
			return nil, errors.New("the proposal has no manifest edit")
		}
		ed, err := EditYAML(current, *p.Edit)
		if err != nil {
			return nil, err
		}
		return ed.Content, nil
	}
	return nil, fmt.Errorf("nothing to apply to %s", file)
}

func codeTitle(res *investigate.HealResult, file string) string {
	rc := res.RootCause
	what := strings.ReplaceAll(string(rc.ErrorType), "_", " ")
	if what == "" || rc.ErrorType == investigate.ErrUnknown {
		what = "error"
	}
	loc := path.Base(file)
	if rc.Line > 0 && cleanRepoPath(rc.File) == file {
		loc = fmt.Sprintf("%s:%d", loc, rc.Line)
	}
	svc := rc.Service
	if svc == "" {
		svc = "service"
	}
	return clip(fmt.Sprintf("fix(%s): %s at %s", svc, what, loc), maxTitleRunes)
}

func manifestTitle(res *investigate.HealResult, e investigate.ManifestEdit) string {
	svc := res.RootCause.Service
	if svc == "" {
		svc = "infra"
	}
	field := lastKey(e.Path)
	if field == "" {
		field = "value"
	}
	return clip(fmt.Sprintf("fix(%s): set %s to %s in %s", svc, field, unquoteArg(e.NewValue), path.Base(e.File)), maxTitleRunes)
}

// blobSHA is the git blob object id of content.
func blobSHA(content []byte) string {
	h := sha1.New() //nolint:gosec // git object id
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func cleanRepoPath(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "./")
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return ""
	}
	c := path.Clean(p)
	if c == "." || strings.HasPrefix(c, "../") || c == ".." {
		return ""
	}
	return c
}

func refName(ref string) string {
	if ref == "" {
		return "the default branch"
	}
	return ref
}

func splitRepo(full string) (string, string, error) {
	owner, name, ok := strings.Cut(strings.TrimSpace(full), "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("repository %q must be owner/name", full)
	}
	return owner, name, nil
}

// trimErr renders an error for a sentence: without a final period.
func trimErr(err error) string {
	return strings.TrimSuffix(err.Error(), ".")
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
