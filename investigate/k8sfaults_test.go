package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fault builds an analyzer's finding about a field.
func faultFinding(service, sig string, ref FieldRef, observed bool) Finding {
	at := map[string]string{"analyzer": "test"}
	ref.SetAttrs(at)
	if observed {
		at[AttrObserved] = "true"
	}
	return Finding{Kind: KindK8sEvent, Family: FamilyK8s, Service: service, Signature: sig, ErrorType: ErrConfig, Count: 3, Quote: "the fault", Attrs: at}
}

// located builds the source capability's answer for a field.
func located(ref FieldRef, file string, line int, value string, exact bool, missing string) Finding {
	at := map[string]string{"field": FieldK8sRef, "path": "p", "value": value, "mapped_by": LocatedManifest, "exact": map[bool]string{true: "true", false: "false"}[exact]}
	if missing != "" {
		at["missing"] = missing
	}
	ref.SetAttrs(at)
	return Finding{Kind: KindManifest, Family: FamilySource, File: file, Line: line, Attrs: at}
}

func TestFieldTargetsAreTheCandidatesOwn(t *testing.T) {
	role := FieldRef{Kind: "Role", Namespace: "batch", Name: "scheduler", Field: "rules[0].verbs", Value: "get,watch", Want: "list"}
	victim := FieldRef{Kind: "Deployment", Namespace: "batch", Name: "web", Field: "spec.template.spec.containers[web].resources.requests.cpu", Value: "300m"}
	own := faultFinding("scheduler", "k8s-rbac-forbidden", role, true)
	own.Attrs[AttrDeploySource], own.Attrs[AttrDeployRepo], own.Attrs[AttrDeployPath] = "argocd", "acme/gitops", "apps/batch"
	c := &candidate{Service: "scheduler", Signature: "k8s-rbac-forbidden", Support: []Finding{own, faultFinding("web", "k8s-scheduling", victim, true)}}

	targets, deploy := fieldTargets(c)
	require.Len(t, targets, 1, "a field of another workload is not this candidate's")
	assert.Equal(t, "rules[0].verbs", targets[0]["field"])
	assert.Equal(t, "list", targets[0]["want"])
	assert.Equal(t, "acme/gitops", deploy["repo"])
	assert.Equal(t, "apps/batch", deploy["path"])
}

func TestFieldManifestAndFix(t *testing.T) {
	role := FieldRef{Kind: "Role", Namespace: "batch", Name: "scheduler", Field: "rules[0].verbs", Value: "get,watch", Want: "list"}
	c := &candidate{Service: "scheduler", Signature: "k8s-rbac-forbidden", Support: []Finding{faultFinding("scheduler", "k8s-rbac-forbidden", role, true)}}
	ev := &evidence{findings: []Finding{located(role, "k8s/rbac.yaml", 15, "get,watch", true, "")}}

	m := fieldManifest(ev, c)
	require.NotNil(t, m)
	assert.Equal(t, "k8s/rbac.yaml", m.File)
	assert.Equal(t, 15, m.Line)
	assert.True(t, manifestExact(c, m), "located by the object and the field")

	fix, ok := fieldFix(c, m, &DeployTarget{Source: "argocd", Repo: "acme/gitops", Ref: "main"})
	require.True(t, ok)
	require.NotNil(t, fix.ManifestEdit)
	assert.Equal(t, ManifestEdit{File: "k8s/rbac.yaml", Line: 15, Path: "p", OldValue: "get,watch", NewValue: "list", Op: EditAppend,
		Reason: "allow list: the fault", Repo: "acme/gitops", Ref: "main"}, *fix.ManifestEdit)

	// A missing request is added under the enclosing key.
	req := FieldRef{Kind: "Deployment", Name: "web", Field: "spec.template.spec.containers[web].resources.requests.cpu", Want: "250m"}
	c = &candidate{Service: "web", Support: []Finding{faultFinding("web", "k8s-hpa-no-requests", req, true)}}
	ev = &evidence{findings: []Finding{located(req, "charts/web/values.yaml", 12, "", false, "requests.cpu")}}
	m = fieldManifest(ev, c)
	require.NotNil(t, m)
	assert.False(t, manifestExact(c, m), "the line is where the field goes, not the field")
	fix, _ = fieldFix(c, m, nil)
	require.NotNil(t, fix.ManifestEdit)
	assert.Equal(t, EditAdd, fix.ManifestEdit.Op)
	assert.Equal(t, "p.requests.cpu", fix.ManifestEdit.Path)
	assert.Equal(t, "250m", fix.ManifestEdit.NewValue)

	// An image located at its tag: the tag the evidence asks for.
	img := FieldRef{Kind: "Deployment", Name: "api", Field: "spec.template.spec.containers[api].image", Value: "ghcr.io/acme/api:v2.14.0", Want: "ghcr.io/acme/api:2.13.2"}
	assert.Equal(t, "2.13.2", wantAt(img, &ManifestField{Exact: true, Value: "v2.14.0"}))
	assert.Equal(t, "", wantAt(img, &ManifestField{Exact: true, Value: "ghcr.io/acme/other"}), "nothing to propose when the line holds something else")
}

func TestReferenceOrProducerOfAKey(t *testing.T) {
	onset := time.Date(2026, 3, 3, 10, 15, 0, 0, time.UTC)
	producer := located(FieldRef{Kind: "Secret", Name: "db", Field: "data.DB_PASSWORD"}, "deploy/external-secrets/db.yaml", 18, "password", false, "DB_PASSWORD")
	reference := located(FieldRef{Kind: "Deployment", Name: "api", Field: "spec.template.spec.containers[api].env[DB_PASSWORD].valueFrom.secretKeyRef.key"}, "deploy/api/deployment.yaml", 28, "DB_PASSWORD", true, "")
	change := func(file string) Finding {
		return Finding{Kind: KindChangeCorrelation, Family: FamilyChanges, File: file, Time: onset.Add(-20 * time.Minute)}
	}
	ev := &evidence{onset: onset}
	assert.True(t, ev.referenceAtFault(producer, reference), "a look-alike key and no change: the reference")
	ev.findings = []Finding{change("deploy/external-secrets/db.yaml")}
	assert.False(t, ev.referenceAtFault(producer, reference), "the producer's key was renamed just before")
	ev.findings = []Finding{change("deploy/api/deployment.yaml")}
	assert.True(t, ev.referenceAtFault(producer, reference), "the reference changed just before")
	producer.Attrs["value"] = ""
	ev.findings = nil
	assert.False(t, ev.referenceAtFault(producer, reference), "nothing like the key: it is to be added")
}
