package validate

import (
	"fmt"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
)

// RenderOptions are what `helm template` takes on its command line.
type RenderOptions struct {
	ReleaseName string   // default "autoheal"
	Namespace   string   // default "autoheal"
	KubeVersion string   // default DefaultKubeVersion
	ValuesFiles []string // merged in order, like repeated -f
}

// DefaultKubeVersion is the Kubernetes version charts are rendered for when
// none is given (the chart's .Capabilities.KubeVersion and kubeVersion check).
const DefaultKubeVersion = "1.31.0"

func (o RenderOptions) withDefaults() RenderOptions {
	if o.ReleaseName == "" {
		o.ReleaseName = "autoheal"
	}
	if o.Namespace == "" {
		o.Namespace = "autoheal"
	}
	if o.KubeVersion == "" {
		o.KubeVersion = DefaultKubeVersion
	}
	return o
}

// Values merges the values files like helm's -f flags (later files win,
// maps merge key by key).
func Values(files []string) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range files {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return nil, fmt.Errorf("values file %s: %w", f, err)
		}
		base = mergeMaps(base, v.AsMap())
	}
	return base, nil
}

// mergeMaps is helm's cli/values mergeMaps.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]any); ok {
					out[k] = mergeMaps(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// Rendered is the output of Render.
type Rendered struct {
	// Manifest is the YAML stream `helm template` prints (hooks included),
	// each document headed by "---" and "# Source: <template>".
	Manifest string
	// Notes is the rendered NOTES.txt.
	Notes string
}

// Render renders a chart the way `helm template` does (install, revision
// 1, no cluster), values schema validation included.
func Render(chartDir string, o RenderOptions) (*Rendered, error) {
	o = o.withDefaults()
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	vals, err := Values(o.ValuesFiles)
	if err != nil {
		return nil, err
	}
	kv, err := chartutil.ParseKubeVersion(o.KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("kube version %q: %w", o.KubeVersion, err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = *kv
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", ch.Metadata.KubeVersion, caps.KubeVersion.String())
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return nil, err
	}
	top, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{
		Name: o.ReleaseName, Namespace: o.Namespace, Revision: 1, IsInstall: true,
	}, caps)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return nil, err
	}
	var notes []string
	for name, content := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			if name == ch.Name()+"/templates/NOTES.txt" {
				notes = append(notes, content)
			}
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	for _, h := range hooks {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	sort.Strings(notes)
	return &Rendered{Manifest: b.String(), Notes: strings.Join(notes, "\n")}, nil
}

// Lint runs `helm lint --strict` on a chart with the given values: errors
// and warnings are returned, informational messages are not.
func Lint(chartDir string, o RenderOptions) ([]string, error) {
	o = o.withDefaults()
	vals, err := Values(o.ValuesFiles)
	if err != nil {
		return nil, err
	}
	kv, err := chartutil.ParseKubeVersion(o.KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("kube version %q: %w", o.KubeVersion, err)
	}
	l := lint.AllWithKubeVersion(chartDir, vals, o.Namespace, kv)
	var out []string
	for _, m := range l.Messages {
		if m.Severity >= support.WarningSev {
			out = append(out, m.Error())
		}
	}
	return out, nil
}

// Result is the outcome of CheckChart.
type Result struct {
	Lint     []string  // helm lint --strict errors and warnings
	Err      error     // the chart did not load or render (a `fail` in a template, a schema error…)
	Problems []Problem // validation problems of the rendered manifests
	Objects  []*Object // the decoded objects
	Rendered *Rendered // nil when rendering failed
}

// OK reports whether the chart linted, rendered and validated clean.
func (r *Result) OK() bool { return len(r.Lint) == 0 && r.Err == nil && len(r.Problems) == 0 }

func (r *Result) String() string {
	var b strings.Builder
	for _, m := range r.Lint {
		fmt.Fprintf(&b, "helm lint: %s\n", m)
	}
	if r.Err != nil {
		fmt.Fprintf(&b, "helm template: %v\n", r.Err)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "%s\n", p)
	}
	return b.String()
}

// CheckChart lints, renders and validates a chart with one set of values.
func CheckChart(chartDir string, ro RenderOptions, opts Options) *Result {
	res := &Result{}
	res.Lint, res.Err = Lint(chartDir, ro)
	if res.Err != nil {
		return res
	}
	res.Rendered, res.Err = Render(chartDir, ro)
	if res.Err != nil {
		return res
	}
	res.Objects, res.Problems = Decode("rendered", []byte(res.Rendered.Manifest))
	res.Problems = append(res.Problems, Check(res.Objects, opts)...)
	return res
}
