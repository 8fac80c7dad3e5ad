// Package k8s is the Kubernetes capability: it reads cluster state through
// a Kubernetes MCP server (github.com/containers/kubernetes-mcp-server, its
// read-only tools only) and turns pods, events, rollouts, node conditions and
// the logs of crashed containers into k8s_event findings matched against the
// fingerprint catalogue (OOMKilled, image pull failures, missing Secret keys,
// failing probes, evictions, scheduling failures, crash loops).
//
// Tools:
//   - k8s_workload_status: the one the deterministic planner calls;
//   - k8s_pods_list, k8s_pods_get, k8s_pods_log, k8s_events_list,
//     k8s_resources_list, k8s_resources_get, k8s_nodes_top: read-only
//     pass-throughs for the LLM planner. Secrets are never read: the MCP
//     client refuses any request for them and masks Secret values in any
//     answer, for this capability as for every other MCP server.
package k8s

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/redact"
)

// Tool names.
const (
	ToolWorkloadStatus = "k8s_workload_status"
	ToolPodsList       = "k8s_pods_list"
	ToolPodsGet        = "k8s_pods_get"
	ToolPodsLog        = "k8s_pods_log"
	ToolEventsList     = "k8s_events_list"
	ToolResourcesList  = "k8s_resources_list"
	ToolResourcesGet   = "k8s_resources_get"
	ToolNodesTop       = "k8s_nodes_top"
)

// ServerName is the MCP server name the capability uses (and looks for in
// an MCP configuration).
const ServerName = "kubernetes"

// Defaults and limits.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultLogPods  = 3
	DefaultLogLines = 100
	DefaultMaxPods  = 2000
	maxPassTail     = 500
	maxPassData     = 16 << 10
	maxDetailGets   = 20
)

// Config configures the capability. Set URL (a streamable HTTP endpoint,
// the session's k8s_mcp_url) or Server (an MCP server configuration, stdio
// or HTTP, such as the one named "kubernetes" in the MCP config).
type Config struct {
	URL string
	// Token, when set, is sent as a bearer token to URL (a session secret;
	// never logged).
	Token  string
	Server *mcp.ServerConfig
	// Namespace is the default namespace (empty: all namespaces).
	Namespace string
	// Timeout bounds one MCP call (default 10 s).
	Timeout time.Duration
	// Manager shares MCP connections between investigations; its owner
	// (the bot, the CLI, a harness run) closes it. Nil gives the capability
	// a private client, released by Close when the investigation ends.
	Manager *mcp.Manager
	// ClientOptions, when they set LookupEnv, HTTPTransport or Header, make
	// a private client instead, closed by Close.
	ClientOptions mcp.Options
	// LogPods bounds the crashed containers whose previous logs are read
	// (default 3); LogLines the lines read from each (default 100).
	LogPods  int
	LogLines int
	// MaxPods bounds the pods analysed (default 2000).
	MaxPods int
	Logger  *slog.Logger
}

// Capability implements investigate.Capability for Kubernetes.
type Capability struct {
	cfg     Config
	cl      *mcp.Client
	private bool
	err     error
	reason  string
}

// New builds the capability; without URL or Server it reports itself not
// configured, with the reason.
func New(cfg Config) *Capability {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.LogPods <= 0 {
		cfg.LogPods = DefaultLogPods
	}
	if cfg.LogLines <= 0 {
		cfg.LogLines = DefaultLogLines
	}
	if cfg.MaxPods <= 0 {
		cfg.MaxPods = DefaultMaxPods
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Capability{cfg: cfg}
	var sc mcp.ServerConfig
	switch {
	case strings.TrimSpace(cfg.URL) != "":
		sc = mcp.ServerConfig{Name: ServerName, URL: strings.TrimSpace(cfg.URL), Timeout: cfg.Timeout}
	case cfg.Server != nil:
		sc = *cfg.Server
		if sc.Timeout <= 0 {
			sc.Timeout = cfg.Timeout
		}
	default:
		c.reason = "k8s_mcp_url is not set and no MCP server named kubernetes is configured"
		return c
	}
	var header map[string]string
	if cfg.Token != "" {
		header = map[string]string{"Authorization": "Bearer " + cfg.Token}
	}
	switch {
	case cfg.Manager != nil:
		c.cl, c.err = cfg.Manager.ClientWithHeader(sc, header)
	default:
		opts := cfg.ClientOptions
		if opts.Logger == nil {
			opts.Logger = cfg.Logger
		}
		h := map[string]string{}
		for k, v := range opts.Header {
			h[k] = v
		}
		for k, v := range header {
			h[k] = v
		}
		opts.Header = h
		c.cl, c.err = mcp.NewClient(sc, opts)
		c.private = true
	}
	return c
}

// maxListText is the text kept from one answer the capability parses (pod
// lists of large namespaces).
const maxListText = 16 << 20

// FromMCPConfig returns the server named "kubernetes" of an MCP
// configuration, if any.
func FromMCPConfig(servers []mcp.ServerConfig) *mcp.ServerConfig {
	for i := range servers {
		if servers[i].Name == ServerName {
			s := servers[i]
			return &s
		}
	}
	return nil
}

// Close closes a private MCP client (a shared one belongs to its Manager,
// so one investigation ending never closes another's connection).
func (c *Capability) Close() error {
	if c.private && c.cl != nil {
		return c.cl.Close()
	}
	return nil
}

// Family implements investigate.Capability.
func (c *Capability) Family() investigate.Family { return investigate.FamilyK8s }

// Availability implements investigate.Capability (configuration only).
func (c *Capability) Availability() investigate.Availability {
	switch {
	case c.reason != "":
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: c.reason}
	case c.err != nil:
		return investigate.Availability{Kind: investigate.ErrKindNotConfigured, Reason: c.err.Error()}
	}
	return investigate.Availability{Configured: true}
}

func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

// Tools implements investigate.Capability.
func (c *Capability) Tools() []investigate.ToolSpec {
	ns := prop("string", "namespace (empty: the configured namespace, else all namespaces)")
	spec := func(name, desc string, props map[string]any, req ...string) investigate.ToolSpec {
		return investigate.ToolSpec{Name: name, Family: investigate.FamilyK8s, Description: desc, Parameters: investigate.Schema(props, req...)}
	}
	return []investigate.ToolSpec{
		spec(ToolWorkloadStatus, "Kubernetes state of workloads: pods not ready, restarts and termination reasons (OOMKilled with memory limits), image pull failures, missing Secret/ConfigMap keys, failing probes (probe port vs container ports), evictions and node pressure, scheduling failures, warning events, the image of the previous rollout, and the previous logs of crashed containers.",
			map[string]any{"namespace": ns, "services": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "workloads to report on (empty: all)"},
				"prefer": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "workloads the incident names: their current logs are read first"},
				"end":    prop("string", "the investigation's clock (RFC 3339): dates log lines that carry no year")}),
		spec(ToolPodsList, "List pods (name, phase, restarts, container states) in a namespace or in all namespaces.",
			map[string]any{"namespace": ns, "labelSelector": prop("string", "label selector, e.g. app=cart"), "fieldSelector": prop("string", "field selector, e.g. status.phase!=Running")}),
		spec(ToolPodsGet, "Get one pod as YAML (spec, status, container states).",
			map[string]any{"namespace": ns, "name": prop("string", "pod name")}, "name"),
		spec(ToolPodsLog, "Read the last lines of a pod's log; previous=true reads the container that last terminated (why it crashed).",
			map[string]any{"namespace": ns, "name": prop("string", "pod name"), "container": prop("string", "container name (optional)"),
				"previous": prop("boolean", "logs of the previous, terminated container"), "tail": prop("integer", fmt.Sprintf("lines from the end (default 100, max %d)", maxPassTail))}, "name"),
		spec(ToolEventsList, "List Kubernetes events (warnings, errors, state changes) of a namespace or of all namespaces.",
			map[string]any{"namespace": ns}),
		spec(ToolResourcesList, "List Kubernetes objects of one kind (e.g. apps/v1 Deployment, v1 Node, batch/v1 Job). Secrets are not readable.",
			map[string]any{"apiVersion": prop("string", "e.g. v1, apps/v1"), "kind": prop("string", "e.g. Deployment"), "namespace": ns,
				"labelSelector": prop("string", "label selector")}, "apiVersion", "kind"),
		spec(ToolResourcesGet, "Get one Kubernetes object as YAML (e.g. apps/v1 Deployment cart). Secrets are not readable.",
			map[string]any{"apiVersion": prop("string", "e.g. apps/v1"), "kind": prop("string", "e.g. Deployment"), "namespace": ns, "name": prop("string", "object name")},
			"apiVersion", "kind", "name"),
		spec(ToolNodesTop, "CPU and memory use of nodes (metrics server).", map[string]any{"name": prop("string", "node name (optional)")}),
	}
}

// Call implements investigate.Capability.
func (c *Capability) Call(ctx context.Context, tool string, args json.RawMessage) (*investigate.ToolResult, error) {
	if av := c.Availability(); !av.Configured {
		return nil, investigate.NewToolError(av.Kind, av.Reason, nil)
	}
	var a struct {
		Namespace     string   `json:"namespace"`
		Services      []string `json:"services"`
		Prefer        []string `json:"prefer"`
		End           string   `json:"end"`
		Name          string   `json:"name"`
		Container     string   `json:"container"`
		Previous      bool     `json:"previous"`
		Tail          int      `json:"tail"`
		APIVersion    string   `json:"apiVersion"`
		Kind          string   `json:"kind"`
		LabelSelector string   `json:"labelSelector"`
		FieldSelector string   `json:"fieldSelector"`
	}
	if err := investigate.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Namespace == "" {
		a.Namespace = c.cfg.Namespace
	}
	switch tool {
	case ToolWorkloadStatus:
		end, err := investigate.ParseTime(a.End)
		if err != nil {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "end", err)
		}
		return c.workloadStatus(ctx, scanOptions{ns: a.Namespace, services: a.Services, prefer: a.Prefer, now: end.UTC()})
	case ToolPodsList:
		args := map[string]any{}
		setIf(args, "labelSelector", a.LabelSelector)
		setIf(args, "fieldSelector", a.FieldSelector)
		name := "pods_list"
		if a.Namespace != "" {
			name, args["namespace"] = "pods_list_in_namespace", a.Namespace
		}
		return c.passThrough(ctx, name, args, nil)
	case ToolPodsGet:
		if a.Name == "" {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "name is required", nil)
		}
		args := map[string]any{"name": a.Name}
		setIf(args, "namespace", a.Namespace)
		return c.passThrough(ctx, "pods_get", args, func(text string) []investigate.Finding {
			raws, err := parseObjects(text)
			if err != nil {
				return nil
			}
			an := newAnalyzer(&snapshot{pods: decodeAll[pod](raws)})
			an.scanPods()
			f, _ := an.findings(nil)
			return f
		})
	case ToolPodsLog:
		if a.Name == "" {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "name is required", nil)
		}
		if a.Tail <= 0 {
			a.Tail = DefaultLogLines
		}
		args := map[string]any{"name": a.Name, "tail": min(a.Tail, maxPassTail)}
		setIf(args, "namespace", a.Namespace)
		setIf(args, "container", a.Container)
		if a.Previous {
			args["previous"] = true
		}
		return c.passThrough(ctx, "pods_log", args, func(text string) []investigate.Finding {
			ix := newIndex(nil)
			an := newAnalyzer(&snapshot{})
			an.scanLogs(logTarget{Namespace: a.Namespace, Pod: a.Name, Container: a.Container, Workload: ix.fromPodName(a.Name)}, splitLines(text))
			f, _ := an.findings(nil)
			return f
		})
	case ToolEventsList:
		args := map[string]any{}
		setIf(args, "namespace", a.Namespace)
		return c.passThrough(ctx, "events_list", args, func(text string) []investigate.Finding {
			evs, err := parseEventsList(text)
			if err != nil {
				return nil
			}
			an := newAnalyzer(&snapshot{events: evs})
			an.scanEvents()
			f, _ := an.findings(nil)
			return f
		})
	case ToolResourcesList, ToolResourcesGet:
		if a.APIVersion == "" || a.Kind == "" {
			return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "apiVersion and kind are required", nil)
		}
		args := map[string]any{"apiVersion": a.APIVersion, "kind": a.Kind}
		setIf(args, "namespace", a.Namespace)
		if tool == ToolResourcesGet {
			if a.Name == "" {
				return nil, investigate.NewToolError(investigate.ErrKindInvalidArgs, "name is required", nil)
			}
			args["name"] = a.Name
			return c.passThrough(ctx, "resources_get", args, nil)
		}
		setIf(args, "labelSelector", a.LabelSelector)
		return c.passThrough(ctx, "resources_list", args, nil)
	case ToolNodesTop:
		args := map[string]any{}
		setIf(args, "name", a.Name)
		return c.passThrough(ctx, "nodes_top", args, nil)
	}
	return nil, fmt.Errorf("%w: %s", investigate.ErrUnknownTool, tool)
}

func setIf(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func splitLines(text string) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// call invokes one tool of the Kubernetes MCP server.
func (c *Capability) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", investigate.NewToolError(investigate.ErrKindInvalidArgs, tool, err)
	}
	res, err := c.cl.CallToolMax(ctx, tool, b, maxListText)
	if err != nil {
		return "", err
	}
	if res.Truncated {
		return res.Text, investigate.NewToolError(investigate.ErrKindTooLarge, tool+": the answer was cut", nil)
	}
	return res.Text, nil
}

func (c *Capability) passThrough(ctx context.Context, tool string, args map[string]any, findings func(string) []investigate.Finding) (*investigate.ToolResult, error) {
	text, err := c.call(ctx, tool, args)
	if err != nil && investigate.KindOf(err) != investigate.ErrKindTooLarge {
		return nil, err
	}
	res := &investigate.ToolResult{}
	if findings != nil && err == nil {
		res.Findings = findings(text)
	}
	data := map[string]any{"tool": tool, "text": text}
	if len(text) > maxPassData {
		data["text"], data["truncated"] = cut(redact.String(text), maxPassData), true // masked before it is cut
	}
	res.Data = data
	lines := len(splitLines(text))
	res.Summary = fmt.Sprintf("%s: %d lines", tool, lines)
	if len(res.Findings) > 0 {
		res.Summary += fmt.Sprintf(", %d findings", len(res.Findings))
	}
	return res, nil
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// runAll runs fns concurrently, or one after another when ctx asks for
// sequential backend calls.
func runAll(ctx context.Context, fns ...func()) {
	if investigate.Sequential(ctx) {
		for _, f := range fns {
			f()
		}
		return
	}
	var wg sync.WaitGroup
	for _, f := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}

// workloadStatus reports findings about the workloads of a namespace, or of
// the whole cluster when the namespace shows nothing wrong.
func (c *Capability) workloadStatus(ctx context.Context, o scanOptions) (*investigate.ToolResult, error) {
	ns := o.ns
	res, err := c.scan(ctx, o)
	if err != nil || ns == "" || len(res.Findings) > 0 || ctx.Err() != nil {
		return res, err
	}
	// Nothing is wrong in the namespace the trigger names: what fails may
	// live elsewhere (a backend behind the gateway that alerted), so look
	// at the whole cluster, as an SRE would.
	o.ns = ""
	wide, err := c.scan(ctx, o)
	if err != nil || len(wide.Findings) == 0 {
		return res, nil
	}
	wide.Summary = fmt.Sprintf("nothing wrong in namespace %s; cluster-wide: %s", ns, wide.Summary)
	if d, ok := wide.Data.(map[string]any); ok {
		d["widened_from_namespace"] = ns
	}
	for i := range wide.Findings {
		if wide.Findings[i].Attrs["namespace"] != ns {
			wide.Findings[i].Attrs["outside_namespace"] = ns
		}
	}
	return wide, nil
}

// scan reads pods, events, rollouts, nodes and the objects the analyzers
// read (Services, Ingresses, claims, autoscalers, policies, quotas...) of a
// namespace (or of all namespaces), the previous logs of a few crashed
// containers and the current logs of a few workloads, then, when the
// evidence calls for them, RBAC objects, certificate issuers and the
// GitOps objects that deploy the workloads at fault.
func (c *Capability) scan(ctx context.Context, o scanOptions) (*investigate.ToolResult, error) {
	ns, services, prefer := o.ns, o.services, o.prefer
	snap := &snapshot{namespace: ns, listed: map[string]bool{}, logs: map[string][]string{}}
	var notes []string
	var mu sync.Mutex
	note := func(what string, err error) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, fmt.Sprintf("%s: %v", what, err))
	}
	var podsErr error
	var podTable string
	tables := map[string][]map[string]string{} // --list-output table answers, by kind
	nsArgs := func(extra map[string]any) map[string]any {
		if ns != "" {
			extra["namespace"] = ns
		}
		return extra
	}
	var eventsRead bool
	phase1 := []func(){
		func() {
			tool, args := "pods_list", map[string]any{}
			if ns != "" {
				tool, args = "pods_list_in_namespace", map[string]any{"namespace": ns}
			}
			text, err := c.call(ctx, tool, args)
			if err != nil {
				podsErr = err
				return
			}
			raws, err := parseObjects(text)
			switch {
			case errors.Is(err, errTable):
				podTable = text
			case err != nil:
				podsErr = investigate.NewToolError(investigate.ErrKindBadResponse, tool, err)
			default:
				snap.pods = decodeAll[pod](raws)
			}
		},
		func() {
			text, err := c.call(ctx, "resources_list", nsArgs(map[string]any{"apiVersion": "v1", "kind": "Event"}))
			if err == nil {
				raws, perr := parseObjects(text)
				if perr == nil {
					snap.events = decodeAll[event](raws)
					eventsRead = true
					return
				}
			}
			// events_list answers YAML whatever the list output.
			text, err = c.call(ctx, "events_list", nsArgs(map[string]any{}))
			if err != nil {
				note("events", err)
				return
			}
			evs, err := parseEventsList(text)
			if err != nil {
				note("events", err)
				return
			}
			snap.events = evs
			eventsRead = true
		},
		func() { c.listInto(ctx, "apps/v1", "Deployment", ns, &snap.workloads, tables, &mu, note) },
		func() { c.listInto(ctx, "apps/v1", "ReplicaSet", ns, &snap.workloads, tables, &mu, note) },
		func() { c.listInto(ctx, "apps/v1", "StatefulSet", ns, &snap.workloads, tables, &mu, note) },
		func() { c.listInto(ctx, "batch/v1", "Job", ns, &snap.workloads, tables, &mu, note) },
		func() {
			// Disruption budgets: optional, a cluster without them or a
			// server refusing the kind loses nothing else.
			text, err := c.call(ctx, "resources_list", nsArgs(map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget"}))
			if err != nil {
				return
			}
			if raws, err := parseObjects(text); err == nil {
				budgets := decodeAll[disruptionBudget](raws)
				mu.Lock()
				snap.budgets = budgets
				mu.Unlock()
			}
		},
		func() {
			text, err := c.call(ctx, "resources_list", map[string]any{"apiVersion": "v1", "kind": "Node"})
			if err != nil {
				note("nodes", err)
				return
			}
			if raws, err := parseObjects(text); err == nil {
				snap.nodes = decodeAll[node](raws)
			} else if errors.Is(err, errTable) {
				mu.Lock()
				tables["Node"] = tableRows(text)
				mu.Unlock()
			} else {
				note("nodes", err)
			}
		},
	}
	for _, k := range analyzedKinds {
		phase1 = append(phase1, func() { c.listKind(ctx, k, ns, snap, &mu, note) })
	}
	runAll(ctx, phase1...)
	if podsErr != nil {
		return nil, podsErr
	}
	if podTable != "" {
		// --list-output table: read the pods that look unhealthy one by one.
		snap.pods = c.podsFromTable(ctx, podTable, &notes)
	}
	if len(tables) > 0 {
		c.detailFromTables(ctx, snap, tables)
	}
	if ns != "" || podTable != "" {
		// Node pressure has causes outside the namespace (or, from a table
		// answer, among pods that looked healthy): read the other pods of
		// the pressured nodes.
		snap.pods = append(snap.pods, c.podsOnPressuredNodes(ctx, snap, &notes)...)
	}
	if len(snap.pods) > c.cfg.MaxPods {
		notes = append(notes, fmt.Sprintf("pods: %d listed, the first %d analysed", len(snap.pods), c.cfg.MaxPods))
		snap.pods = snap.pods[:c.cfg.MaxPods]
	}

	an := newAnalyzer(snap)
	an.scanPods()
	an.scanNodes()
	targets := an.logTargets(c.cfg.LogPods, services)
	logs := make([][]string, len(targets))
	var fns []func()
	for i, t := range targets {
		fns = append(fns, func() {
			text, err := c.call(ctx, "pods_log", map[string]any{"namespace": t.Namespace, "name": t.Pod, "container": t.Container, "previous": true, "tail": c.cfg.LogLines})
			if err != nil {
				note("logs of "+t.Pod, err)
				return
			}
			lines := splitLines(text)
			if len(lines) > c.cfg.LogLines {
				lines = lines[len(lines)-c.cfg.LogLines:]
			}
			logs[i] = lines
		})
	}
	runAll(ctx, fns...)
	for i, t := range targets {
		an.scanLogs(t, logs[i])
		if logs[i] != nil {
			snap.logs[t.Namespace+"/"+t.Pod] = append(snap.logs[t.Namespace+"/"+t.Pod], logs[i]...)
		}
	}
	c.readCurrentLogs(ctx, an, prefer, note)
	an.scanEvents()
	an.scanBudgets()
	snap.listed["Pod"], snap.listed["Event"] = podTable == "", eventsRead
	snap.now = o.now
	if snap.now.IsZero() {
		snap.now = latestTime(snap)
	}
	c.secondPhase(ctx, an, ns, note)
	faults := an.runAnalyzers()
	if len(faults) > 0 {
		c.listGitOps(ctx, snap, &mu, note)
	}
	an.attachDeployTargets(faults)
	findings, unattributed := an.findings(services)
	findings = append(findings, an.faultFindings(faults, services)...)
	sort.Strings(notes)
	return &investigate.ToolResult{
		Summary:  summary(snap, findings, targets, logs),
		Findings: findings,
		Data:     digest(snap, an, findings, unattributed, targets, logs, notes),
	}, nil
}

// maxPressuredNodes bounds the nodes whose pods are read across namespaces.
const maxPressuredNodes = 3

// podsOnPressuredNodes lists the pods of other namespaces running on nodes
// under pressure that host pods of the snapshot.
func (c *Capability) podsOnPressuredNodes(ctx context.Context, snap *snapshot, notes *[]string) []pod {
	hosting := map[string]bool{}
	for i := range snap.pods {
		hosting[snap.pods[i].Spec.NodeName] = true
	}
	var nodes []string
	for i := range snap.nodes {
		n := &snap.nodes[i]
		if len(n.pressure()) > 0 && hosting[n.Metadata.Name] {
			nodes = append(nodes, n.Metadata.Name)
		}
	}
	sort.Strings(nodes)
	if len(nodes) > maxPressuredNodes {
		nodes = nodes[:maxPressuredNodes]
	}
	seen := map[string]bool{}
	for i := range snap.pods {
		seen[snap.pods[i].Metadata.Namespace+"/"+snap.pods[i].Metadata.Name] = true
	}
	found := make([][]pod, len(nodes))
	errs := make([]error, len(nodes))
	var fns []func()
	for i, n := range nodes {
		fns = append(fns, func() {
			text, err := c.call(ctx, "pods_list", map[string]any{"fieldSelector": "spec.nodeName=" + n})
			if err != nil {
				errs[i] = err
				return
			}
			raws, err := parseObjects(text)
			if errors.Is(err, errTable) {
				var unseen []string
				for _, r := range tableRows(text) {
					if !seen[r["NAMESPACE"]+"/"+r["NAME"]] {
						unseen = append(unseen, r["NAMESPACE"]+"/"+r["NAME"])
					}
				}
				found[i] = c.getPods(ctx, unseen)
				return
			}
			if err != nil {
				errs[i] = err
				return
			}
			found[i] = decodeAll[pod](raws)
		})
	}
	runAll(ctx, fns...)
	var out []pod
	for i, err := range errs {
		if err != nil {
			*notes = append(*notes, fmt.Sprintf("pods on node %s: %v", nodes[i], err))
		}
	}
	for _, ps := range found {
		for _, p := range ps {
			if key := p.Metadata.Namespace + "/" + p.Metadata.Name; !seen[key] {
				seen[key] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// listInto appends the objects of one kind to dst (a table answer is kept
// in tables, by kind).
func (c *Capability) listInto(ctx context.Context, apiVersion, kind, ns string, dst *[]workloadObj, tables map[string][]map[string]string, mu *sync.Mutex, note func(string, error)) {
	args := map[string]any{"apiVersion": apiVersion, "kind": kind}
	if ns != "" {
		args["namespace"] = ns
	}
	text, err := c.call(ctx, "resources_list", args)
	if err != nil {
		note(strings.ToLower(kind)+"s", err)
		return
	}
	raws, err := parseObjects(text)
	if errors.Is(err, errTable) {
		mu.Lock()
		tables[kind] = tableRows(text)
		mu.Unlock()
		return
	}
	if err != nil {
		note(strings.ToLower(kind)+"s", err)
		return
	}
	objs := decodeAll[workloadObj](raws)
	for i := range objs {
		if objs[i].Kind == "" {
			objs[i].Kind = kind
		}
	}
	mu.Lock()
	*dst = append(*dst, objs...)
	mu.Unlock()
}

// maxTableGets bounds the objects read one by one after table answers.
const maxTableGets = 8

// detailFromTables reads, one by one, the objects a table answer cannot
// describe and the analysis needs: the nodes hosting unhealthy pods
// (pressure conditions) and the ReplicaSets of their workloads (the image
// of the previous rollout).
func (c *Capability) detailFromTables(ctx context.Context, snap *snapshot, tables map[string][]map[string]string) {
	ix := newIndex(nil)
	nodes, prefixes := map[string]bool{}, map[string]string{} // workload prefix -> namespace
	for i := range snap.pods {
		p := &snap.pods[i]
		if p.ready() && p.restarts() == 0 && p.Status.Reason == "" {
			continue
		}
		if p.Spec.NodeName != "" {
			nodes[p.Spec.NodeName] = true
		}
		if len(p.Metadata.OwnerReferences) > 0 && p.Metadata.OwnerReferences[0].Kind == "ReplicaSet" {
			prefixes[ix.workloadOf(p)+"-"] = p.Metadata.Namespace
		}
	}
	type get struct{ api, kind, ns, name string }
	var gets []get
	for _, r := range tables["Node"] {
		if nodes[r["NAME"]] {
			gets = append(gets, get{"v1", "Node", "", r["NAME"]})
		}
	}
	for _, r := range tables["ReplicaSet"] {
		for pre, ns := range prefixes {
			if strings.HasPrefix(r["NAME"], pre) && (r["NAMESPACE"] == "" || r["NAMESPACE"] == ns) && rsHashRE.MatchString(r["NAME"]) {
				gets = append(gets, get{"apps/v1", "ReplicaSet", ns, r["NAME"]})
			}
		}
	}
	if len(gets) > maxTableGets {
		gets = gets[:maxTableGets]
	}
	texts := make([]string, len(gets))
	var fns []func()
	for i, g := range gets {
		fns = append(fns, func() {
			args := map[string]any{"apiVersion": g.api, "kind": g.kind, "name": g.name}
			setIf(args, "namespace", g.ns)
			texts[i], _ = c.call(ctx, "resources_get", args)
		})
	}
	runAll(ctx, fns...)
	for i, g := range gets {
		raws, err := parseObjects(texts[i])
		if err != nil || len(raws) != 1 {
			continue
		}
		switch g.kind {
		case "Node":
			snap.nodes = append(snap.nodes, decodeAll[node](raws)...)
		default:
			ws := decodeAll[workloadObj](raws)
			for j := range ws {
				ws[j].Kind = g.kind
			}
			snap.workloads = append(snap.workloads, ws...)
		}
	}
}

// podsFromTable reads, one by one, the pods a table answer shows as not
// running cleanly (a status other than Running/Completed, or restarts).
func (c *Capability) podsFromTable(ctx context.Context, table string, notes *[]string) []pod {
	var want [][2]string
	for _, r := range tableRows(table) {
		status, restarts := r["STATUS"], strings.Fields(r["RESTARTS"])
		healthy := (status == "Running" || status == "Completed" || status == "Succeeded") && (len(restarts) == 0 || restarts[0] == "0")
		if !healthy && r["NAME"] != "" {
			want = append(want, [2]string{r["NAMESPACE"], r["NAME"]})
		}
	}
	if len(want) > maxDetailGets {
		*notes = append(*notes, fmt.Sprintf("pods: %d unhealthy in the table, the first %d read", len(want), maxDetailGets))
		want = want[:maxDetailGets]
	}
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = w[0] + "/" + w[1]
	}
	return c.getPods(ctx, names)
}

// getPods reads pods ("namespace/name") one by one with pods_get, at most
// maxDetailGets of them.
func (c *Capability) getPods(ctx context.Context, names []string) []pod {
	if len(names) > maxDetailGets {
		names = names[:maxDetailGets]
	}
	out := make([]pod, len(names))
	ok := make([]bool, len(names))
	var fns []func()
	for i, n := range names {
		fns = append(fns, func() {
			ns, name, _ := strings.Cut(n, "/")
			args := map[string]any{"name": name}
			if ns != "" && ns != "<none>" {
				args["namespace"] = ns
			}
			text, err := c.call(ctx, "pods_get", args)
			if err != nil {
				return
			}
			raws, err := parseObjects(text)
			if err == nil && len(raws) == 1 && json.Unmarshal(raws[0], &out[i]) == nil {
				ok[i] = true
			}
		})
	}
	runAll(ctx, fns...)
	var pods []pod
	for i := range out {
		if ok[i] {
			pods = append(pods, out[i])
		}
	}
	return pods
}

func summary(s *snapshot, findings []investigate.Finding, targets []logTarget, logs [][]string) string {
	notReady, restarts := 0, 0
	for i := range s.pods {
		if !s.pods[i].ready() && s.pods[i].Status.Phase != "Succeeded" {
			notReady++
		}
		restarts += s.pods[i].restarts()
	}
	where := "all namespaces"
	if s.namespace != "" {
		where = s.namespace
	}
	out := fmt.Sprintf("%d pods in %s, %d not ready, %d restarts", len(s.pods), where, notReady, restarts)
	var causes []string
	seen := map[string]bool{}
	for _, f := range findings {
		sig := investigate.SignatureByID(f.Signature)
		if sig == nil || seen[f.Service+f.Signature] {
			continue
		}
		seen[f.Service+f.Signature] = true
		causes = append(causes, fmt.Sprintf("%s: %s", f.Service, sig.Title))
	}
	if len(causes) > 4 {
		causes = append(causes[:4], fmt.Sprintf("+%d more", len(causes)-4))
	}
	if len(causes) > 0 {
		out += "; " + strings.Join(causes, "; ")
	}
	read := 0
	for _, l := range logs {
		if l != nil {
			read++
		}
	}
	if len(targets) > 0 {
		out += fmt.Sprintf("; previous logs of %d crashed containers read", read)
	}
	return out
}

// digest is the compact view of the cluster handed to planners.
func digest(s *snapshot, an *analyzer, findings, unattributed []investigate.Finding, targets []logTarget, logs [][]string, notes []string) map[string]any {
	type wl struct {
		Name     string   `json:"name"`
		Pods     int      `json:"pods"`
		NotReady int      `json:"not_ready"`
		Restarts int      `json:"restarts"`
		States   []string `json:"states,omitempty"`
		Nodes    []string `json:"nodes,omitempty"`
	}
	by := map[string]*wl{}
	for i := range s.pods {
		p := &s.pods[i]
		name := an.podWL[p.Metadata.Namespace+"/"+p.Metadata.Name]
		w := by[name]
		if w == nil {
			w = &wl{Name: name}
			by[name] = w
		}
		w.Pods++
		w.Restarts += p.restarts()
		if !p.ready() && p.Status.Phase != "Succeeded" {
			w.NotReady++
			w.Nodes = appendUnique(w.Nodes, p.Spec.NodeName)
		}
		for _, cs := range p.statuses() {
			switch {
			case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
				w.States = appendUnique(w.States, cs.State.Waiting.Reason)
			case cs.LastState.Terminated != nil && cs.RestartCount > 0:
				w.States = appendUnique(w.States, "last terminated "+cs.LastState.Terminated.Reason)
			}
		}
		if p.Status.Reason != "" {
			w.States = appendUnique(w.States, p.Status.Reason)
		}
	}
	var unhealthy []*wl
	healthy := 0
	for _, w := range by {
		if w.NotReady > 0 || w.Restarts > 0 || len(w.States) > 0 {
			unhealthy = append(unhealthy, w)
		} else {
			healthy++
		}
	}
	sort.Slice(unhealthy, func(i, j int) bool { return unhealthy[i].Name < unhealthy[j].Name })
	var warnings []map[string]any
	for _, e := range s.events {
		if e.Type != "Warning" || len(warnings) >= 30 {
			continue
		}
		first, last, count := e.times()
		warnings = append(warnings, map[string]any{"object": e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, "reason": e.Reason,
			"count": count, "first": first, "last": last, "message": investigate.Quote(e.Message, 200)})
	}
	var nodes []map[string]any
	for name, conds := range an.pressure {
		var types []string
		for _, c := range conds {
			types = append(types, c.Type+" since "+c.LastTransitionTime)
		}
		nodes = append(nodes, map[string]any{"name": name, "pressure": types, "evicted": an.evicted[name], "without_memory_limit": an.suspects[name]})
	}
	var crash []map[string]any
	for i, t := range targets {
		if logs[i] == nil {
			continue
		}
		tail := logs[i]
		if len(tail) > 10 {
			tail = tail[len(tail)-10:]
		}
		for j := range tail {
			tail[j] = investigate.Quote(tail[j], 300)
		}
		crash = append(crash, map[string]any{"pod": t.Pod, "container": t.Container, "lines": len(logs[i]), "last_lines": tail})
	}
	out := map[string]any{"namespace": s.namespace, "pods": len(s.pods), "workloads_unhealthy": unhealthy, "workloads_healthy": healthy,
		"warning_events": warnings, "findings": len(findings)}
	if len(nodes) > 0 {
		out["nodes_under_pressure"] = nodes
	}
	if len(crash) > 0 {
		out["crash_logs"] = crash
	}
	if len(unattributed) > 0 {
		var q []string
		for _, f := range unattributed {
			q = append(q, f.Quote)
		}
		out["unattributed"] = q
	}
	if len(notes) > 0 {
		out["partial"] = notes
	}
	return out
}
