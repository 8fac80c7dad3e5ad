package k8s

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// The subset of Kubernetes objects the capability reads.

type ownerRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type meta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations"`
	OwnerReferences   []ownerRef        `json:"ownerReferences"`
	CreationTimestamp string            `json:"creationTimestamp"`
}

// intOrString holds a port given as a number or a name.
type intOrString string

func (p *intOrString) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*p = intOrString(n.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return nil // unknown shape: leave empty rather than fail the object
	}
	*p = intOrString(s)
	return nil
}

type probe struct {
	HTTPGet *struct {
		Path string      `json:"path"`
		Port intOrString `json:"port"`
	} `json:"httpGet"`
	TCPSocket *struct {
		Port intOrString `json:"port"`
	} `json:"tcpSocket"`
	GRPC *struct {
		Port intOrString `json:"port"`
	} `json:"grpc"`
	Exec *struct {
		Command []string `json:"command"`
	} `json:"exec"`
}

// port and path of the probe ("" when it has none).
func (p *probe) target() (port, path, kind string) {
	switch {
	case p == nil:
	case p.HTTPGet != nil:
		return string(p.HTTPGet.Port), p.HTTPGet.Path, "httpGet"
	case p.TCPSocket != nil:
		return string(p.TCPSocket.Port), "", "tcpSocket"
	case p.GRPC != nil:
		return string(p.GRPC.Port), "", "grpc"
	case p.Exec != nil:
		return "", "", "exec"
	}
	return "", "", ""
}

type keyRef struct {
	Name     string `json:"name"`
	Key      string `json:"key"`
	Optional *bool  `json:"optional"`
}

type envVar struct {
	Name      string `json:"name"`
	ValueFrom *struct {
		SecretKeyRef    *keyRef `json:"secretKeyRef"`
		ConfigMapKeyRef *keyRef `json:"configMapKeyRef"`
	} `json:"valueFrom"`
	// Values are deliberately not decoded: they may hold secrets.
}

type nameRef struct {
	Name     string `json:"name"`
	Optional *bool  `json:"optional"`
}

type envFrom struct {
	SecretRef    *nameRef `json:"secretRef"`
	ConfigMapRef *nameRef `json:"configMapRef"`
}

type container struct {
	Name  string `json:"name"`
	Image string `json:"image"`
	Ports []struct {
		ContainerPort int    `json:"containerPort"`
		Name          string `json:"name"`
		Protocol      string `json:"protocol"`
	} `json:"ports"`
	Env       []envVar  `json:"env"`
	EnvFrom   []envFrom `json:"envFrom"`
	Resources struct {
		Limits   map[string]string `json:"limits"`
		Requests map[string]string `json:"requests"`
	} `json:"resources"`
	ReadinessProbe *probe `json:"readinessProbe"`
	LivenessProbe  *probe `json:"livenessProbe"`
	StartupProbe   *probe `json:"startupProbe"`
	Lifecycle      *struct {
		PreStop   *hook `json:"preStop"`
		PostStart *hook `json:"postStart"`
	} `json:"lifecycle"`
}

// hook is a container lifecycle handler (preStop, postStart).
type hook struct {
	Exec *struct {
		Command []string `json:"command"`
	} `json:"exec"`
	HTTPGet *struct {
		Path string      `json:"path"`
		Port intOrString `json:"port"`
	} `json:"httpGet"`
	Sleep *struct {
		Seconds int `json:"seconds"`
	} `json:"sleep"`
}

// hook returns the container's handler of a lifecycle phase (preStop, postStart).
func (c *container) hook(phase string) *hook {
	if c.Lifecycle == nil {
		return nil
	}
	if phase == "postStart" {
		return c.Lifecycle.PostStart
	}
	return c.Lifecycle.PreStop
}

func (c *container) ports() []string {
	var out []string
	for _, p := range c.Ports {
		out = append(out, strconv.Itoa(p.ContainerPort))
	}
	return out
}

// portNamed resolves a named port to its number.
func (c *container) portNamed(name string) string {
	for _, p := range c.Ports {
		if p.Name == name {
			return strconv.Itoa(p.ContainerPort)
		}
	}
	return name
}

type terminated struct {
	ExitCode   int    `json:"exitCode"`
	Reason     string `json:"reason"`
	Message    string `json:"message"`
	StartedAt  string `json:"startedAt"`
	FinishedAt string `json:"finishedAt"`
}

type cstate struct {
	Waiting *struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"waiting"`
	Running *struct {
		StartedAt string `json:"startedAt"`
	} `json:"running"`
	Terminated *terminated `json:"terminated"`
}

type containerStatus struct {
	Name         string `json:"name"`
	Image        string `json:"image"`
	Ready        bool   `json:"ready"`
	RestartCount int    `json:"restartCount"`
	State        cstate `json:"state"`
	LastState    cstate `json:"lastState"`
}

type condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
	LastTransitionTime string `json:"lastTransitionTime"`
}

// podSpec is the part of a pod's spec the analyzers read (a pod's own, or
// a controller's template).
type podSpec struct {
	NodeName           string            `json:"nodeName"`
	ServiceAccountName string            `json:"serviceAccountName"`
	ServiceAccount     string            `json:"serviceAccount"`
	NodeSelector       map[string]string `json:"nodeSelector"`
	Tolerations        []toleration      `json:"tolerations"`
	Affinity           *struct {
		NodeAffinity *struct {
			Required *struct {
				Terms []nodeSelectorTerm `json:"nodeSelectorTerms"`
			} `json:"requiredDuringSchedulingIgnoredDuringExecution"`
		} `json:"nodeAffinity"`
	} `json:"affinity"`
	Containers     []container `json:"containers"`
	InitContainers []container `json:"initContainers"`
	Volumes        []volume    `json:"volumes"`
}

// serviceAccount is the account the pods run as ("default" when unset).
func (s *podSpec) serviceAccount() string {
	if s.ServiceAccountName != "" {
		return s.ServiceAccountName
	}
	if s.ServiceAccount != "" {
		return s.ServiceAccount
	}
	return "default"
}

type toleration struct {
	Key      string `json:"key"`
	Operator string `json:"operator"`
	Value    string `json:"value"`
	Effect   string `json:"effect"`
}

type nodeSelectorTerm struct {
	MatchExpressions []labelRequirement `json:"matchExpressions"`
}

type labelRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

type volume struct {
	Name                  string `json:"name"`
	PersistentVolumeClaim *struct {
		ClaimName string `json:"claimName"`
	} `json:"persistentVolumeClaim"`
	ConfigMap *struct {
		Name     string `json:"name"`
		Optional *bool  `json:"optional"`
		Items    []struct {
			Key string `json:"key"`
		} `json:"items"`
	} `json:"configMap"`
	Secret *struct {
		SecretName string `json:"secretName"`
		Optional   *bool  `json:"optional"`
		Items      []struct {
			Key string `json:"key"`
		} `json:"items"`
	} `json:"secret"`
}

type pod struct {
	Metadata meta    `json:"metadata"`
	Spec     podSpec `json:"spec"`
	Status   struct {
		Phase                 string            `json:"phase"`
		Reason                string            `json:"reason"`
		Message               string            `json:"message"`
		StartTime             string            `json:"startTime"`
		QOSClass              string            `json:"qosClass"`
		PodIP                 string            `json:"podIP"`
		Conditions            []condition       `json:"conditions"`
		ContainerStatuses     []containerStatus `json:"containerStatuses"`
		InitContainerStatuses []containerStatus `json:"initContainerStatuses"`
	} `json:"status"`
}

func (p *pod) container(name string) *container {
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	for i := range p.Spec.InitContainers {
		if p.Spec.InitContainers[i].Name == name {
			return &p.Spec.InitContainers[i]
		}
	}
	return nil
}

func (p *pod) statuses() []containerStatus {
	return append(append([]containerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
}

func (p *pod) ready() bool {
	for _, c := range p.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status == "True"
		}
	}
	return p.Status.Phase == "Running"
}

func (p *pod) restarts() int {
	n := 0
	for _, cs := range p.Status.ContainerStatuses {
		n += cs.RestartCount
	}
	return n
}

type event struct {
	Metadata       meta `json:"metadata"`
	InvolvedObject struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		FieldPath string `json:"fieldPath"`
	} `json:"involvedObject"`
	Reason         string `json:"reason"`
	Message        string `json:"message"`
	Type           string `json:"type"`
	Count          int    `json:"count"`
	FirstTimestamp string `json:"firstTimestamp"`
	LastTimestamp  string `json:"lastTimestamp"`
	EventTime      string `json:"eventTime"`
	Series         *struct {
		Count            int    `json:"count"`
		LastObservedTime string `json:"lastObservedTime"`
	} `json:"series"`
}

// times returns when the event was first and last seen and how often.
func (e *event) times() (first, last time.Time, count int) {
	first, last = parseTime(e.FirstTimestamp), parseTime(e.LastTimestamp)
	if t := parseTime(e.EventTime); !t.IsZero() {
		if first.IsZero() {
			first = t
		}
		if last.IsZero() || t.After(last) {
			last = t
		}
	}
	if e.Series != nil {
		if t := parseTime(e.Series.LastObservedTime); t.After(last) {
			last = t
		}
	}
	if first.IsZero() {
		first = last
	}
	if last.IsZero() {
		last = first
	}
	count = e.Count
	if e.Series != nil && e.Series.Count > count {
		count = e.Series.Count
	}
	if count < 1 {
		count = 1
	}
	return first, last, count
}

// podTemplate is a controller's pod template.
type podTemplate struct {
	Metadata meta    `json:"metadata"`
	Spec     podSpec `json:"spec"`
}

// workloadObj is a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or
// CronJob.
type workloadObj struct {
	Kind     string `json:"kind"`
	Metadata meta   `json:"metadata"`
	Spec     struct {
		Replicas             *int          `json:"replicas"`
		Selector             labelSelector `json:"selector"`
		Template             podTemplate   `json:"template"`
		ServiceName          string        `json:"serviceName"`
		VolumeClaimTemplates []pvc         `json:"volumeClaimTemplates"`
		// Jobs
		BackoffLimit          *int `json:"backoffLimit"`
		ActiveDeadlineSeconds *int `json:"activeDeadlineSeconds"`
		// CronJobs
		Schedule    string `json:"schedule"`
		JobTemplate struct {
			Spec struct {
				BackoffLimit          *int        `json:"backoffLimit"`
				ActiveDeadlineSeconds *int        `json:"activeDeadlineSeconds"`
				Template              podTemplate `json:"template"`
			} `json:"spec"`
		} `json:"jobTemplate"`
	} `json:"spec"`
	Status struct {
		Replicas            int         `json:"replicas"`
		ReadyReplicas       int         `json:"readyReplicas"`
		AvailableReplicas   int         `json:"availableReplicas"`
		UnavailableReplicas int         `json:"unavailableReplicas"`
		Conditions          []condition `json:"conditions"`
		Failed              int         `json:"failed"`
		// StatefulSets
		CurrentRevision string `json:"currentRevision"`
		UpdateRevision  string `json:"updateRevision"`
		UpdatedReplicas int    `json:"updatedReplicas"`
		// DaemonSets
		DesiredNumberScheduled int `json:"desiredNumberScheduled"`
		NumberUnavailable      int `json:"numberUnavailable"`
		UpdatedNumberScheduled int `json:"updatedNumberScheduled"`
	} `json:"status"`
}

// template is the pod template of the workload (a CronJob's job's).
func (w *workloadObj) template() *podTemplate {
	if w.Kind == "CronJob" {
		return &w.Spec.JobTemplate.Spec.Template
	}
	return &w.Spec.Template
}

// templatePath is the path of the pod spec in the workload's manifest.
func (w *workloadObj) templatePath() string {
	switch w.Kind {
	case "CronJob":
		return "spec.jobTemplate.spec.template.spec"
	case "Pod":
		return "spec"
	}
	return "spec.template.spec"
}

func (w *workloadObj) revision() int {
	n, _ := strconv.Atoi(w.Metadata.Annotations["deployment.kubernetes.io/revision"])
	return n
}

func (w *workloadObj) image(container string) string {
	for _, c := range w.template().Spec.Containers {
		if c.Name == container {
			return c.Image
		}
	}
	return ""
}

type node struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		Unschedulable bool `json:"unschedulable"`
		Taints        []struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Effect string `json:"effect"`
		} `json:"taints"`
	} `json:"spec"`
	Status struct {
		Conditions  []condition       `json:"conditions"`
		Allocatable map[string]string `json:"allocatable"`
	} `json:"status"`
}

// pressure returns the node's pressure conditions that are True.
func (n *node) pressure() []condition {
	var out []condition
	for _, c := range n.Status.Conditions {
		if c.Status == "True" && strings.HasSuffix(c.Type, "Pressure") {
			out = append(out, c)
		}
	}
	return out
}

// parseTime accepts RFC 3339 and Go's time.String format (events_list).
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999 -0700 MST", "2006-01-02 15:04:05 -0700 MST"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// disruptionBudget is a PodDisruptionBudget (policy/v1).
type disruptionBudget struct {
	Metadata meta `json:"metadata"`
	Spec     struct {
		MinAvailable   *intOrString `json:"minAvailable"`
		MaxUnavailable *intOrString `json:"maxUnavailable"`
		Selector       struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
	} `json:"spec"`
	Status struct {
		ExpectedPods       *int `json:"expectedPods"`
		DisruptionsAllowed int  `json:"disruptionsAllowed"`
	} `json:"status"`
}

// selects reports whether the budget's label selector matches the labels.
func (b *disruptionBudget) selects(labels map[string]string) bool {
	if len(b.Spec.Selector.MatchLabels) == 0 {
		return false
	}
	for k, v := range b.Spec.Selector.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	return true
}
