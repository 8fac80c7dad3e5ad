package gh

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/autoheal/autoheal/investigate"
)

// Source tool names.
const (
	ToolReadSource = "source_read"
	ToolManifests  = "source_manifests"
)

// Source is the source capability.
type Source struct{ r *repo }

// Family implements investigate.Capability.
func (s *Source) Family() investigate.Family { return investigate.FamilySource }

// Availability implements investigate.Capability.
func (s *Source) Availability() investigate.Availability {
	return s.r.availability(investigate.FamilySource)
}

// Tools implements investigate.Capability.
func (s *Source) Tools() []investigate.ToolSpec {
	return []investigate.ToolSpec{
		{Name: ToolReadSource, Family: investigate.FamilySource,
			Description: "Read the lines around file:line at the deployed ref. file may be a repository path or a path as a stack frame printed it (AdService.java, /app/main.go); it is mapped to the repository by file name.",
			Parameters: investigate.Schema(map[string]any{
				"file":    map[string]any{"type": "string"},
				"line":    map[string]any{"type": "integer"},
				"service": map[string]any{"type": "string", "description": "service the frame belongs to (disambiguates main.go)"},
				"context": map[string]any{"type": "integer", "description": "lines before and after (default 12, max 40)"},
			}, "file", "line")},
		{Name: ToolManifests, Family: investigate.FamilySource,
			Description: "Find the deployment manifests / Helm values of a service by file name and return its settings with file:line: memory and CPU limits, image, env, probes, ports, replicas. targets: Kubernetes fields to locate where the repository produces them (manifest, Kustomize patch/images/generator, Helm value).",
			Parameters: investigate.Schema(map[string]any{
				"service": map[string]any{"type": "string"},
				"keys":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "setting names the errors mention (max_client_conn, DATABASE_URL): their lines in the service's config files are returned too"},
				"values":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "limits the errors quote (150ms, 2MB, 5): config lines of a limit-like setting (timeout, max, size, pool) holding that value are returned too"},
				"targets": map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "{kind, namespace, name, field, value, want} as Kubernetes findings name them"},
				"deploy":  map[string]any{"type": "object", "description": "GitOps target of a Kubernetes finding (repo, ref, path, value_files)"},
			}, "service")},
	}
}

// Call implements investigate.Capability.
func (s *Source) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	if av := s.Availability(); !av.Configured {
		return nil, investigate.NewToolError(av.Kind, av.Reason, nil)
	}
	switch tool {
	case ToolReadSource:
		var a struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Service string `json:"service"`
			Context int    `json:"context"`
		}
		if err := investigate.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if strings.TrimSpace(a.File) == "" || a.Line < 1 {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "file and a line >= 1 are required", nil)
		}
		if a.Context <= 0 {
			a.Context = 12
		}
		a.Context = min(a.Context, 40)
		return s.read(ctx, a.File, a.Line, a.Service, a.Context)
	case ToolManifests:
		var a struct {
			Service string                    `json:"service"`
			Keys    []string                  `json:"keys"`
			Values  []string                  `json:"values"`
			Targets []fieldTarget             `json:"targets"`
			Deploy  *investigate.DeployTarget `json:"deploy"`
		}
		if err := investigate.DecodeArgs(args, &a); err != nil {
			return nil, err
		}
		if strings.TrimSpace(a.Service) == "" {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "service is required", nil)
		}
		if len(a.Keys) > 20 {
			a.Keys = a.Keys[:20]
		}
		if len(a.Values) > 10 {
			a.Values = a.Values[:10]
		}
		res, err := s.manifests(ctx, a.Service, a.Keys, a.Values)
		if err != nil {
			return res, err
		}
		if len(a.Targets) == 0 {
			// The fields a pod's state says are at fault (image, memory
			// limit, probes), wherever Kustomize or Helm set them.
			a.Targets = standardTargets(a.Service)
		}
		if len(a.Targets) > maxTargets {
			a.Targets = a.Targets[:maxTargets]
		}
		var deploy investigate.DeployTarget
		if a.Deploy != nil {
			deploy = *a.Deploy
		}
		found, data, err := s.locate(ctx, a.Targets, deploy)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, found...)
		res.Summary += fmt.Sprintf("; %d of %d Kubernetes fields located", len(found), len(a.Targets))
		if d, ok := res.Data.(map[string]any); ok {
			d["located"] = data
		}
		return res, nil
	}
	return nil, fmt.Errorf("%w: %s", investigate.ErrUnknownTool, tool)
}

func (s *Source) read(ctx context.Context, file string, line int, service string, around int) (*investigate.ToolResult, error) {
	paths, err := s.r.paths(ctx)
	if err != nil {
		return nil, err
	}
	p, cands, ok := investigate.ResolveRepoPath(paths, file, service)
	compiled := false
	if !ok {
		// A frame of compiled output (dist/quote.js): the repository holds
		// the source it was built from, whose line numbers differ.
		p, cands, ok = investigate.ResolveCompiledSource(paths, file, service)
		compiled = ok
	}
	if !ok {
		return nil, investigate.NewToolError(investigate.ErrKindNotFound, fmt.Sprintf("no file named %s in %s", path.Base(file), s.r.cfg.Repo), nil)
	}
	content, err := s.r.read(ctx, p)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(content, "\n")
	asked := line
	if compiled {
		// The compiled line is only near the source's: read the widest window.
		around = 40
		line = min(line, len(lines))
	}
	if line > len(lines) {
		return nil, investigate.NewToolError(investigate.ErrKindNotFound, fmt.Sprintf("%s has %d lines, not %d: the frame does not match the deployed ref", p, len(lines), line), nil)
	}
	from, to := max(1, line-around), min(len(lines), line+around)
	var window strings.Builder
	for i := from; i <= to; i++ {
		marker := "  "
		if i == line {
			marker = "> "
		}
		fmt.Fprintf(&window, "%s%4d  %s\n", marker, i, lines[i-1])
	}
	f := investigate.Finding{Kind: investigate.KindSourceAnchor, Family: investigate.FamilySource, Service: service,
		File: p, Line: line, Count: 1, Quote: investigate.Quote(lines[line-1], 200),
		Attrs: map[string]string{"from": fmt.Sprint(from), "to": fmt.Sprint(to), "window": window.String(), "lines": fmt.Sprint(len(lines)), "requested": file}}
	if compiled {
		f.Attrs["compiled_from"] = file
		f.Attrs["asked_line"] = fmt.Sprint(asked)
	}
	if len(cands) > 1 {
		f.Attrs["other_candidates"] = strings.Join(cands[1:min(len(cands), 4)], ",")
	}
	sum := fmt.Sprintf("read %s:%d (lines %d-%d)", p, line, from, to)
	if compiled {
		sum = fmt.Sprintf("read %s, the source of the compiled %s (lines %d-%d; compiled line numbers are not the source's)", p, path.Base(file), from, to)
	}
	return &investigate.ToolResult{Summary: sum,
		Findings: []investigate.Finding{f}, Data: map[string]any{"path": p, "line": line, "window": window.String()}}, nil
}

// maxManifestReads bounds how many candidate files one lookup reads.
const maxManifestReads = 6

// appConfigRE: files that hold an application's own settings (not a
// deployment manifest): config directories, .env, TOML, properties, INI.
var appConfigRE = regexp.MustCompile(`(?i)(^|/)(config|conf|settings)/|\.(env|toml|properties|ini|conf|cfg)$|(^|/)(application|settings|config|appsettings)[\w.-]*\.(ya?ml|json)$`)

func (s *Source) manifests(ctx context.Context, service string, keys, values []string) (*investigate.ToolResult, error) {
	paths, err := s.r.paths(ctx)
	if err != nil {
		return nil, err
	}
	svc := investigate.NormalizeServiceName(service)
	type cand struct {
		p     string
		score int
	}
	var cands []cand
	for _, p := range paths {
		if !investigate.IsManifestPath(p) && !(len(keys)+len(values) > 0 && investigate.IsConfigPath(p)) {
			continue
		}
		score := 0
		for _, seg := range strings.Split(strings.TrimSuffix(strings.TrimSuffix(p, ".yaml"), ".yml"), "/") {
			if n := investigate.NormalizeServiceName(seg); n == svc || (len(svc) >= 4 && strings.Contains(n, svc)) {
				score += 10
			}
		}
		if strings.HasPrefix(path.Base(p), "values") {
			score += 2
		}
		if len(keys)+len(values) > 0 && appConfigRE.MatchString(p) {
			score += 3 // where an application's own settings live
		}
		if strings.Contains(p, "kustomization") {
			score -= 5
		}
		cands = append(cands, cand{p, score})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var fields []investigate.ManifestField
	read := 0
	var readPaths []string
	for _, c := range cands {
		if read >= maxManifestReads {
			break
		}
		if c.score <= 0 && len(fields) > 0 {
			break
		}
		content, err := s.r.read(ctx, c.p)
		read++
		if err != nil {
			continue
		}
		readPaths = append(readPaths, c.p)
		if ext := path.Ext(c.p); ext == ".yaml" || ext == ".yml" {
			fs, _ := investigate.LocateManifestFields(c.p, []byte(content), service)
			fields = append(fields, fs...)
		}
		fields = append(fields, investigate.LocateConfigKeys(c.p, []byte(content), keys)...)
		fields = append(fields, investigate.LocateConfigValues(c.p, []byte(content), values)...)
	}
	var findings []investigate.Finding
	for _, f := range fields {
		findings = append(findings, investigate.Finding{Kind: investigate.KindManifest, Family: investigate.FamilySource, Service: service,
			File: f.File, Line: f.Line, Count: 1, Quote: fmt.Sprintf("%s = %s", f.Path, f.Value),
			Attrs: map[string]string{"field": f.Kind, "path": f.Path, "value": f.Value, "name": f.Name, "container": f.Container}})
	}
	sum := fmt.Sprintf("%d settings of %s in %d manifests", len(fields), service, len(readPaths))
	if len(readPaths) == 0 {
		sum = "no manifest of " + service + " found by file name"
	}
	return &investigate.ToolResult{Summary: sum, Findings: findings, Data: map[string]any{"files": readPaths, "fields": fields}}, nil
}
