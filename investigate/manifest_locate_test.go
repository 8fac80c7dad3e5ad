package investigate

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memRepo is a repository in memory.
type memRepo map[string]string

func (m memRepo) Paths() []string {
	var out []string
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (m memRepo) Read(p string) ([]byte, error) {
	s, ok := m[p]
	if !ok {
		return nil, errors.New("not found")
	}
	return []byte(s), nil
}

// lineOf is the 1-based line of the first line of a file containing s.
func lineOf(t *testing.T, repo memRepo, file, s string) int {
	t.Helper()
	for i, l := range strings.Split(repo[file], "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, s)
	return 0
}

func dedent(s string) string {
	lines := strings.Split(strings.TrimPrefix(s, "\n"), "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent {
			lines[i] = l[indent:]
		}
	}
	return strings.ReplaceAll(strings.Join(lines, "\n"), "\t", "  ")
}

var plainRepo = memRepo{
	"k8s/search/deployment.yaml": dedent(`
		apiVersion: apps/v1
		kind: Deployment
		metadata:
			name: search-api
			labels:
				app.kubernetes.io/name: search-api
		spec:
			replicas: 3
			template:
				spec:
					containers:
						- name: search-api
							image: ghcr.io/acme/search-api:4.2.0
							ports:
								- name: http
									containerPort: 8080
							readinessProbe:
								httpGet:
									path: /ready
									port: 8081
							resources:
								limits:
									memory: 512Mi
		`),
	"k8s/search/service.yaml": dedent(`
		apiVersion: v1
		kind: Service
		metadata:
			name: search-api
		spec:
			selector:
				app.kubernetes.io/name: search-apii
			ports:
				- name: http
					port: 80
					targetPort: http
		---
		apiVersion: rbac.authorization.k8s.io/v1
		kind: Role
		metadata:
			name: search-indexer
		rules:
			- apiGroups: [""]
				resources: ["configmaps"]
				verbs: ["get", "watch"]
		`),
	"src/main.go": "package main\n",
}

func TestLocatePlainManifest(t *testing.T) {
	l := NewLocator(plainRepo, DeployTarget{})
	f := "k8s/search/deployment.yaml"

	loc, ok := l.Locate(FieldRef{Kind: "Deployment", Namespace: "search", Name: "search-api", Field: "spec.template.spec.containers[search-api].readinessProbe.httpGet.port", Value: "8081"})
	require.True(t, ok)
	assert.Equal(t, FieldLocation{File: f, Line: lineOf(t, plainRepo, f, "port: 8081"), Path: "spec.template.spec.containers[search-api].readinessProbe.httpGet.port",
		Value: "8081", How: LocatedManifest, Exact: true}, loc)

	// A field to add: the enclosing key is where it goes.
	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "search-api", Field: "spec.template.spec.containers[search-api].resources.requests.cpu"})
	require.True(t, ok)
	assert.False(t, loc.Exact)
	assert.Equal(t, lineOf(t, plainRepo, f, "resources:"), loc.Line)
	assert.Equal(t, "spec.template.spec.containers[search-api].resources", loc.Path)

	// A label key with dots, in a Service of a multi-document file.
	s := "k8s/search/service.yaml"
	loc, ok = l.Locate(FieldRef{Kind: "Service", Name: "search-api", Field: "spec.selector.app.kubernetes.io/name", Value: "search-apii"})
	require.True(t, ok)
	assert.Equal(t, lineOf(t, plainRepo, s, "search-apii"), loc.Line)
	assert.True(t, loc.Exact)

	// A flow sequence: the verbs of a rule.
	loc, ok = l.Locate(FieldRef{Kind: "Role", Name: "search-indexer", Field: "rules[0].verbs", Value: "get,watch"})
	require.True(t, ok)
	assert.Equal(t, lineOf(t, plainRepo, s, "verbs:"), loc.Line)
	assert.Equal(t, "get,watch", loc.Value)

	// The pods of a workload the analyzer only saw: any workload kind.
	loc, ok = l.Locate(FieldRef{Kind: "StatefulSet", Name: "search-api", Field: "spec.template.spec.containers[search-api].image"})
	require.True(t, ok)
	assert.Equal(t, lineOf(t, plainRepo, f, "image:"), loc.Line)

	_, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "unknown", Field: "spec.replicas"})
	assert.False(t, ok)
}

var kustomizeRepo = memRepo{
	"deploy/base/kustomization.yaml": dedent(`
		resources:
			- deployment.yaml
			- configmap.yaml
		`),
	"deploy/base/deployment.yaml": dedent(`
		apiVersion: apps/v1
		kind: Deployment
		metadata:
			name: orders
		spec:
			replicas: 2
			template:
				spec:
					containers:
						- name: orders
							image: registry.acme.io/orders:1.0.0
							resources:
								requests:
									cpu: 100m
									memory: 128Mi
		`),
	"deploy/overlays/prod/kustomization.yaml": dedent(`
		namespace: orders-prod
		namePrefix: prod-
		resources:
			- ../../base
		images:
			- name: registry.acme.io/orders
				newTag: 1.4.2-rc1
		replicas:
			- name: orders
				count: 6
		patches:
			- path: resources.yaml
			- target:
					kind: Deployment
					name: orders
				patch: |-
					- op: replace
						path: /spec/template/spec/containers/0/readinessProbe/httpGet/port
						value: 9090
		configMapGenerator:
			- name: orders-config
				literals:
					- LOG_LEVEL=info
					- DATABASE_HOST=orders-db.prod.svc
		`),
	"deploy/overlays/prod/resources.yaml": dedent(`
		apiVersion: apps/v1
		kind: Deployment
		metadata:
			name: orders
		spec:
			template:
				spec:
					containers:
						- name: orders
							resources:
								requests:
									cpu: "6"
		`),
	"deploy/overlays/dev/kustomization.yaml": dedent(`
		resources:
			- ../../base
		images:
			- name: registry.acme.io/orders
				newTag: latest
		`),
}

func TestLocateKustomizeOverlay(t *testing.T) {
	l := NewLocator(kustomizeRepo, DeployTarget{Source: "argocd", Path: "deploy/overlays/prod"})
	k := "deploy/overlays/prod/kustomization.yaml"

	loc, ok := l.Locate(FieldRef{Kind: "Deployment", Namespace: "orders-prod", Name: "prod-orders", Field: "spec.template.spec.containers[orders].image", Value: "registry.acme.io/orders:1.4.2-rc1"})
	require.True(t, ok)
	assert.Equal(t, FieldLocation{File: k, Line: lineOf(t, kustomizeRepo, k, "newTag: 1.4.2-rc1"), Path: "images[registry.acme.io/orders].newTag", Value: "1.4.2-rc1",
		How: LocatedImages, Exact: true}, loc, "the overlay the deploy target names sets the tag")

	p := "deploy/overlays/prod/resources.yaml"
	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "prod-orders", Field: "spec.template.spec.containers[orders].resources.requests.cpu", Value: "6"})
	require.True(t, ok)
	assert.Equal(t, p, loc.File, "a strategic-merge patch overrides the base")
	assert.Equal(t, lineOf(t, kustomizeRepo, p, `cpu: "6"`), loc.Line)

	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "prod-orders", Field: "spec.template.spec.containers[orders].readinessProbe.httpGet.port", Value: "9090"})
	require.True(t, ok)
	assert.Equal(t, k, loc.File, "an inline JSON 6902 patch")
	assert.Equal(t, lineOf(t, kustomizeRepo, k, "value: 9090"), loc.Line)

	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "prod-orders", Field: "spec.replicas", Value: "6"})
	require.True(t, ok)
	assert.Equal(t, lineOf(t, kustomizeRepo, k, "count: 6"), loc.Line)

	loc, ok = l.Locate(FieldRef{Kind: "ConfigMap", Name: "prod-orders-config-5k2f7m8t9h", Field: "data.DATABASE_HOST"})
	require.True(t, ok)
	assert.Equal(t, lineOf(t, kustomizeRepo, k, "DATABASE_HOST="), loc.Line, "a generator literal, the name's hash suffix ignored")

	loc, ok = l.Locate(FieldRef{Kind: "ConfigMap", Name: "prod-orders-config-5k2f7m8t9h", Field: "data.DB_PASSWORD_FILE", Want: "DB_PASSWORD_FILE"})
	require.True(t, ok)
	assert.False(t, loc.Exact, "a missing key is added to the literals")
	assert.Equal(t, lineOf(t, kustomizeRepo, k, "literals:"), loc.Line)

	// Fields no overlay touches stay in the base.
	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "prod-orders", Field: "spec.template.spec.containers[orders].resources.requests.memory", Value: "128Mi"})
	require.True(t, ok)
	assert.Equal(t, "deploy/base/deployment.yaml", loc.File)
}

var helmRepo = memRepo{
	"charts/payments/Chart.yaml": "apiVersion: v2\nname: payments\nversion: 1.2.0\n",
	"charts/payments/templates/deployment.yaml": dedent(`
		apiVersion: apps/v1
		kind: Deployment
		metadata:
			name: {{ include "payments.fullname" . }}
			labels:
				{{- include "payments.labels" . | nindent 4 }}
		spec:
			replicas: {{ .Values.replicaCount }}
			template:
				spec:
					{{- with .Values.nodeSelector }}
					nodeSelector:
						{{- toYaml . | nindent 8 }}
					{{- end }}
					containers:
						- name: {{ .Chart.Name }}
							image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
							ports:
								- name: http
									containerPort: {{ .Values.service.port }}
							livenessProbe:
								httpGet:
									path: /healthz
									port: {{ .Values.probes.port }}
							resources:
								{{- toYaml .Values.resources | nindent 12 }}
		`),
	"charts/payments/templates/pvc.yaml": dedent(`
		apiVersion: v1
		kind: PersistentVolumeClaim
		metadata:
			name: {{ include "payments.fullname" . }}-data
		spec:
			storageClassName: {{ .Values.persistence.storageClass }}
		`),
	"charts/payments/values.yaml": dedent(`
		replicaCount: 2
		image:
			repository: ghcr.io/acme/payments
			tag: 6.1.0
		service:
			port: 8080
		probes:
			port: 8080
		nodeSelector: {}
		resources:
			limits:
				memory: 512Mi
		persistence:
			storageClass: standard
		`),
	"charts/payments/values-prod.yaml": dedent(`
		image:
			tag: 6.2.0-hotfix
		probes:
			port: 9000
		nodeSelector:
			pool: payments
		persistence:
			storageClass: fast-ssd
		`),
}

func TestLocateHelmValues(t *testing.T) {
	l := NewLocator(helmRepo, DeployTarget{})
	prod, base := "charts/payments/values-prod.yaml", "charts/payments/values.yaml"

	loc, ok := l.Locate(FieldRef{Kind: "Deployment", Name: "payments", Field: "spec.template.spec.containers[payments].livenessProbe.httpGet.port", Value: "9000"})
	require.True(t, ok)
	assert.Equal(t, FieldLocation{File: prod, Line: lineOf(t, helmRepo, prod, "port: 9000"), Path: "probes.port", Value: "9000", How: LocatedValues, Exact: true}, loc,
		"the value the template reads, where the production override sets it")

	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "payments", Field: "spec.template.spec.containers[payments].image", Value: "ghcr.io/acme/payments:6.2.0-hotfix"})
	require.True(t, ok)
	assert.Equal(t, "image.tag", loc.Path, "the tag, not the repository")
	assert.Equal(t, prod, loc.File)

	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "payments", Field: "spec.template.spec.containers[payments].resources.limits.memory", Value: "512Mi"})
	require.True(t, ok)
	assert.Equal(t, base, loc.File, "toYaml of a values block")
	assert.Equal(t, lineOf(t, helmRepo, base, "memory: 512Mi"), loc.Line)

	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "payments", Field: "spec.template.spec.containers[payments].resources.requests.cpu"})
	require.True(t, ok)
	assert.False(t, loc.Exact)
	assert.Equal(t, lineOf(t, helmRepo, base, "resources:"), loc.Line, "a request to add goes under the values' resources")

	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "payments", Field: "spec.template.spec.nodeSelector.pool", Value: "payments"})
	require.True(t, ok)
	assert.Equal(t, lineOf(t, helmRepo, prod, "pool: payments"), loc.Line, "toYaml . inside with .Values.nodeSelector")

	loc, ok = l.Locate(FieldRef{Kind: "PersistentVolumeClaim", Name: "payments-data", Field: "spec.storageClassName", Value: "fast-ssd"})
	require.True(t, ok)
	assert.Equal(t, lineOf(t, helmRepo, prod, "storageClass: fast-ssd"), loc.Line)

	// The deploy target's value files decide which override applies.
	l = NewLocator(helmRepo, DeployTarget{ValueFiles: []string{"charts/payments/values.yaml"}})
	loc, ok = l.Locate(FieldRef{Kind: "Deployment", Name: "payments", Field: "spec.template.spec.containers[payments].livenessProbe.httpGet.port", Value: "8080"})
	require.True(t, ok)
	assert.Equal(t, base, loc.File)
}

func TestLocateHelmReleaseInlineValues(t *testing.T) {
	repo := memRepo{}
	for k, v := range helmRepo {
		repo[k] = v
	}
	repo["clusters/prod/payments.yaml"] = dedent(`
		apiVersion: helm.toolkit.fluxcd.io/v2
		kind: HelmRelease
		metadata:
			name: payments
		spec:
			chart:
				spec:
					chart: ./charts/payments
			values:
				probes:
					port: 9100
		`)
	loc, ok := NewLocator(repo, DeployTarget{}).Locate(FieldRef{Kind: "Deployment", Name: "payments", Field: "spec.template.spec.containers[payments].livenessProbe.httpGet.port", Value: "9100"})
	require.True(t, ok)
	assert.Equal(t, "clusters/prod/payments.yaml", loc.File)
	assert.Equal(t, lineOf(t, repo, "clusters/prod/payments.yaml", "port: 9100"), loc.Line)
}

func TestLocateByValueWhenNoObjectMatches(t *testing.T) {
	repo := memRepo{"env/prod/data.yaml": "postgres:\n  persistence:\n    size: 100Gi\n    storageClass: premium-ssd\n"}
	loc, ok := NewLocator(repo, DeployTarget{}).Locate(FieldRef{Kind: "StatefulSet", Name: "postgres", Field: "spec.volumeClaimTemplates[data].spec.storageClassName", Value: "premium-ssd"})
	require.True(t, ok)
	assert.Equal(t, FieldLocation{File: "env/prod/data.yaml", Line: 4, Path: "storageClass", Value: "premium-ssd", How: LocatedValueScan}, loc, "found by value, never exact")
}
