package validate

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	pathvalidation "k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Options tune Check.
type Options struct {
	// Namespace every namespaced object must be in (empty: any). Objects
	// of the kinds in OtherNamespaces may be elsewhere.
	Namespace string
	// OtherNamespaceKinds may live outside Namespace (RBAC granted in the
	// namespaces the bot reads, a ServiceMonitor in Prometheus' namespace).
	OtherNamespaceKinds []string
}

// DefaultOptions are the rules for this repository's chart.
func DefaultOptions(namespace string) Options {
	return Options{Namespace: namespace, OtherNamespaceKinds: []string{"Role", "RoleBinding", "ServiceMonitor"}}
}

// workload is a pod template with where it came from.
type workload struct {
	obj      *Object
	selector *metav1.LabelSelector
	replicas int32
	tmpl     *corev1.PodTemplateSpec
	path     *field.Path // of the pod template
}

type checker struct {
	opts   Options
	objs   []*Object
	probs  []Problem
	byKind map[string][]*Object
	pods   []workload
}

// Check validates every object and the references between them.
func Check(objs []*Object, opts Options) []Problem {
	c := &checker{opts: opts, objs: objs, byKind: map[string][]*Object{}}
	for _, o := range objs {
		c.byKind[o.GVK.Kind] = append(c.byKind[o.GVK.Kind], o)
		switch t := o.Obj.(type) {
		case *appsv1.Deployment:
			c.pods = append(c.pods, workload{o, t.Spec.Selector, ptrOr(t.Spec.Replicas, 1), &t.Spec.Template, field.NewPath("spec", "template")})
		case *appsv1.StatefulSet:
			c.pods = append(c.pods, workload{o, t.Spec.Selector, ptrOr(t.Spec.Replicas, 1), &t.Spec.Template, field.NewPath("spec", "template")})
		case *appsv1.DaemonSet:
			c.pods = append(c.pods, workload{o, t.Spec.Selector, 1, &t.Spec.Template, field.NewPath("spec", "template")})
		}
	}
	c.unique()
	for _, o := range objs {
		c.metadata(o)
		switch t := o.Obj.(type) {
		case *appsv1.Deployment:
			c.deployment(o, t)
		case *appsv1.StatefulSet:
			c.statefulSet(o, t)
		case *corev1.Service:
			c.service(o, t)
		case *corev1.ConfigMap:
			c.configMap(o, t)
		case *corev1.Secret:
			c.secret(o, t)
		case *policyv1.PodDisruptionBudget:
			c.pdb(o, t)
		case *networkingv1.NetworkPolicy:
			c.networkPolicy(o, t)
		case *rbacv1.Role:
			c.rules(o, t.Rules)
		case *rbacv1.ClusterRole:
			c.rules(o, t.Rules)
		case *rbacv1.RoleBinding:
			c.binding(o, t.RoleRef, t.Subjects)
		case *rbacv1.ClusterRoleBinding:
			c.binding(o, t.RoleRef, t.Subjects)
		case *monitoringv1.ServiceMonitor:
			c.serviceMonitor(o, t)
		}
	}
	for _, w := range c.pods {
		c.podSpec(w)
	}
	sort.SliceStable(c.probs, func(i, j int) bool { return c.probs[i].Source < c.probs[j].Source })
	return c.probs
}

func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func (c *checker) add(o *Object, path *field.Path, format string, a ...any) {
	p := Problem{Source: o.Source, Object: o.Ref(), Msg: fmt.Sprintf(format, a...)}
	if path != nil {
		p.Path = path.String()
	}
	c.probs = append(c.probs, p)
}

func (c *checker) addErrs(o *Object, errs field.ErrorList) {
	for _, e := range errs {
		c.probs = append(c.probs, Problem{Source: o.Source, Object: o.Ref(), Path: e.Field, Msg: e.ErrorBody()})
	}
}

func (c *checker) find(kind, namespace, name string) *Object {
	for _, o := range c.byKind[kind] {
		if o.Meta.GetName() == name && (namespace == "" || o.Meta.GetNamespace() == namespace) {
			return o
		}
	}
	return nil
}

// unique: two objects of one kind may not share a namespace and name.
func (c *checker) unique() {
	seen := map[string]*Object{}
	for _, o := range c.objs {
		k := o.GVK.GroupKind().String() + "/" + o.Meta.GetNamespace() + "/" + o.Meta.GetName()
		if prev, ok := seen[k]; ok {
			c.add(o, nil, "duplicate object: %s already rendered by %s", o.Ref(), prev.Source)
		}
		seen[k] = o
	}
}

var clusterScoped = map[string]bool{"ClusterRole": true, "ClusterRoleBinding": true, "Namespace": true, "PersistentVolume": true, "StorageClass": true, "PriorityClass": true}

// metadata: names, namespaces, labels and annotations.
func (c *checker) metadata(o *Object) {
	mp := field.NewPath("metadata")
	name := o.Meta.GetName()
	switch {
	case name == "":
		c.add(o, mp.Child("name"), "required")
	case o.GVK.Kind == "Service" || o.GVK.Kind == "Namespace":
		for _, m := range apivalidation.NameIsDNS1035Label(name, false) {
			c.add(o, mp.Child("name"), "%q: %s", name, m)
		}
	case strings.HasPrefix(o.GVK.Kind, "Cluster") || o.GVK.Kind == "Role" || o.GVK.Kind == "RoleBinding":
		// RBAC names are path segments.
		for _, m := range pathvalidation.ValidatePathSegmentName(name, false) {
			c.add(o, mp.Child("name"), "%q: %s", name, m)
		}
	default:
		for _, m := range apivalidation.NameIsDNSSubdomain(name, false) {
			c.add(o, mp.Child("name"), "%q: %s", name, m)
		}
	}
	ns := o.Meta.GetNamespace()
	if clusterScoped[o.GVK.Kind] {
		if ns != "" {
			c.add(o, mp.Child("namespace"), "%s is cluster-scoped and takes no namespace", o.GVK.Kind)
		}
	} else {
		switch {
		case ns == "" && c.opts.Namespace != "":
			c.add(o, mp.Child("namespace"), "required: set it to the release namespace so `helm template | kubectl apply` lands in the right place")
		case ns != "":
			for _, m := range validation.IsDNS1123Label(ns) {
				c.add(o, mp.Child("namespace"), "%q: %s", ns, m)
			}
			if c.opts.Namespace != "" && ns != c.opts.Namespace && !slices.Contains(c.opts.OtherNamespaceKinds, o.GVK.Kind) {
				c.add(o, mp.Child("namespace"), "%q: expected the release namespace %q", ns, c.opts.Namespace)
			}
		}
	}
	c.addErrs(o, metavalidation.ValidateLabels(o.Meta.GetLabels(), mp.Child("labels")))
	c.addErrs(o, apivalidation.ValidateAnnotations(o.Meta.GetAnnotations(), mp.Child("annotations")))
}

// selectorFor checks a label selector and returns it parsed (nil when bad).
func (c *checker) selectorFor(o *Object, path *field.Path, sel *metav1.LabelSelector, required bool) labels.Selector {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		if required {
			c.add(o, path, "required: an empty selector selects everything")
		}
		return nil
	}
	errs := metavalidation.ValidateLabelSelector(sel, metavalidation.LabelSelectorValidationOptions{}, path)
	if len(errs) > 0 {
		c.addErrs(o, errs)
		return nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		c.add(o, path, "%v", err)
		return nil
	}
	return s
}

// podsMatching returns the workloads whose pod labels the selector matches.
func (c *checker) podsMatching(sel labels.Selector, namespace string) []workload {
	var out []workload
	for _, w := range c.pods {
		if namespace != "" && w.obj.Meta.GetNamespace() != namespace {
			continue
		}
		if sel.Matches(labels.Set(w.tmpl.Labels)) {
			out = append(out, w)
		}
	}
	return out
}

func (c *checker) workloadSelector(w workload) {
	sp := field.NewPath("spec", "selector")
	sel := c.selectorFor(w.obj, sp, w.selector, true)
	if sel == nil {
		return
	}
	if !sel.Matches(labels.Set(w.tmpl.Labels)) {
		c.add(w.obj, sp, "selector %q does not match the pod template labels %v: the controller would never own its pods", sel.String(), w.tmpl.Labels)
	}
	c.addErrs(w.obj, metavalidation.ValidateLabels(w.tmpl.Labels, w.path.Child("metadata", "labels")))
	c.addErrs(w.obj, apivalidation.ValidateAnnotations(w.tmpl.Annotations, w.path.Child("metadata", "annotations")))
}

func (c *checker) deployment(o *Object, d *appsv1.Deployment) {
	c.workloadSelector(workload{o, d.Spec.Selector, ptrOr(d.Spec.Replicas, 1), &d.Spec.Template, field.NewPath("spec", "template")})
	if d.Spec.Replicas != nil && *d.Spec.Replicas < 0 {
		c.add(o, field.NewPath("spec", "replicas"), "must be >= 0")
	}
	st := d.Spec.Strategy
	sp := field.NewPath("spec", "strategy")
	switch st.Type {
	case "", appsv1.RollingUpdateDeploymentStrategyType:
		if ru := st.RollingUpdate; ru != nil {
			zero := func(v *intstr.IntOrString) bool {
				return v != nil && ((v.Type == intstr.Int && v.IntVal == 0) || (v.Type == intstr.String && (v.StrVal == "0%" || v.StrVal == "0")))
			}
			if zero(ru.MaxSurge) && zero(ru.MaxUnavailable) {
				c.add(o, sp.Child("rollingUpdate"), "maxSurge and maxUnavailable may not both be 0")
			}
			for _, v := range []*intstr.IntOrString{ru.MaxSurge, ru.MaxUnavailable} {
				c.intOrPercent(o, sp.Child("rollingUpdate"), v)
			}
		}
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			c.add(o, sp.Child("rollingUpdate"), "may not be set with type Recreate")
		}
	default:
		c.add(o, sp.Child("type"), "%q: want RollingUpdate or Recreate", st.Type)
	}
}

func (c *checker) intOrPercent(o *Object, path *field.Path, v *intstr.IntOrString) {
	if v == nil {
		return
	}
	if v.Type == intstr.String {
		if !regexp.MustCompile(`^[0-9]+%$`).MatchString(v.StrVal) {
			c.add(o, path, "%q: want an integer or a percentage such as 25%%", v.StrVal)
		}
	} else if v.IntVal < 0 {
		c.add(o, path, "%d: must be >= 0", v.IntVal)
	}
}

func (c *checker) statefulSet(o *Object, s *appsv1.StatefulSet) {
	w := workload{o, s.Spec.Selector, ptrOr(s.Spec.Replicas, 1), &s.Spec.Template, field.NewPath("spec", "template")}
	c.workloadSelector(w)
	sp := field.NewPath("spec")
	if s.Spec.ServiceName != "" {
		svc := c.find("Service", o.Meta.GetNamespace(), s.Spec.ServiceName)
		switch {
		case svc == nil:
			c.add(o, sp.Child("serviceName"), "%q: no such Service in the manifests (the StatefulSet's governing headless Service)", s.Spec.ServiceName)
		case svc.Obj.(*corev1.Service).Spec.ClusterIP != corev1.ClusterIPNone:
			c.add(o, sp.Child("serviceName"), "%q: the governing Service must be headless (clusterIP: None)", s.Spec.ServiceName)
		}
	}
	for i, pvc := range s.Spec.VolumeClaimTemplates {
		p := sp.Child("volumeClaimTemplates").Index(i)
		if pvc.Name == "" {
			c.add(o, p.Child("metadata", "name"), "required")
		}
		if len(pvc.Spec.AccessModes) == 0 {
			c.add(o, p.Child("spec", "accessModes"), "required")
		}
		if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; !ok || q.Sign() <= 0 {
			c.add(o, p.Child("spec", "resources", "requests", "storage"), "required and > 0")
		}
	}
}

// podSpec checks one pod template: containers, ports, probes, env, volumes,
// security and scheduling.
func (c *checker) podSpec(w workload) {
	o, spec, sp := w.obj, &w.tmpl.Spec, w.path.Child("spec")
	if len(spec.Containers) == 0 {
		c.add(o, sp.Child("containers"), "required: at least one container")
	}
	volumes := map[string]*corev1.Volume{}
	usedVolumes := map[string]bool{}
	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		vp := sp.Child("volumes").Index(i)
		for _, m := range validation.IsDNS1123Label(v.Name) {
			c.add(o, vp.Child("name"), "%q: %s", v.Name, m)
		}
		if _, dup := volumes[v.Name]; dup {
			c.add(o, vp.Child("name"), "duplicate volume %q", v.Name)
		}
		volumes[v.Name] = v
		c.volume(o, vp, v)
	}
	if sts, ok := o.Obj.(*appsv1.StatefulSet); ok {
		for _, pvc := range sts.Spec.VolumeClaimTemplates {
			if _, dup := volumes[pvc.Name]; dup {
				c.add(o, sp.Child("volumes"), "volume %q is also a volumeClaimTemplate", pvc.Name)
			}
			volumes[pvc.Name] = &corev1.Volume{Name: pvc.Name}
		}
	}
	names := map[string]bool{}
	portNames := map[string]bool{}
	all := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
	for i := range all {
		ct := &all[i]
		var cp *field.Path
		if i < len(spec.InitContainers) {
			cp = sp.Child("initContainers").Index(i)
		} else {
			cp = sp.Child("containers").Index(i - len(spec.InitContainers))
		}
		for _, m := range validation.IsDNS1123Label(ct.Name) {
			c.add(o, cp.Child("name"), "%q: %s", ct.Name, m)
		}
		if names[ct.Name] {
			c.add(o, cp.Child("name"), "duplicate container name %q", ct.Name)
		}
		names[ct.Name] = true
		c.container(o, cp, ct, spec, volumes, usedVolumes, portNames)
	}
	for name := range volumes {
		if !usedVolumes[name] {
			c.add(o, sp.Child("volumes"), "volume %q is mounted by no container", name)
		}
	}
	c.podSecurity(o, sp, spec)
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		c.add(o, sp.Child("terminationGracePeriodSeconds"), "must be >= 0")
	}
	if sa := spec.ServiceAccountName; sa != "" && sa != "default" && len(c.byKind["ServiceAccount"]) > 0 && c.find("ServiceAccount", o.Meta.GetNamespace(), sa) == nil {
		c.add(o, sp.Child("serviceAccountName"), "%q: no such ServiceAccount in the manifests", sa)
	}
	for i, tsc := range spec.TopologySpreadConstraints {
		tp := sp.Child("topologySpreadConstraints").Index(i)
		if tsc.MaxSkew <= 0 {
			c.add(o, tp.Child("maxSkew"), "must be > 0")
		}
		if tsc.TopologyKey == "" {
			c.add(o, tp.Child("topologyKey"), "required")
		}
		if tsc.WhenUnsatisfiable != corev1.DoNotSchedule && tsc.WhenUnsatisfiable != corev1.ScheduleAnyway {
			c.add(o, tp.Child("whenUnsatisfiable"), "%q: want DoNotSchedule or ScheduleAnyway", tsc.WhenUnsatisfiable)
		}
		if sel := c.selectorFor(o, tp.Child("labelSelector"), tsc.LabelSelector, true); sel != nil && !sel.Matches(labels.Set(w.tmpl.Labels)) {
			c.add(o, tp.Child("labelSelector"), "%q does not match the pod's own labels: the constraint would spread nothing", sel.String())
		}
	}
	for i, s := range spec.ImagePullSecrets {
		if s.Name == "" {
			c.add(o, sp.Child("imagePullSecrets").Index(i).Child("name"), "required")
		}
	}
}

func (c *checker) volume(o *Object, vp *field.Path, v *corev1.Volume) {
	vs := v.VolumeSource
	n := 0
	for _, set := range []bool{vs.EmptyDir != nil, vs.ConfigMap != nil, vs.Secret != nil, vs.PersistentVolumeClaim != nil, vs.Projected != nil, vs.DownwardAPI != nil, vs.HostPath != nil, vs.CSI != nil, vs.Ephemeral != nil, vs.NFS != nil, vs.Image != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		c.add(o, vp, "exactly one volume source must be set (got %d)", n)
	}
	if vs.HostPath != nil {
		c.add(o, vp.Child("hostPath"), "hostPath volumes are not allowed (restricted Pod Security Standard)")
	}
	if cm := vs.ConfigMap; cm != nil {
		if cm.Name == "" {
			c.add(o, vp.Child("configMap", "name"), "required")
		}
		if obj := c.find("ConfigMap", o.Meta.GetNamespace(), cm.Name); obj != nil {
			data := obj.Obj.(*corev1.ConfigMap)
			for j, it := range cm.Items {
				_, a := data.Data[it.Key]
				_, b := data.BinaryData[it.Key]
				if !a && !b && !ptrOr(cm.Optional, false) {
					c.add(o, vp.Child("configMap", "items").Index(j).Child("key"), "%q: ConfigMap %q has no such key", it.Key, cm.Name)
				}
			}
		}
		c.keyToPaths(o, vp.Child("configMap", "items"), cm.Items)
		c.mode(o, vp.Child("configMap", "defaultMode"), cm.DefaultMode)
	}
	if s := vs.Secret; s != nil {
		if s.SecretName == "" {
			c.add(o, vp.Child("secret", "secretName"), "required")
		}
		c.keyToPaths(o, vp.Child("secret", "items"), s.Items)
		c.mode(o, vp.Child("secret", "defaultMode"), s.DefaultMode)
	}
	if ed := vs.EmptyDir; ed != nil && ed.SizeLimit != nil && ed.SizeLimit.Sign() <= 0 {
		c.add(o, vp.Child("emptyDir", "sizeLimit"), "must be > 0")
	}
}

func (c *checker) keyToPaths(o *Object, p *field.Path, items []corev1.KeyToPath) {
	for j, it := range items {
		for _, m := range validation.IsConfigMapKey(it.Key) {
			c.add(o, p.Index(j).Child("key"), "%q: %s", it.Key, m)
		}
		if it.Path == "" || strings.HasPrefix(it.Path, "/") || slices.Contains(strings.Split(it.Path, "/"), "..") {
			c.add(o, p.Index(j).Child("path"), "%q: want a relative path without '..'", it.Path)
		}
	}
}

func (c *checker) mode(o *Object, p *field.Path, m *int32) {
	if m != nil && (*m < 0 || *m > 0o777) {
		c.add(o, p, "%d: want a file mode between 0 and 0777 (octal)", *m)
	}
}

var varRefRE = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

func (c *checker) container(o *Object, cp *field.Path, ct *corev1.Container, spec *corev1.PodSpec, volumes map[string]*corev1.Volume, used, podPorts map[string]bool) {
	if strings.TrimSpace(ct.Image) == "" || strings.ContainsAny(ct.Image, " \t\n") {
		c.add(o, cp.Child("image"), "%q: want an image reference", ct.Image)
	} else if strings.HasSuffix(ct.Image, ":") || strings.HasSuffix(ct.Image, ":latest") {
		c.add(o, cp.Child("image"), "%q: pin a tag or digest (an empty or latest tag)", ct.Image)
	}
	switch ct.ImagePullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		c.add(o, cp.Child("imagePullPolicy"), "%q: want Always, IfNotPresent or Never", ct.ImagePullPolicy)
	}
	// Ports.
	ports := map[string]int32{}
	numbers := map[int32]bool{}
	for i, p := range ct.Ports {
		pp := cp.Child("ports").Index(i)
		if p.ContainerPort < 1 || p.ContainerPort > 65535 {
			c.add(o, pp.Child("containerPort"), "%d: want 1-65535", p.ContainerPort)
		}
		switch p.Protocol {
		case "", corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		default:
			c.add(o, pp.Child("protocol"), "%q: want TCP, UDP or SCTP", p.Protocol)
		}
		if p.Name != "" {
			for _, m := range validation.IsValidPortName(p.Name) {
				c.add(o, pp.Child("name"), "%q: %s", p.Name, m)
			}
			if podPorts[p.Name] {
				c.add(o, pp.Child("name"), "duplicate port name %q in the pod", p.Name)
			}
			podPorts[p.Name] = true
			ports[p.Name] = p.ContainerPort
		}
		numbers[p.ContainerPort] = true
	}
	// Environment: names, sources, $(VAR) references.
	defined := map[string]bool{}
	for i, e := range ct.Env {
		ep := cp.Child("env").Index(i)
		for _, m := range validation.IsEnvVarName(e.Name) {
			c.add(o, ep.Child("name"), "%q: %s", e.Name, m)
		}
		if defined[e.Name] {
			c.add(o, ep.Child("name"), "duplicate variable %q (the last one silently wins)", e.Name)
		}
		if e.Value != "" && e.ValueFrom != nil {
			c.add(o, ep, "value and valueFrom are exclusive")
		}
		if vf := e.ValueFrom; vf != nil {
			n := 0
			if vf.FieldRef != nil {
				n++
			}
			if vf.ResourceFieldRef != nil {
				n++
			}
			if r := vf.SecretKeyRef; r != nil {
				n++
				c.keyRef(o, ep.Child("valueFrom", "secretKeyRef"), r.Name, r.Key)
			}
			if r := vf.ConfigMapKeyRef; r != nil {
				n++
				c.keyRef(o, ep.Child("valueFrom", "configMapKeyRef"), r.Name, r.Key)
				if cm := c.find("ConfigMap", o.Meta.GetNamespace(), r.Name); cm != nil && !ptrOr(r.Optional, false) {
					if _, ok := cm.Obj.(*corev1.ConfigMap).Data[r.Key]; !ok {
						c.add(o, ep.Child("valueFrom", "configMapKeyRef", "key"), "%q: ConfigMap %q has no such key", r.Key, r.Name)
					}
				}
			}
			if vf.FileKeyRef != nil {
				n++
			}
			if n != 1 {
				c.add(o, ep.Child("valueFrom"), "exactly one source must be set (got %d)", n)
			}
		}
		for _, m := range varRefRE.FindAllStringSubmatch(e.Value, -1) {
			if !defined[m[1]] {
				c.add(o, ep.Child("value"), "$(%s) refers to no variable defined before it in env: Kubernetes would pass the text unexpanded", m[1])
			}
		}
		defined[e.Name] = true
	}
	for i, ef := range ct.EnvFrom {
		ep := cp.Child("envFrom").Index(i)
		n := 0
		if ef.ConfigMapRef != nil {
			n++
			if ef.ConfigMapRef.Name == "" {
				c.add(o, ep.Child("configMapRef", "name"), "required")
			} else if cm := c.find("ConfigMap", o.Meta.GetNamespace(), ef.ConfigMapRef.Name); cm != nil {
				for k := range cm.Obj.(*corev1.ConfigMap).Data {
					if len(validation.IsEnvVarName(k)) > 0 && ef.Prefix == "" {
						c.add(o, ep.Child("configMapRef"), "ConfigMap %q key %q is not a variable name: the kubelet would skip it", ef.ConfigMapRef.Name, k)
					}
					defined[ef.Prefix+k] = true
				}
			}
		}
		if ef.SecretRef != nil {
			n++
			if ef.SecretRef.Name == "" {
				c.add(o, ep.Child("secretRef", "name"), "required")
			}
		}
		if n != 1 {
			c.add(o, ep, "exactly one of configMapRef and secretRef must be set")
		}
	}
	for _, list := range []struct {
		name string
		vals []string
	}{{"command", ct.Command}, {"args", ct.Args}} {
		for i, a := range list.vals {
			for _, m := range varRefRE.FindAllStringSubmatch(a, -1) {
				if !defined[m[1]] {
					c.add(o, cp.Child(list.name).Index(i), "$(%s) refers to no variable of the container: Kubernetes would pass the text unexpanded", m[1])
				}
			}
		}
	}
	// Volume mounts.
	paths := map[string]bool{}
	for i, vm := range ct.VolumeMounts {
		mp := cp.Child("volumeMounts").Index(i)
		if _, ok := volumes[vm.Name]; !ok {
			c.add(o, mp.Child("name"), "%q: no such volume in the pod", vm.Name)
		}
		used[vm.Name] = true
		if !strings.HasPrefix(vm.MountPath, "/") {
			c.add(o, mp.Child("mountPath"), "%q: want an absolute path", vm.MountPath)
		}
		if paths[vm.MountPath] {
			c.add(o, mp.Child("mountPath"), "%q is mounted twice", vm.MountPath)
		}
		paths[vm.MountPath] = true
		if strings.HasPrefix(vm.SubPath, "/") || slices.Contains(strings.Split(vm.SubPath, "/"), "..") {
			c.add(o, mp.Child("subPath"), "%q: want a relative path without '..'", vm.SubPath)
		}
	}
	// Probes.
	for _, pr := range []struct {
		name  string
		probe *corev1.Probe
	}{{"livenessProbe", ct.LivenessProbe}, {"readinessProbe", ct.ReadinessProbe}, {"startupProbe", ct.StartupProbe}} {
		if pr.probe != nil {
			c.probe(o, cp.Child(pr.name), pr.name, pr.probe, ports, numbers)
		}
	}
	if lc := ct.Lifecycle; lc != nil {
		for name, h := range map[string]*corev1.LifecycleHandler{"postStart": lc.PostStart, "preStop": lc.PreStop} {
			if h == nil {
				continue
			}
			hp := cp.Child("lifecycle", name)
			n := 0
			for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.Sleep != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				c.add(o, hp, "exactly one handler must be set (got %d)", n)
			}
			if h.Sleep != nil && h.Sleep.Seconds <= 0 {
				c.add(o, hp.Child("sleep", "seconds"), "must be > 0")
			}
			if h.Sleep != nil && spec.TerminationGracePeriodSeconds != nil && h.Sleep.Seconds >= *spec.TerminationGracePeriodSeconds {
				c.add(o, hp.Child("sleep", "seconds"), "%d s leaves no time of the %d s grace period for the drain", h.Sleep.Seconds, *spec.TerminationGracePeriodSeconds)
			}
		}
	}
	c.resources(o, cp.Child("resources"), ct.Resources)
	c.containerSecurity(o, cp, ct, spec)
}

func (c *checker) keyRef(o *Object, p *field.Path, name, key string) {
	if name == "" {
		c.add(o, p.Child("name"), "required")
	} else if len(validation.IsDNS1123Subdomain(name)) > 0 {
		c.add(o, p.Child("name"), "%q is not a valid object name", name)
	}
	if key == "" {
		c.add(o, p.Child("key"), "required")
	} else {
		for _, m := range validation.IsConfigMapKey(key) {
			c.add(o, p.Child("key"), "%q: %s", key, m)
		}
	}
}

func (c *checker) probe(o *Object, p *field.Path, kind string, pr *corev1.Probe, ports map[string]int32, numbers map[int32]bool) {
	h := pr.ProbeHandler
	n := 0
	for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.GRPC != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		c.add(o, p, "exactly one of exec, httpGet, tcpSocket and grpc must be set (got %d)", n)
	}
	port := func(pp *field.Path, v intstr.IntOrString) {
		if v.Type == intstr.String {
			if _, ok := ports[v.StrVal]; !ok {
				c.add(o, pp, "%q: the container declares no port of that name (ports: %s)", v.StrVal, portList(ports))
			}
		} else if v.IntVal < 1 || v.IntVal > 65535 {
			c.add(o, pp, "%d: want 1-65535", v.IntVal)
		}
	}
	if g := h.HTTPGet; g != nil {
		if !strings.HasPrefix(g.Path, "/") {
			c.add(o, p.Child("httpGet", "path"), "%q: want an absolute path such as /healthz", g.Path)
		}
		port(p.Child("httpGet", "port"), g.Port)
		if g.Scheme != "" && g.Scheme != corev1.URISchemeHTTP && g.Scheme != corev1.URISchemeHTTPS {
			c.add(o, p.Child("httpGet", "scheme"), "%q: want HTTP or HTTPS", g.Scheme)
		}
	}
	if t := h.TCPSocket; t != nil {
		port(p.Child("tcpSocket", "port"), t.Port)
	}
	if e := h.Exec; e != nil && len(e.Command) == 0 {
		c.add(o, p.Child("exec", "command"), "required")
	}
	for name, v := range map[string]int32{"initialDelaySeconds": pr.InitialDelaySeconds, "timeoutSeconds": pr.TimeoutSeconds, "periodSeconds": pr.PeriodSeconds, "successThreshold": pr.SuccessThreshold, "failureThreshold": pr.FailureThreshold} {
		if v < 0 {
			c.add(o, p.Child(name), "must be >= 0")
		}
	}
	if kind != "readinessProbe" && pr.SuccessThreshold > 1 {
		c.add(o, p.Child("successThreshold"), "must be 1 for %s", kind)
	}
	if pr.PeriodSeconds > 0 && pr.TimeoutSeconds > pr.PeriodSeconds {
		c.add(o, p.Child("timeoutSeconds"), "%d s is longer than the period (%d s)", pr.TimeoutSeconds, pr.PeriodSeconds)
	}
}

func portList(ports map[string]int32) string {
	if len(ports) == 0 {
		return "none named"
	}
	var s []string
	for n, p := range ports {
		s = append(s, fmt.Sprintf("%s=%d", n, p))
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

func (c *checker) resources(o *Object, p *field.Path, r corev1.ResourceRequirements) {
	for name, q := range r.Requests {
		if q.Sign() < 0 {
			c.add(o, p.Child("requests", string(name)), "must be >= 0")
		}
		if l, ok := r.Limits[name]; ok && q.Cmp(l) > 0 {
			c.add(o, p.Child("requests", string(name)), "request %s is above the limit %s", q.String(), l.String())
		}
	}
	if _, ok := r.Requests[corev1.ResourceMemory]; !ok {
		c.add(o, p.Child("requests", "memory"), "required: every container requests memory")
	}
	if _, ok := r.Limits[corev1.ResourceMemory]; !ok {
		c.add(o, p.Child("limits", "memory"), "required: every container has a memory limit")
	}
}

// podSecurity: the restricted Pod Security Standard at pod level.
func (c *checker) podSecurity(o *Object, sp *field.Path, spec *corev1.PodSpec) {
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		c.add(o, sp, "hostNetwork, hostPID and hostIPC must be false")
	}
	if sc := spec.SecurityContext; sc != nil {
		if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			c.add(o, sp.Child("securityContext", "runAsUser"), "0 is root: run as a non-root UID")
		}
		if sc.RunAsGroup != nil && *sc.RunAsGroup == 0 {
			c.add(o, sp.Child("securityContext", "runAsGroup"), "0 is the root group")
		}
		c.seccomp(o, sp.Child("securityContext", "seccompProfile"), sc.SeccompProfile)
	}
}

func (c *checker) seccomp(o *Object, p *field.Path, s *corev1.SeccompProfile) {
	if s == nil {
		return
	}
	switch s.Type {
	case corev1.SeccompProfileTypeRuntimeDefault:
	case corev1.SeccompProfileTypeLocalhost:
		if ptrOr(s.LocalhostProfile, "") == "" {
			c.add(o, p.Child("localhostProfile"), "required with type Localhost")
		}
	default:
		c.add(o, p.Child("type"), "%q: want RuntimeDefault or Localhost (restricted Pod Security Standard)", s.Type)
	}
}

// containerSecurity: the restricted Pod Security Standard, plus a read-only
// root filesystem, with the pod's settings as defaults.
func (c *checker) containerSecurity(o *Object, cp *field.Path, ct *corev1.Container, spec *corev1.PodSpec) {
	pod := spec.SecurityContext
	if pod == nil {
		pod = &corev1.PodSecurityContext{}
	}
	sc := ct.SecurityContext
	p := cp.Child("securityContext")
	if sc == nil {
		c.add(o, p, "required: allowPrivilegeEscalation=false, readOnlyRootFilesystem=true, capabilities.drop=[ALL]")
		return
	}
	if ptrOr(sc.Privileged, false) {
		c.add(o, p.Child("privileged"), "must be false")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		c.add(o, p.Child("allowPrivilegeEscalation"), "must be false")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		c.add(o, p.Child("readOnlyRootFilesystem"), "must be true (mount an emptyDir where the process writes)")
	}
	nonRoot := ptrOr(sc.RunAsNonRoot, ptrOr(pod.RunAsNonRoot, false))
	if !nonRoot {
		c.add(o, p.Child("runAsNonRoot"), "must be true (in the container or the pod)")
	}
	if uid := sc.RunAsUser; uid != nil && *uid == 0 {
		c.add(o, p.Child("runAsUser"), "0 is root: run as a non-root UID")
	}
	if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		c.add(o, p.Child("capabilities", "drop"), "must contain ALL")
	}
	if sc.Capabilities != nil {
		for i, a := range sc.Capabilities.Add {
			if a != "NET_BIND_SERVICE" {
				c.add(o, p.Child("capabilities", "add").Index(i), "%q: only NET_BIND_SERVICE may be added", a)
			}
		}
	}
	if sc.SeccompProfile == nil && pod.SeccompProfile == nil {
		c.add(o, p.Child("seccompProfile"), "required (RuntimeDefault) in the container or the pod")
	}
	c.seccomp(o, p.Child("seccompProfile"), sc.SeccompProfile)
}

func (c *checker) service(o *Object, s *corev1.Service) {
	sp := field.NewPath("spec")
	switch s.Spec.Type {
	case "", corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
	case corev1.ServiceTypeExternalName:
		return
	default:
		c.add(o, sp.Child("type"), "%q: want ClusterIP, NodePort, LoadBalancer or ExternalName", s.Spec.Type)
	}
	if len(s.Spec.Ports) == 0 {
		c.add(o, sp.Child("ports"), "required")
	}
	names := map[string]bool{}
	for i, p := range s.Spec.Ports {
		pp := sp.Child("ports").Index(i)
		if p.Name == "" && len(s.Spec.Ports) > 1 {
			c.add(o, pp.Child("name"), "required when a Service has several ports")
		}
		if p.Name != "" {
			for _, m := range validation.IsDNS1123Label(p.Name) {
				c.add(o, pp.Child("name"), "%q: %s", p.Name, m)
			}
			if names[p.Name] {
				c.add(o, pp.Child("name"), "duplicate port name %q", p.Name)
			}
			names[p.Name] = true
		}
		if p.Port < 1 || p.Port > 65535 {
			c.add(o, pp.Child("port"), "%d: want 1-65535", p.Port)
		}
	}
	if len(s.Spec.Selector) == 0 {
		return // endpoints managed elsewhere
	}
	sel := labels.SelectorFromSet(s.Spec.Selector)
	c.addErrs(o, metavalidation.ValidateLabels(s.Spec.Selector, sp.Child("selector")))
	matched := c.podsMatching(sel, o.Meta.GetNamespace())
	if len(matched) == 0 {
		c.add(o, sp.Child("selector"), "%q selects no pod of the manifests: the Service would have no endpoints", sel.String())
		return
	}
	for i, p := range s.Spec.Ports {
		tp := p.TargetPort
		if tp.Type == intstr.Int && tp.IntVal == 0 {
			tp = intstr.FromInt32(p.Port)
		}
		for _, w := range matched {
			if !podHasPort(w.tmpl, tp) {
				c.add(o, sp.Child("ports").Index(i).Child("targetPort"), "%s: the pods of %s declare no such port", tp.String(), w.obj.Ref())
			}
		}
	}
}

func podHasPort(t *corev1.PodTemplateSpec, port intstr.IntOrString) bool {
	for _, ct := range t.Spec.Containers {
		for _, p := range ct.Ports {
			if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.ContainerPort == port.IntVal) {
				return true
			}
		}
	}
	return false
}

func (c *checker) configMap(o *Object, cm *corev1.ConfigMap) {
	size := 0
	for k, v := range cm.Data {
		for _, m := range validation.IsConfigMapKey(k) {
			c.add(o, field.NewPath("data").Key(k), "%s", m)
		}
		if _, dup := cm.BinaryData[k]; dup {
			c.add(o, field.NewPath("binaryData").Key(k), "also in data")
		}
		size += len(k) + len(v)
		if strings.HasSuffix(k, ".yaml") || strings.HasSuffix(k, ".yml") {
			var any any
			if err := yaml.Unmarshal([]byte(v), &any); err != nil {
				c.add(o, field.NewPath("data").Key(k), "not valid YAML: %v", err)
			}
		}
	}
	if size > 1<<20 {
		c.add(o, field.NewPath("data"), "%d bytes: a ConfigMap holds at most 1 MiB", size)
	}
}

func (c *checker) secret(o *Object, s *corev1.Secret) {
	for k := range s.StringData {
		for _, m := range validation.IsConfigMapKey(k) {
			c.add(o, field.NewPath("stringData").Key(k), "%s", m)
		}
	}
	for k := range s.Data {
		for _, m := range validation.IsConfigMapKey(k) {
			c.add(o, field.NewPath("data").Key(k), "%s", m)
		}
	}
}

func (c *checker) pdb(o *Object, p *policyv1.PodDisruptionBudget) {
	sp := field.NewPath("spec")
	if (p.Spec.MinAvailable == nil) == (p.Spec.MaxUnavailable == nil) {
		c.add(o, sp, "exactly one of minAvailable and maxUnavailable must be set")
	}
	c.intOrPercent(o, sp.Child("minAvailable"), p.Spec.MinAvailable)
	c.intOrPercent(o, sp.Child("maxUnavailable"), p.Spec.MaxUnavailable)
	sel := c.selectorFor(o, sp.Child("selector"), p.Spec.Selector, true)
	if sel == nil {
		return
	}
	matched := c.podsMatching(sel, o.Meta.GetNamespace())
	if len(matched) == 0 {
		c.add(o, sp.Child("selector"), "%q selects no pod of the manifests", sel.String())
		return
	}
	var replicas int32
	for _, w := range matched {
		replicas += w.replicas
	}
	if mu := p.Spec.MaxUnavailable; mu != nil && mu.Type == intstr.Int && mu.IntVal == 0 {
		c.add(o, sp.Child("maxUnavailable"), "0 blocks every node drain")
	}
	if ma := p.Spec.MinAvailable; ma != nil && ma.Type == intstr.Int && ma.IntVal >= replicas {
		c.add(o, sp.Child("minAvailable"), "%d with %d replica(s) blocks every node drain", ma.IntVal, replicas)
	}
}

func (c *checker) networkPolicy(o *Object, np *networkingv1.NetworkPolicy) {
	sp := field.NewPath("spec")
	sel := c.selectorFor(o, sp.Child("podSelector"), &np.Spec.PodSelector, false)
	var matched []workload
	if sel != nil {
		matched = c.podsMatching(sel, o.Meta.GetNamespace())
		if len(matched) == 0 {
			c.add(o, sp.Child("podSelector"), "%q selects no pod of the manifests", sel.String())
		}
	}
	for i, t := range np.Spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			c.add(o, sp.Child("policyTypes").Index(i), "%q: want Ingress or Egress", t)
		}
	}
	peers := func(p *field.Path, list []networkingv1.NetworkPolicyPeer) {
		for i, peer := range list {
			pp := p.Index(i)
			if peer.IPBlock != nil && (peer.PodSelector != nil || peer.NamespaceSelector != nil) {
				c.add(o, pp, "ipBlock may not be combined with selectors")
			}
			if peer.IPBlock == nil && peer.PodSelector == nil && peer.NamespaceSelector == nil {
				c.add(o, pp, "one of ipBlock, podSelector and namespaceSelector is required")
			}
			if b := peer.IPBlock; b != nil {
				_, cidr, err := net.ParseCIDR(b.CIDR)
				if err != nil {
					c.add(o, pp.Child("ipBlock", "cidr"), "%q: not a CIDR", b.CIDR)
					continue
				}
				for j, e := range b.Except {
					ip, ex, err := net.ParseCIDR(e)
					if err != nil {
						c.add(o, pp.Child("ipBlock", "except").Index(j), "%q: not a CIDR", e)
						continue
					}
					eo, _ := ex.Mask.Size()
					co, _ := cidr.Mask.Size()
					if !cidr.Contains(ip) || eo <= co {
						c.add(o, pp.Child("ipBlock", "except").Index(j), "%q is not strictly inside %q", e, b.CIDR)
					}
				}
			}
			if peer.PodSelector != nil {
				c.selectorFor(o, pp.Child("podSelector"), peer.PodSelector, false)
			}
			if peer.NamespaceSelector != nil {
				c.selectorFor(o, pp.Child("namespaceSelector"), peer.NamespaceSelector, false)
			}
		}
	}
	ports := func(p *field.Path, list []networkingv1.NetworkPolicyPort, local bool) {
		for i, np := range list {
			pp := p.Index(i)
			if np.Protocol != nil && *np.Protocol != corev1.ProtocolTCP && *np.Protocol != corev1.ProtocolUDP && *np.Protocol != corev1.ProtocolSCTP {
				c.add(o, pp.Child("protocol"), "%q: want TCP, UDP or SCTP", *np.Protocol)
			}
			if np.Port == nil {
				continue
			}
			if np.Port.Type == intstr.Int && (np.Port.IntVal < 1 || np.Port.IntVal > 65535) {
				c.add(o, pp.Child("port"), "%d: want 1-65535", np.Port.IntVal)
			}
			if np.Port.Type == intstr.String {
				for _, m := range validation.IsValidPortName(np.Port.StrVal) {
					c.add(o, pp.Child("port"), "%q: %s", np.Port.StrVal, m)
				}
				// A named ingress port must exist in the selected pods.
				if local {
					for _, w := range matched {
						if !podHasPort(w.tmpl, *np.Port) {
							c.add(o, pp.Child("port"), "%q: the pods of %s declare no such port", np.Port.StrVal, w.obj.Ref())
						}
					}
				}
			}
			if np.EndPort != nil && (np.Port.Type != intstr.Int || *np.EndPort < np.Port.IntVal) {
				c.add(o, pp.Child("endPort"), "needs a numeric port not above it")
			}
		}
	}
	for i, r := range np.Spec.Ingress {
		peers(sp.Child("ingress").Index(i).Child("from"), r.From)
		ports(sp.Child("ingress").Index(i).Child("ports"), r.Ports, true)
	}
	for i, r := range np.Spec.Egress {
		peers(sp.Child("egress").Index(i).Child("to"), r.To)
		ports(sp.Child("egress").Index(i).Child("ports"), r.Ports, false)
	}
}

// readOnlyVerbs are the only verbs the chart grants: the bot reads the
// cluster, it never changes it.
var readOnlyVerbs = []string{"get", "list", "watch"}

func (c *checker) rules(o *Object, rules []rbacv1.PolicyRule) {
	for i, r := range rules {
		rp := field.NewPath("rules").Index(i)
		if len(r.Verbs) == 0 {
			c.add(o, rp.Child("verbs"), "required")
		}
		if len(r.Resources) == 0 && len(r.NonResourceURLs) == 0 {
			c.add(o, rp.Child("resources"), "required")
		}
		if len(r.Resources) > 0 && r.APIGroups == nil {
			c.add(o, rp.Child("apiGroups"), "required with resources (\"\" is the core group)")
		}
		for j, v := range r.Verbs {
			if !slices.Contains(readOnlyVerbs, v) {
				c.add(o, rp.Child("verbs").Index(j), "%q: only get, list and watch are granted (read-only access)", v)
			}
		}
		for j, res := range r.Resources {
			switch {
			case res == "*" || strings.HasPrefix(res, "*/"):
				c.add(o, rp.Child("resources").Index(j), "%q: wildcards would include Secrets", res)
			case res == "secrets" || strings.HasPrefix(res, "secrets/"):
				c.add(o, rp.Child("resources").Index(j), "%q: Secrets are never readable", res)
			case strings.HasSuffix(res, "/exec") || strings.HasSuffix(res, "/attach") || strings.HasSuffix(res, "/portforward") || strings.HasSuffix(res, "/proxy"):
				c.add(o, rp.Child("resources").Index(j), "%q: not a read-only subresource", res)
			}
		}
		for j, g := range r.APIGroups {
			if g == "*" {
				c.add(o, rp.Child("apiGroups").Index(j), "wildcard API group")
			}
		}
	}
}

func (c *checker) binding(o *Object, ref rbacv1.RoleRef, subjects []rbacv1.Subject) {
	rp := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		c.add(o, rp.Child("apiGroup"), "%q: want %s", ref.APIGroup, rbacv1.GroupName)
	}
	switch {
	case ref.Kind == "ClusterRole":
		if c.find("ClusterRole", "", ref.Name) == nil {
			c.add(o, rp.Child("name"), "ClusterRole %q is not in the manifests", ref.Name)
		}
	case ref.Kind == "Role" && o.GVK.Kind == "RoleBinding":
		if c.find("Role", o.Meta.GetNamespace(), ref.Name) == nil {
			c.add(o, rp.Child("name"), "Role %q is not in namespace %q of the manifests", ref.Name, o.Meta.GetNamespace())
		}
	default:
		c.add(o, rp.Child("kind"), "%q cannot be bound by a %s", ref.Kind, o.GVK.Kind)
	}
	if len(subjects) == 0 {
		c.add(o, field.NewPath("subjects"), "required")
	}
	for i, s := range subjects {
		sp := field.NewPath("subjects").Index(i)
		if s.Kind != rbacv1.ServiceAccountKind {
			c.add(o, sp.Child("kind"), "%q: the chart binds ServiceAccounts only", s.Kind)
			continue
		}
		if s.Namespace == "" {
			c.add(o, sp.Child("namespace"), "required for a ServiceAccount")
		}
		if len(c.byKind["ServiceAccount"]) > 0 && c.find("ServiceAccount", s.Namespace, s.Name) == nil {
			c.add(o, sp.Child("name"), "ServiceAccount %s/%s is not in the manifests", s.Namespace, s.Name)
		}
	}
}

func (c *checker) serviceMonitor(o *Object, sm *monitoringv1.ServiceMonitor) {
	sp := field.NewPath("spec")
	sel := c.selectorFor(o, sp.Child("selector"), &sm.Spec.Selector, true)
	if sel == nil {
		return
	}
	namespaces := sm.Spec.NamespaceSelector.MatchNames
	if len(namespaces) == 0 && !sm.Spec.NamespaceSelector.Any {
		namespaces = []string{o.Meta.GetNamespace()}
	}
	var services []*corev1.Service
	for _, so := range c.byKind["Service"] {
		if (sm.Spec.NamespaceSelector.Any || slices.Contains(namespaces, so.Meta.GetNamespace())) && sel.Matches(labels.Set(so.Meta.GetLabels())) {
			services = append(services, so.Obj.(*corev1.Service))
		}
	}
	if len(services) == 0 {
		c.add(o, sp.Child("selector"), "%q selects no Service of the manifests in namespaces %v", sel.String(), namespaces)
	}
	if len(sm.Spec.Endpoints) == 0 {
		c.add(o, sp.Child("endpoints"), "required")
	}
	for i, ep := range sm.Spec.Endpoints {
		ep := ep
		p := sp.Child("endpoints").Index(i)
		if ep.Port == "" && ep.TargetPort == nil {
			c.add(o, p.Child("port"), "required (the Service port name)")
		}
		if ep.Port != "" {
			for _, svc := range services {
				found := false
				for _, sp := range svc.Spec.Ports {
					found = found || sp.Name == ep.Port
				}
				if !found {
					c.add(o, p.Child("port"), "%q: Service %s has no port of that name", ep.Port, svc.Name)
				}
			}
		}
		if ep.Path != "" && !strings.HasPrefix(ep.Path, "/") {
			c.add(o, p.Child("path"), "%q: want an absolute path", ep.Path)
		}
		var interval, timeout time.Duration
		var err error
		if ep.Interval != "" {
			if interval, err = parsePromDuration(string(ep.Interval)); err != nil {
				c.add(o, p.Child("interval"), "%q: %v", ep.Interval, err)
			}
		}
		if ep.ScrapeTimeout != "" {
			if timeout, err = parsePromDuration(string(ep.ScrapeTimeout)); err != nil {
				c.add(o, p.Child("scrapeTimeout"), "%q: %v", ep.ScrapeTimeout, err)
			}
		}
		if interval > 0 && timeout > interval {
			c.add(o, p.Child("scrapeTimeout"), "%s is longer than the interval %s", ep.ScrapeTimeout, ep.Interval)
		}
		if ep.Scheme != nil && *ep.Scheme != "" && *ep.Scheme != "http" && *ep.Scheme != "https" && *ep.Scheme != "HTTP" && *ep.Scheme != "HTTPS" {
			c.add(o, p.Child("scheme"), "%q: want http or https", *ep.Scheme)
		}
	}
}

var promDurationRE = regexp.MustCompile(`^(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?$`)

// parsePromDuration accepts Prometheus durations (30s, 1m30s, 1h).
func parsePromDuration(s string) (time.Duration, error) {
	if s == "" || !promDurationRE.MatchString(s) {
		return 0, fmt.Errorf("not a Prometheus duration such as 30s or 1m")
	}
	m := promDurationRE.FindStringSubmatch(s)
	units := []time.Duration{365 * 24 * time.Hour, 7 * 24 * time.Hour, 24 * time.Hour, time.Hour, time.Minute, time.Second, time.Millisecond}
	var d time.Duration
	for i, u := range units {
		if v := m[2*i+2]; v != "" {
			var n int64
			fmt.Sscan(v, &n)
			d += time.Duration(n) * u
		}
	}
	return d, nil
}
