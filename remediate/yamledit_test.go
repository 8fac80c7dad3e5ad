package remediate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

const examplesDir = "../testdata/examples"

// replaceOnce replaces exactly one occurrence of old in s (the test fails otherwise).
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	require.Equal(t, 1, strings.Count(s, old), "fixture must contain %q exactly once", old)
	return strings.Replace(s, old, new, 1)
}

// lineOf returns the 1-based line of the first line containing sub after skip occurrences.
func lineOf(t *testing.T, s, sub string, skip int) int {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			if skip == 0 {
				return i + 1
			}
			skip--
		}
	}
	t.Fatalf("%q not found", sub)
	return 0
}

func TestEditYAMLExampleCartByteForByte(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(examplesDir, "cart-oomkilled-low-limit/repo/deploy/k8s/cart.yaml"))
	require.NoError(t, err)
	// The scenario's truth: the memory limit at line 58.
	require.Contains(t, strings.Split(string(src), "\n")[57], "memory: 128Mi")

	got, err := EditYAML(src, investigate.ManifestEdit{
		File: "deploy/k8s/cart.yaml", Line: 58,
		Path:     "spec.template.spec.containers[cart].resources.limits.memory",
		OldValue: "128Mi", NewValue: "256Mi",
	})
	require.NoError(t, err)
	// Only the limit changes: not the request (64Mi), not the comment above it
	// that mentions 71Mi, not the second document.
	want := replaceOnce(t, string(src), "              memory: 128Mi\n", "              memory: 256Mi\n")
	assert.Equal(t, want, string(got.Content))
	assert.Equal(t, 58, got.Line)
	assert.Equal(t, "128Mi", got.OldRaw)
	assert.Equal(t, "256Mi", got.NewRaw)
	assert.Equal(t, "spec.template.spec.containers[cart].resources.limits.memory", got.Path)
	assert.Empty(t, got.Note)

	// The diff shown in Slack is one line.
	d := UnifiedDiff("deploy/k8s/cart.yaml", src, got.Content)
	assert.Equal(t, 1, strings.Count(d, "\n-"), d)
	assert.Contains(t, d, "-              memory: 128Mi\n+              memory: 256Mi\n")
	assert.Contains(t, d, "@@ -55,7 +55,7 @@")
}

func TestEditYAMLCases(t *testing.T) {
	multiDoc := "# first\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cart-config\ndata:\n  replicas: \"3\"\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cart\nspec:\n  replicas: 3 # keep in sync with HPA min\n" +
		"  template:\n    spec:\n      containers:\n        - name: cart\n          image: ghcr.io/acme/cart:1.14.0\n"
	helmAnchors := "# Helm values\ndefaults: &defaults\n  resources: &res\n    limits:\n      memory: &mem 512Mi   # shared\n" +
		"cart:\n  <<: *defaults\n  resources:\n    limits:\n      memory: 512Mi\n      cpu: \"1\"\n  sidecar:\n    memory: *mem\n"
	flow := "cart:\n  resources: {limits: {cpu: 500m, memory: 128Mi}, requests: {cpu: 100m, memory: 128Mi}}\n  ports: [7070, 8080]\n"
	quoted := "cart:\n  image:\n    repository: 'ghcr.io/acme/cart'\n    tag: \"1.14.0\"  # pinned\n  env:\n    LOG_LEVEL: 'info'\n    PORT: \"7070\"\n"
	crlf := strings.ReplaceAll("# Cart\r\nspec:\r\n  replicas: 2\r\n  template:\r\n    spec:\r\n      containers:\r\n        - name: cart\r\n          resources:\r\n            limits:\r\n              memory: 128Mi\r\n", "\r\n", "\r\n")
	twice := "cart:\n  resources:\n    requests:\n      memory: 128Mi\n    limits:\n      memory: 128Mi\n"
	unicodeKeys := "# Größe\nprüfung:\n  größe: 64Mi # ü\n  memory: 64Mi\n"
	tagged := "cart:\n  replicas: !!str 3\n  timeout: &t \"30s\"\n"

	tests := []struct {
		name    string
		src     string
		edit    investigate.ManifestEdit
		want    string // expected content; "" when err is set
		err     error
		errText string
	}{
		{
			name: "multi-document: the Deployment's replicas, not the ConfigMap's",
			src:  multiDoc,
			edit: investigate.ManifestEdit{Line: lineOf(t, multiDoc, "replicas: 3", 0), Path: "spec.replicas", OldValue: "3", NewValue: "5"},
			want: replaceOnce(t, multiDoc, "replicas: 3 # keep", "replicas: 5 # keep"),
		},
		{
			name: "helm values with anchors: the cart override, anchor and merge key untouched",
			src:  helmAnchors,
			edit: investigate.ManifestEdit{Line: lineOf(t, helmAnchors, "memory: 512Mi", 0), Path: "cart.resources.limits.memory", OldValue: "512Mi", NewValue: "1Gi"},
			want: replaceOnce(t, helmAnchors, "      memory: 512Mi\n      cpu", "      memory: 1Gi\n      cpu"),
		},
		{
			name: "anchored value keeps its anchor and comment",
			src:  helmAnchors,
			edit: investigate.ManifestEdit{Line: 5, Path: "defaults.resources.limits.memory", OldValue: "512Mi", NewValue: "768Mi"},
			want: replaceOnce(t, helmAnchors, "&mem 512Mi   # shared", "&mem 768Mi   # shared"),
		},
		{
			name:    "an alias cannot be edited in place",
			src:     helmAnchors,
			edit:    investigate.ManifestEdit{Line: lineOf(t, helmAnchors, "memory: *mem", 0), Path: "cart.sidecar.memory", OldValue: "512Mi", NewValue: "1Gi"},
			err:     ErrUnsupportedEdit,
			errText: "alias (*mem)",
		},
		{
			name: "flow style: the limit, not the identical request on the same line",
			src:  flow,
			edit: investigate.ManifestEdit{Line: 2, Path: "cart.resources.limits.memory", OldValue: "128Mi", NewValue: "256Mi"},
			want: replaceOnce(t, flow, "memory: 128Mi}, requests", "memory: 256Mi}, requests"),
		},
		{
			name: "flow sequence item by index",
			src:  flow,
			edit: investigate.ManifestEdit{Line: 3, Path: "cart.ports[1]", OldValue: "8080", NewValue: "9090"},
			want: replaceOnce(t, flow, "[7070, 8080]", "[7070, 9090]"),
		},
		{
			name: "double-quoted value stays double-quoted",
			src:  quoted,
			edit: investigate.ManifestEdit{Line: 4, Path: "cart.image.tag", OldValue: "1.14.0", NewValue: "1.14.1"},
			want: replaceOnce(t, quoted, `tag: "1.14.0"  # pinned`, `tag: "1.14.1"  # pinned`),
		},
		{
			name: "single-quoted value stays single-quoted, quotes escaped",
			src:  quoted,
			edit: investigate.ManifestEdit{Line: 6, Path: "cart.env.LOG_LEVEL", OldValue: "info", NewValue: "it's debug"},
			want: replaceOnce(t, quoted, "LOG_LEVEL: 'info'", "LOG_LEVEL: 'it''s debug'"),
		},
		{
			name: "quoted old value given with its quotes",
			src:  quoted,
			edit: investigate.ManifestEdit{Line: 7, Path: "cart.env.PORT", OldValue: `"7070"`, NewValue: `"8080"`},
			want: replaceOnce(t, quoted, `PORT: "7070"`, `PORT: "8080"`),
		},
		{
			name: "CRLF line endings are kept",
			src:  crlf,
			edit: investigate.ManifestEdit{Line: 10, Path: "spec.template.spec.containers[cart].resources.limits.memory", OldValue: "128Mi", NewValue: "256Mi"},
			want: replaceOnce(t, crlf, "memory: 128Mi\r\n", "memory: 256Mi\r\n"),
		},
		{
			name: "a value that appears twice: only the one at the line",
			src:  twice,
			edit: investigate.ManifestEdit{Line: 6, Path: "cart.resources.limits.memory", OldValue: "128Mi", NewValue: "256Mi"},
			want: "cart:\n  resources:\n    requests:\n      memory: 128Mi\n    limits:\n      memory: 256Mi\n",
		},
		{
			name: "the line moved: a unique path match elsewhere is used",
			src:  twice,
			edit: investigate.ManifestEdit{Line: 2, Path: "resources.limits.memory", OldValue: "128Mi", NewValue: "256Mi"},
			want: "cart:\n  resources:\n    requests:\n      memory: 128Mi\n    limits:\n      memory: 256Mi\n",
		},
		{
			name: "multi-byte characters before the value",
			src:  unicodeKeys,
			edit: investigate.ManifestEdit{Line: 3, Path: "prüfung.größe", OldValue: "64Mi", NewValue: "128Mi"},
			want: replaceOnce(t, unicodeKeys, "größe: 64Mi # ü", "größe: 128Mi # ü"),
		},
		{
			name: "explicit tag kept",
			src:  tagged,
			edit: investigate.ManifestEdit{Line: 2, Path: "cart.replicas", OldValue: "3", NewValue: "4"},
			want: replaceOnce(t, tagged, "!!str 3", "!!str 4"),
		},
		{
			name: "anchor and double quotes",
			src:  tagged,
			edit: investigate.ManifestEdit{Line: 3, Path: "cart.timeout", OldValue: "30s", NewValue: "1m"},
			want: replaceOnce(t, tagged, `&t "30s"`, `&t "1m"`),
		},
		{
			name: "plain string that would read as a bool is quoted",
			src:  "cart:\n  mode: fast\n",
			edit: investigate.ManifestEdit{Line: 2, Path: "cart.mode", OldValue: "fast", NewValue: "yes: please"},
			want: "cart:\n  mode: \"yes: please\"\n",
		},
		{
			name: "plain string that would read as a number is quoted",
			src:  "cart:\n  version: v1\n",
			edit: investigate.ManifestEdit{Line: 2, Path: "cart.version", OldValue: "v1", NewValue: "2"},
			want: "cart:\n  version: \"2\"\n",
		},
		{
			name:    "old value differs",
			src:     twice,
			edit:    investigate.ManifestEdit{Line: 6, Path: "cart.resources.limits.memory", OldValue: "64Mi", NewValue: "256Mi"},
			err:     ErrValueMismatch,
			errText: `is "128Mi", not "64Mi"`,
		},
		{
			name: "already applied",
			src:  twice,
			edit: investigate.ManifestEdit{Line: 6, Path: "cart.resources.limits.memory", OldValue: "64Mi", NewValue: "128Mi"},
			err:  ErrAlreadyApplied,
		},
		{
			name: "no such value",
			src:  twice,
			edit: investigate.ManifestEdit{Line: 3, Path: "cart.resources.limits.cpu", OldValue: "1", NewValue: "2"},
			err:  ErrValueNotFound,
		},
		{
			name:    "block scalar is refused",
			src:     "cart:\n  script: |\n    echo hi\n",
			edit:    investigate.ManifestEdit{Line: 2, Path: "cart.script", OldValue: "echo hi\n", NewValue: "echo bye"},
			err:     ErrUnsupportedEdit,
			errText: "block or multi-line scalar",
		},
		{
			name:    "multi-line plain scalar is refused",
			src:     "cart:\n  note: first part\n    second part\n  other: x\n",
			edit:    investigate.ManifestEdit{Line: 2, Path: "cart.note", OldValue: "first part second part", NewValue: "short"},
			err:     ErrUnsupportedEdit,
			errText: "spans several lines",
		},
		{
			name:    "an int field does not become a string",
			src:     "spec:\n  replicas: 3\n",
			edit:    investigate.ManifestEdit{Line: 2, Path: "spec.replicas", OldValue: "3", NewValue: "many"},
			err:     ErrUnsupportedEdit,
			errText: "reads back as",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EditYAML([]byte(tc.src), tc.edit)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				if tc.errText != "" {
					assert.Contains(t, err.Error(), tc.errText)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got.Content))
			// Everything outside the edited span is byte-identical.
			start := strings.Index(tc.src, got.OldRaw)
			require.GreaterOrEqual(t, start, 0)
			assert.Equal(t, len(tc.src)-len(got.OldRaw)+len(got.NewRaw), len(got.Content))
		})
	}
}

func TestEditYAMLAnchorNote(t *testing.T) {
	src := "a: &mem 512Mi\nb: *mem\n"
	got, err := EditYAML([]byte(src), investigate.ManifestEdit{Line: 1, Path: "a", OldValue: "512Mi", NewValue: "1Gi"})
	require.NoError(t, err)
	assert.Equal(t, "a: &mem 1Gi\nb: *mem\n", string(got.Content))
	assert.Contains(t, got.Note, "&mem")
}

func TestEditYAMLHelmValuesFromCorpus(t *testing.T) {
	p := "../testdata/scenarios/quote-engine-oomkilled-helm-limit/repo/charts/quote-engine/values-prod.yaml"
	src, err := os.ReadFile(p)
	require.NoError(t, err)
	line := lineOf(t, string(src), "memory: 768Mi", 1)
	got, err := EditYAML(src, investigate.ManifestEdit{Line: line, Path: "resources.limits.memory", OldValue: "768Mi", NewValue: "1536Mi"})
	require.NoError(t, err)
	lines := strings.SplitAfter(string(src), "\n")
	lines[line-1] = strings.Replace(lines[line-1], "768Mi", "1536Mi", 1)
	assert.Equal(t, strings.Join(lines, ""), string(got.Content))
	// The request, also 768Mi, is untouched.
	assert.Equal(t, 1, strings.Count(string(got.Content), "768Mi"))
}
