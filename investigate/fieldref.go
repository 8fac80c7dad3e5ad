package investigate

import (
	"fmt"
	"strings"
)

// FieldRef names one field of one Kubernetes object: what a Kubernetes
// analyzer found at fault (the storage class of a claim, the verbs of a
// Role's rule, the port of a probe). Findings carry it in their attributes
// (SetAttrs, FieldRefOf), so that the engine can ask the source capability
// for the repository line that produces the field, whatever renders it (a
// plain manifest, a Kustomize patch, a Helm value).
type FieldRef struct {
	Kind      string `json:"kind"` // Deployment, PersistentVolumeClaim, Role...
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Field is the path of the field in the object as the API prints it:
	// keys joined by dots, list items by their name in brackets when they
	// have one (containers[api]) and by index otherwise (rules[0]), e.g.
	// spec.template.spec.containers[api].livenessProbe.httpGet.port.
	Field string `json:"field"`
	// Value is the field's current value ("" when the field is missing:
	// requests an autoscaler needs, a key a ConfigMap lacks).
	Value string `json:"value,omitempty"`
	// Want is the value the evidence asks for when it tells (the verb the
	// API refused, the port the container listens on).
	Want string `json:"want,omitempty"`
	// Reason is the analyzer's short reason (StorageClassNotFound, ...).
	Reason string `json:"reason,omitempty"`
}

// Attribute keys of a FieldRef in Finding.Attrs.
const (
	AttrObjectKind      = "object_kind"
	AttrObjectNamespace = "object_namespace"
	AttrObjectName      = "object_name"
	AttrFieldPath       = "field_path"
	AttrFieldValue      = "field_value"
	AttrFieldWant       = "field_want"
	AttrFaultReason     = "fault_reason"
)

// SetAttrs writes the reference into a finding's attributes.
func (r FieldRef) SetAttrs(m map[string]string) {
	m[AttrObjectKind], m[AttrObjectName], m[AttrFieldPath] = r.Kind, r.Name, r.Field
	setNonEmpty(m, AttrObjectNamespace, r.Namespace)
	setNonEmpty(m, AttrFieldValue, r.Value)
	setNonEmpty(m, AttrFieldWant, r.Want)
	setNonEmpty(m, AttrFaultReason, r.Reason)
}

// Attributes of an analyzer's fault: observed when the cluster showed it
// failing (an event, a condition, a log line), not only its configuration;
// capacity when it is a limit that binds under load.
const (
	AttrObserved = "observed"
	AttrCapacity = "capacity"
)

// AttrAltPrefix prefixes the attributes of a second field that may be the
// one at fault (the reference to a Secret key, when nothing in the
// repository produces the Secret).
const AttrAltPrefix = "alt_"

// FieldRefOf reads the reference a finding carries.
func FieldRefOf(attrs map[string]string) (FieldRef, bool) {
	return fieldRefAt(attrs, "")
}

// AltFieldRefOf reads the second reference a finding carries, if any.
func AltFieldRefOf(attrs map[string]string) (FieldRef, bool) {
	return fieldRefAt(attrs, AttrAltPrefix)
}

func fieldRefAt(attrs map[string]string, p string) (FieldRef, bool) {
	r := FieldRef{Kind: attrs[p+AttrObjectKind], Namespace: attrs[p+AttrObjectNamespace], Name: attrs[p+AttrObjectName],
		Field: attrs[p+AttrFieldPath], Value: attrs[p+AttrFieldValue], Want: attrs[p+AttrFieldWant], Reason: attrs[p+AttrFaultReason]}
	return r, r.Kind != "" && r.Name != "" && r.Field != ""
}

// Object names the object: "PersistentVolumeClaim shop/data-pg-0".
func (r FieldRef) Object() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return fmt.Sprintf("%s %s/%s", r.Kind, r.Namespace, r.Name)
}

// Key identifies the field (object and path).
func (r FieldRef) Key() string {
	return strings.Join([]string{r.Kind, r.Namespace, r.Name, r.Field}, "|")
}

func (r FieldRef) String() string { return r.Object() + " " + r.Field }

func setNonEmpty(m map[string]string, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// DeployTarget says where the failing workload's manifests come from: the
// repository, revision and path that a GitOps object (an Argo CD
// Application, a Flux Kustomization or HelmRelease) deploys it from, or the
// configured repository when none resolves (Note says why).
type DeployTarget struct {
	// Source is argocd, flux-kustomization, flux-helmrelease or configured.
	Source string `json:"source"`
	// Object is the GitOps object, e.g. "Application argocd/checkout".
	Object  string `json:"object,omitempty"`
	RepoURL string `json:"repo_url,omitempty"`
	// Repo is owner/name of the repository that was read (the configured
	// one when the target's repository could not be read).
	Repo string `json:"repo,omitempty"`
	Ref  string `json:"ref,omitempty"`
	Path string `json:"path,omitempty"`
	// ValueFiles are Helm values files the object names, in order.
	ValueFiles []string `json:"value_files,omitempty"`
	Note       string   `json:"note,omitempty"`
}

// Attribute keys of a DeployTarget in Finding.Attrs.
const (
	AttrDeploySource     = "deploy_source"
	AttrDeployObject     = "deploy_object"
	AttrDeployRepoURL    = "deploy_repo_url"
	AttrDeployRepo       = "deploy_repo"
	AttrDeployRef        = "deploy_ref"
	AttrDeployPath       = "deploy_path"
	AttrDeployValueFiles = "deploy_value_files"
	AttrDeployNote       = "deploy_note"
)

// SetAttrs writes the target into a finding's attributes.
func (d DeployTarget) SetAttrs(m map[string]string) {
	m[AttrDeploySource] = d.Source
	setNonEmpty(m, AttrDeployObject, d.Object)
	setNonEmpty(m, AttrDeployRepoURL, d.RepoURL)
	setNonEmpty(m, AttrDeployRepo, d.Repo)
	setNonEmpty(m, AttrDeployRef, d.Ref)
	setNonEmpty(m, AttrDeployPath, d.Path)
	setNonEmpty(m, AttrDeployValueFiles, strings.Join(d.ValueFiles, ","))
	setNonEmpty(m, AttrDeployNote, d.Note)
}

// DeployTargetOf reads the target a finding carries.
func DeployTargetOf(attrs map[string]string) (DeployTarget, bool) {
	d := DeployTarget{Source: attrs[AttrDeploySource], Object: attrs[AttrDeployObject], RepoURL: attrs[AttrDeployRepoURL],
		Repo: attrs[AttrDeployRepo], Ref: attrs[AttrDeployRef], Path: attrs[AttrDeployPath], Note: attrs[AttrDeployNote]}
	if v := attrs[AttrDeployValueFiles]; v != "" {
		d.ValueFiles = strings.Split(v, ",")
	}
	return d, d.Source != ""
}

// String is one line for people: "Argo CD Application argocd/shop: github.com/acme/deploy@main apps/shop".
func (d DeployTarget) String() string {
	var b strings.Builder
	switch d.Source {
	case "argocd":
		b.WriteString("Argo CD ")
	case "flux-kustomization", "flux-helmrelease":
		b.WriteString("Flux ")
	}
	if d.Object != "" {
		b.WriteString(d.Object + ": ")
	}
	repo := d.Repo
	if repo == "" {
		repo = d.RepoURL
	}
	b.WriteString(repo)
	if d.Ref != "" {
		b.WriteString("@" + d.Ref)
	}
	if d.Path != "" {
		b.WriteString(" " + d.Path)
	}
	if len(d.ValueFiles) > 0 {
		b.WriteString(" (values " + strings.Join(d.ValueFiles, ", ") + ")")
	}
	return strings.TrimSpace(b.String())
}

// Change says in a few words what a manifest edit does to its value.
func (m ManifestEdit) Change() string {
	switch m.Op {
	case EditAppend:
		if m.OldValue != "" {
			return fmt.Sprintf("add %s to [%s]", m.NewValue, m.OldValue)
		}
		return "add " + m.NewValue
	case EditAdd:
		return "set " + m.NewValue + " (new)"
	}
	return m.OldValue + " -> " + m.NewValue
}
