package k8s

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// The objects the analyzers read besides pods, events and workloads: the
// subset of each kind's fields they need, decoded from what kubectl get -o
// json (or kubernetes-mcp-server's YAML) prints.

// labelSelector is a metav1.LabelSelector.
type labelSelector struct {
	MatchLabels      map[string]string  `json:"matchLabels"`
	MatchExpressions []labelRequirement `json:"matchExpressions"`
}

// empty: the selector has no terms (it selects everything where a
// selector is required, as NetworkPolicy.spec.podSelector: {}).
func (s *labelSelector) empty() bool {
	return s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0)
}

// matches reports whether the labels satisfy the selector (an empty
// selector matches everything).
func (s *labelSelector) matches(labels map[string]string) bool {
	if s == nil {
		return true
	}
	for k, v := range s.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		if !r.matches(labels) {
			return false
		}
	}
	return true
}

func (r labelRequirement) matches(labels map[string]string) bool {
	v, has := labels[r.Key]
	switch r.Operator {
	case "In":
		return has && containsStr(r.Values, v)
	case "NotIn":
		return !has || !containsStr(r.Values, v)
	case "Exists":
		return has
	case "DoesNotExist":
		return !has
	case "Gt", "Lt":
		if !has || len(r.Values) != 1 {
			return false
		}
		a, err1 := strconv.Atoi(v)
		b, err2 := strconv.Atoi(r.Values[0])
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == "Gt" {
			return a > b
		}
		return a < b
	}
	return false
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// selectorMatches applies a plain map selector (Service.spec.selector).
func selectorMatches(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

type servicePort struct {
	Name       string      `json:"name"`
	Port       int         `json:"port"`
	TargetPort intOrString `json:"targetPort"`
	Protocol   string      `json:"protocol"`
}

type service struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		Type         string            `json:"type"`
		Selector     map[string]string `json:"selector"`
		ClusterIP    string            `json:"clusterIP"`
		Ports        []servicePort     `json:"ports"`
		ExternalName string            `json:"externalName"`
	} `json:"spec"`
}

// endpoints is a v1 Endpoints object.
type endpoints struct {
	Metadata meta `json:"metadata"`
	Subsets  []struct {
		Addresses         []json.RawMessage `json:"addresses"`
		NotReadyAddresses []json.RawMessage `json:"notReadyAddresses"`
	} `json:"subsets"`
}

type ingressBackend struct {
	Service *struct {
		Name string `json:"name"`
		Port struct {
			Number int    `json:"number"`
			Name   string `json:"name"`
		} `json:"port"`
	} `json:"service"`
}

type ingress struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		IngressClassName string          `json:"ingressClassName"`
		DefaultBackend   *ingressBackend `json:"defaultBackend"`
		TLS              []struct {
			Hosts      []string `json:"hosts"`
			SecretName string   `json:"secretName"`
		} `json:"tls"`
		Rules []struct {
			Host string `json:"host"`
			HTTP *struct {
				Paths []struct {
					Path    string         `json:"path"`
					Backend ingressBackend `json:"backend"`
				} `json:"paths"`
			} `json:"http"`
		} `json:"rules"`
	} `json:"spec"`
}

// httpRoute is a Gateway API HTTPRoute (gateway.networking.k8s.io).
type httpRoute struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		Rules []struct {
			BackendRefs []struct {
				Kind      string `json:"kind"`
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
				Port      int    `json:"port"`
			} `json:"backendRefs"`
		} `json:"rules"`
	} `json:"spec"`
}

type pvc struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		StorageClassName *string `json:"storageClassName"`
		VolumeName       string  `json:"volumeName"`
		AccessModes      []string
		Resources        struct {
			Requests map[string]string `json:"requests"`
		} `json:"resources"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

func (p *pvc) storageClass() string {
	if p.Spec.StorageClassName == nil {
		return ""
	}
	return *p.Spec.StorageClassName
}

type storageClass struct {
	Metadata    meta   `json:"metadata"`
	Provisioner string `json:"provisioner"`
}

// isDefault reports the default-class annotation.
func (s *storageClass) isDefault() bool {
	return s.Metadata.Annotations["storageclass.kubernetes.io/is-default-class"] == "true"
}

type hpa struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		ScaleTargetRef struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicas *int `json:"minReplicas"`
		MaxReplicas int  `json:"maxReplicas"`
		Metrics     []struct {
			Type     string `json:"type"`
			Resource *struct {
				Name string `json:"name"`
			} `json:"resource"`
		} `json:"metrics"`
		// autoscaling/v1
		TargetCPUUtilizationPercentage *int `json:"targetCPUUtilizationPercentage"`
	} `json:"spec"`
	Status struct {
		CurrentReplicas int         `json:"currentReplicas"`
		DesiredReplicas int         `json:"desiredReplicas"`
		Conditions      []condition `json:"conditions"`
	} `json:"status"`
}

// resources are the resource metrics the autoscaler scales on.
func (h *hpa) resources() []string {
	var out []string
	for _, m := range h.Spec.Metrics {
		if m.Type == "Resource" && m.Resource != nil {
			out = append(out, m.Resource.Name)
		}
	}
	if len(out) == 0 && (h.Spec.TargetCPUUtilizationPercentage != nil || len(h.Spec.Metrics) == 0) {
		out = append(out, "cpu")
	}
	return out
}

type netpolPort struct {
	Protocol string       `json:"protocol"`
	Port     *intOrString `json:"port"`
	EndPort  *int         `json:"endPort"`
}

type netpolPeer struct {
	PodSelector       *labelSelector `json:"podSelector"`
	NamespaceSelector *labelSelector `json:"namespaceSelector"`
	IPBlock           *struct {
		CIDR   string   `json:"cidr"`
		Except []string `json:"except"`
	} `json:"ipBlock"`
}

type netpolRule struct {
	From  []netpolPeer `json:"from"`
	To    []netpolPeer `json:"to"`
	Ports []netpolPort `json:"ports"`
}

type networkPolicy struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		PodSelector labelSelector `json:"podSelector"`
		PolicyTypes []string      `json:"policyTypes"`
		Ingress     []netpolRule  `json:"ingress"`
		Egress      []netpolRule  `json:"egress"`
	} `json:"spec"`
}

// governs reports whether the policy restricts traffic in a direction
// ("Ingress" or "Egress"), as the API defaults policyTypes.
func (n *networkPolicy) governs(dir string) bool {
	if len(n.Spec.PolicyTypes) == 0 {
		return dir == "Ingress" || len(n.Spec.Egress) > 0
	}
	return containsStr(n.Spec.PolicyTypes, dir)
}

type policyRule struct {
	APIGroups     []string `json:"apiGroups"`
	Resources     []string `json:"resources"`
	ResourceNames []string `json:"resourceNames"`
	Verbs         []string `json:"verbs"`
}

// role is a Role or ClusterRole.
type role struct {
	Kind     string       `json:"kind"`
	Metadata meta         `json:"metadata"`
	Rules    []policyRule `json:"rules"`
}

// roleBinding is a RoleBinding or ClusterRoleBinding.
type roleBinding struct {
	Kind     string `json:"kind"`
	Metadata meta   `json:"metadata"`
	RoleRef  struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"roleRef"`
	Subjects []struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"subjects"`
}

type resourceQuota struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		Hard map[string]string `json:"hard"`
	} `json:"spec"`
	Status struct {
		Hard map[string]string `json:"hard"`
		Used map[string]string `json:"used"`
	} `json:"status"`
}

type limitRange struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		Limits []struct {
			Type           string            `json:"type"`
			Max            map[string]string `json:"max"`
			Min            map[string]string `json:"min"`
			Default        map[string]string `json:"default"`
			DefaultRequest map[string]string `json:"defaultRequest"`
		} `json:"limits"`
	} `json:"spec"`
}

// configMap keeps the names of a ConfigMap's keys, never their values.
type configMap struct {
	Metadata meta
	Keys     []string
}

func (c *configMap) UnmarshalJSON(b []byte) error {
	var raw struct {
		Metadata   meta                       `json:"metadata"`
		Data       map[string]json.RawMessage `json:"data"`
		BinaryData map[string]json.RawMessage `json:"binaryData"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	c.Metadata = raw.Metadata
	for k := range raw.Data {
		c.Keys = append(c.Keys, k)
	}
	for k := range raw.BinaryData {
		c.Keys = append(c.Keys, k)
	}
	sort.Strings(c.Keys)
	return nil
}

// certificate is a cert-manager Certificate.
type certificate struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		SecretName string   `json:"secretName"`
		DNSNames   []string `json:"dnsNames"`
		IssuerRef  struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"issuerRef"`
	} `json:"spec"`
	Status struct {
		Conditions []condition `json:"conditions"`
		NotAfter   string      `json:"notAfter"`
	} `json:"status"`
}

// issuer is a cert-manager Issuer or ClusterIssuer.
type issuer struct {
	Kind     string `json:"kind"`
	Metadata meta   `json:"metadata"`
	Status   struct {
		Conditions []condition `json:"conditions"`
	} `json:"status"`
}

// gitopsObject is an Argo CD Application, a Flux Kustomization, a Flux
// HelmRelease or a Flux GitRepository: the fields that say what deploys
// what from where.
type gitopsObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   meta   `json:"metadata"`
	Spec       struct {
		// Argo CD Application
		Source      *argoSource  `json:"source"`
		Sources     []argoSource `json:"sources"`
		Destination struct {
			Namespace string `json:"namespace"`
		} `json:"destination"`
		// Flux Kustomization
		Path            string `json:"path"`
		TargetNamespace string `json:"targetNamespace"`
		SourceRef       *struct {
			Kind      string `json:"kind"`
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"sourceRef"`
		// Flux HelmRelease
		ReleaseName string `json:"releaseName"`
		Chart       *struct {
			Spec struct {
				Chart       string   `json:"chart"`
				ValuesFiles []string `json:"valuesFiles"`
				SourceRef   struct {
					Kind      string `json:"kind"`
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"sourceRef"`
			} `json:"spec"`
		} `json:"chart"`
		// Flux GitRepository
		URL string `json:"url"`
		Ref *struct {
			Branch string `json:"branch"`
			Tag    string `json:"tag"`
			Commit string `json:"commit"`
		} `json:"ref"`
	} `json:"spec"`
	Status struct {
		Resources []struct {
			Kind      string `json:"kind"`
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"resources"`
		Inventory *struct {
			Entries []struct {
				ID string `json:"id"`
			} `json:"entries"`
		} `json:"inventory"`
	} `json:"status"`
}

type argoSource struct {
	RepoURL        string `json:"repoURL"`
	TargetRevision string `json:"targetRevision"`
	Path           string `json:"path"`
	Chart          string `json:"chart"`
	Helm           *struct {
		ValueFiles []string `json:"valueFiles"`
	} `json:"helm"`
}

// parseQuantity reads a Kubernetes quantity (100m, 2, 1.5, 512Mi, 1G) as
// a float in base units (cores, bytes); ok is false when it is not one.
func parseQuantity(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	mult := 1.0
	suffixes := []struct {
		s string
		m float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60},
		{"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}
	for _, x := range suffixes {
		if strings.HasSuffix(s, x.s) {
			s, mult = strings.TrimSuffix(s, x.s), x.m
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return v * mult, true
}
