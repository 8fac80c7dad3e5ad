// Package validate checks rendered Kubernetes manifests offline: every
// document is decoded strictly (unknown or duplicate fields and wrong types
// rejected) into the typed objects of k8s.io/api and prometheus-operator,
// then checked the way the API server's validation and a careful reviewer
// would: names, labels, selectors that match the pods, port names, probes,
// env references, volumes, security contexts and read-only RBAC.
//
// It also renders and lints a chart with Helm's own packages (Render, Lint),
// so a chart can be checked without a helm binary or a cluster.
package validate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Scheme knows the kinds a manifest may contain. A kind outside it is a
// problem: the validator cannot vouch for what it cannot decode.
var Scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme,
		rbacv1.AddToScheme, networkingv1.AddToScheme, autoscalingv2.AddToScheme,
		monitoringv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// Object is one decoded document.
type Object struct {
	// Source is the template that produced it ("autoheal/templates/x.yaml"
	// from Helm's "# Source:" line) or "<file>#<n>".
	Source string
	GVK    schema.GroupVersionKind
	Meta   metav1.Object
	Obj    runtime.Object
}

// Ref names the object as kubectl does: Kind/namespace/name.
func (o *Object) Ref() string {
	if ns := o.Meta.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s/%s/%s", o.GVK.Kind, ns, o.Meta.GetName())
	}
	return fmt.Sprintf("%s/%s", o.GVK.Kind, o.Meta.GetName())
}

// Problem is one finding; every one fails the check.
type Problem struct {
	Source string // template or file
	Object string // Kind/namespace/name, empty when the document did not decode
	Path   string // field path, e.g. spec.template.spec.containers[0].ports[0].name
	Msg    string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Source)
	if p.Object != "" {
		b.WriteString(": " + p.Object)
	}
	if p.Path != "" {
		b.WriteString(": " + p.Path)
	}
	b.WriteString(": " + p.Msg)
	return b.String()
}

var sourceRE = regexp.MustCompile(`(?m)^# Source: (.+)$`)

// Decode splits a YAML stream into documents and decodes each strictly into
// its typed object. name labels documents without a "# Source:" comment.
func Decode(name string, data []byte) ([]*Object, []Problem) {
	var objs []*Object
	var probs []Problem
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		src := fmt.Sprintf("%s#%d", name, i)
		if m := sourceRE.FindSubmatch(doc); m != nil {
			src = string(m[1])
		}
		if err != nil {
			probs = append(probs, Problem{Source: src, Msg: "cannot split the YAML stream: " + err.Error()})
			break
		}
		if isBlank(doc) {
			continue
		}
		o, ps := decodeOne(src, doc)
		probs = append(probs, ps...)
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs, probs
}

// isBlank reports whether a document holds only comments and whitespace.
func isBlank(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		t := strings.TrimSpace(line)
		if t != "" && !strings.HasPrefix(t, "#") && t != "---" {
			return false
		}
	}
	return true
}

func decodeOne(src string, doc []byte) (*Object, []Problem) {
	bad := func(format string, a ...any) []Problem {
		return []Problem{{Source: src, Msg: fmt.Sprintf(format, a...)}}
	}
	// Duplicate keys are an error here (YAML would keep the last one).
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, bad("invalid YAML: %v", err)
	}
	var tm metav1.TypeMeta
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
		return nil, bad("not a Kubernetes object: %v", err)
	}
	if tm.APIVersion == "" || tm.Kind == "" {
		return nil, bad("apiVersion and kind are required (got apiVersion %q, kind %q)", tm.APIVersion, tm.Kind)
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return nil, bad("apiVersion %q: %v", tm.APIVersion, err)
	}
	gvk := gv.WithKind(tm.Kind)
	obj, err := Scheme.New(gvk)
	if err != nil {
		return nil, bad("unknown kind %s %s: not in the Kubernetes API this validator knows (a typo in apiVersion or kind, or a removed API version?)", tm.APIVersion, tm.Kind)
	}
	strict, err := sigsjson.UnmarshalStrict(js, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, bad("%s %s does not decode: %s", tm.APIVersion, tm.Kind, cleanJSONError(err))
	}
	var probs []Problem
	for _, e := range strict {
		probs = append(probs, Problem{Source: src, Msg: fmt.Sprintf("%s %s: %s", tm.APIVersion, tm.Kind, cleanJSONError(e))})
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, append(probs, bad("%s has no object metadata", gvk)...)
	}
	o := &Object{Source: src, GVK: gvk, Meta: m, Obj: obj}
	for i := range probs {
		probs[i].Object = o.Ref()
	}
	return o, probs
}

// cleanJSONError turns Go's JSON error into the field language of manifests.
func cleanJSONError(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "json: ")
	s = strings.TrimPrefix(s, "error unmarshaling JSON: while decoding JSON: json: ")
	return s
}
