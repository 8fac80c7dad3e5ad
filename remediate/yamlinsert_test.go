package remediate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
)

const roleYAML = `# Least privilege for the scheduler.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: report-scheduler
rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get", "watch"]   # no list: see ADR-12
  - apiGroups: ["batch"]
    resources:
      - jobs
    verbs:
      - get
      - create
`

func TestAppendToFlowList(t *testing.T) {
	got, err := EditYAML([]byte(roleYAML), investigate.ManifestEdit{Line: 9, Path: "rules[0].verbs", OldValue: "get,watch", NewValue: "list", Op: investigate.EditAppend})
	require.NoError(t, err)
	want := replaceOnce(t, roleYAML, `verbs: ["get", "watch"]   #`, `verbs: ["get", "watch", "list"]   #`)
	assert.Equal(t, want, string(got.Content), "the quoting of the list, its comment and every other byte kept")
	assert.Equal(t, 9, got.Line)

	_, err = EditYAML([]byte(want), investigate.ManifestEdit{Line: 9, Path: "rules[0].verbs", NewValue: "list", Op: investigate.EditAppend})
	assert.True(t, errors.Is(err, ErrAlreadyApplied), "%v", err)
}

func TestAppendToBlockList(t *testing.T) {
	got, err := EditYAML([]byte(roleYAML), investigate.ManifestEdit{Line: 13, Path: "rules[1].verbs", NewValue: "delete", Op: investigate.EditAppend})
	require.NoError(t, err)
	want := replaceOnce(t, roleYAML, "      - create\n", "      - create\n      - delete\n")
	assert.Equal(t, want, string(got.Content))
	assert.Equal(t, 16, got.Line)

	crlf := strings.ReplaceAll(roleYAML, "\n", "\r\n")
	got, err = EditYAML([]byte(crlf), investigate.ManifestEdit{Line: 13, Path: "rules[1].verbs", NewValue: "delete", Op: investigate.EditAppend})
	require.NoError(t, err)
	assert.Equal(t, strings.ReplaceAll(want, "\n", "\r\n"), string(got.Content), "CRLF line endings kept")

	// A generator's literals: KEY=value items.
	kz := "configMapGenerator:\n  - name: billing-config\n    literals:\n      - LOG_LEVEL=info\n"
	got, err = EditYAML([]byte(kz), investigate.ManifestEdit{Line: 3, Path: "configMapGenerator[billing-config].literals", NewValue: "STRIPE_API_BASE=", Op: investigate.EditAppend})
	require.NoError(t, err)
	assert.Equal(t, kz+"      - STRIPE_API_BASE=\n", string(got.Content))
}

const deployYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: media-api
spec:
  template:
    spec:
      containers:
        - name: media-api
          image: ghcr.io/acme/media-api:2.0.0
          resources:
            limits:
              memory: 1Gi
        - name: sidecar
          image: envoyproxy/envoy:v1.29.1
          resources: {}
`

func TestAddMissingKeys(t *testing.T) {
	got, err := EditYAML([]byte(deployYAML), investigate.ManifestEdit{Line: 11, Path: "spec.template.spec.containers[media-api].resources.requests.cpu",
		NewValue: "250m", Op: investigate.EditAdd})
	require.NoError(t, err)
	want := replaceOnce(t, deployYAML, "          resources:\n            limits:\n", "          resources:\n            requests:\n              cpu: 250m\n            limits:\n")
	assert.Equal(t, want, string(got.Content), "requests added above limits, in the file's indentation")

	// Under an existing key: only what is missing is written.
	got, err = EditYAML([]byte(deployYAML), investigate.ManifestEdit{Line: 11, Path: "resources.limits.cpu", NewValue: "1", Op: investigate.EditAdd})
	require.NoError(t, err)
	assert.Equal(t, replaceOnce(t, deployYAML, "            limits:\n", "            limits:\n              cpu: \"1\"\n"), string(got.Content),
		"a number-looking value stays a string")

	// An empty flow mapping opens into a block.
	got, err = EditYAML([]byte(deployYAML), investigate.ManifestEdit{Line: 16, Path: "containers[sidecar].resources.requests.cpu", NewValue: "50m", Op: investigate.EditAdd})
	require.NoError(t, err)
	assert.Equal(t, replaceOnce(t, deployYAML, "          resources: {}\n", "          resources:\n            requests:\n              cpu: 50m\n"), string(got.Content))

	_, err = EditYAML([]byte(deployYAML), investigate.ManifestEdit{Line: 12, Path: "resources.limits.memory", NewValue: "2Gi", Op: investigate.EditAdd})
	assert.True(t, errors.Is(err, ErrAlreadyApplied), "%v", err)

	_, err = EditYAML([]byte(deployYAML), investigate.ManifestEdit{Line: 10, Path: "image.tag", NewValue: "x", Op: investigate.EditAdd})
	assert.True(t, errors.Is(err, ErrUnsupportedEdit), "a scalar takes no keys: %v", err)
}

// repoMapReader serves the files of one repository.
type repoMapReader struct {
	repo string
	m    mapReader
}

func (r repoMapReader) ReadFile(ctx context.Context, repo, ref, path string) ([]byte, error) {
	if repo != r.repo {
		return nil, fmt.Errorf("%s in %s: %w", path, repo, ErrFileNotFound)
	}
	return r.m.ReadFile(ctx, repo, ref, path)
}

func TestProposeAppendsAVerbInTheDeployingRepository(t *testing.T) {
	res := &investigate.HealResult{IssueKey: "k", Repo: "acme/report-scheduler",
		RootCause: investigate.RootCause{Service: "report-scheduler", Bucket: investigate.BucketInfrastructure, ErrorType: investigate.ErrConfig},
		Fix: investigate.Fix{Summary: "allow list", ManifestEdit: &investigate.ManifestEdit{File: "rbac/role.yaml", Line: 9, Path: "rules[0].verbs",
			OldValue: "get,watch", NewValue: "list", Op: investigate.EditAppend, Repo: "acme/platform-gitops", Ref: "main"}}}
	p, err := Propose(context.Background(), res, repoMapReader{"acme/platform-gitops", mapReader{"rbac/role.yaml": roleYAML}}, ProposeOptions{})
	require.NoError(t, err)
	require.Equal(t, KindManifestEdit, p.Kind, p.Ineligible)
	assert.Equal(t, "acme/platform-gitops", p.Repo, "the pull request goes to the repository that deploys the workload")
	assert.Equal(t, "main", p.Ref)
	assert.Contains(t, p.Diff, `+    verbs: ["get", "watch", "list"]   # no list: see ADR-12`)
	assert.Contains(t, strings.Join(p.Notes, " "), "acme/platform-gitops")
}
