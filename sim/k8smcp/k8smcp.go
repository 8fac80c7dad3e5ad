// Package k8smcp simulates github.com/containers/kubernetes-mcp-server over
// a scenario's k8s.json (and logs.json for pod logs): the same tool names,
// argument shapes, annotations and output style (YAML lists and objects,
// kubectl-style tables with --list-output table, events as the YAML list
// events_list prints), served over streamable HTTP (Handler, Start) or stdio
// (ServeStdio). Only read-only tools are offered unless Options.Unsafe adds
// the write tools, so that tests can prove clients refuse them.
//
// It is a test and demo fixture; production code never imports it.
package k8smcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim"
)

// ServiceName is the transcript service name of this simulator.
const ServiceName = "k8s"

// ServerName is the name reported in the MCP handshake, as the real server.
const ServerName = "kubernetes-mcp-server"

// DefaultTailLines is pods_log's default tail, as the real server.
const DefaultTailLines = 100

// maxTailLines bounds one pods_log answer.
const maxTailLines = 10000

// maxTranscriptText bounds the text recorded per call in the transcript.
const maxTranscriptText = 4096

// Options configure the simulator.
type Options struct {
	// Transcript records tools/list and every tools/call; nil records nothing.
	Transcript *sim.Transcript
	// ListOutput is the --list-output of the real server for pods_list,
	// pods_list_in_namespace, namespaces_list and resources_list: "yaml"
	// (default), "table" or "json".
	ListOutput string
	// Now is the clock for AGE columns (default the scenario's now).
	Now time.Time
	// Unsafe also offers write tools (pods_delete, pods_run, pods_exec,
	// resources_create_or_update, resources_delete) and configuration_view,
	// with the real server's annotations. Their handlers change nothing.
	Unsafe bool
	// Stateless serves the 2026-07-28 stateless protocol too; by default the
	// server speaks the session-based versions (initialize handshake,
	// Mcp-Session-Id) as deployed kubernetes-mcp-server releases do.
	Stateless bool
	// Latency delays every tool call (benchmarks); a cancelled request
	// returns at once.
	Latency time.Duration
	Logger  *slog.Logger
}

// Server is a simulated kubernetes-mcp-server; safe for concurrent use.
type Server struct {
	opts Options
	now  func() time.Time
	st   *store
	logs map[string][]logLine
	mcp  *server.MCPServer

	handlerOnce sync.Once
	handler     http.Handler
}

// New builds the simulator for a scenario (nil k8s.json serves an empty cluster).
func New(s *scenario.Scenario, opts Options) (*Server, error) {
	if s == nil {
		return nil, errors.New("k8smcp: nil scenario")
	}
	switch opts.ListOutput {
	case "":
		opts.ListOutput = OutputYAML
	case OutputYAML, OutputTable, OutputJSON:
	default:
		return nil, fmt.Errorf("k8smcp: list output %q: want yaml, table or json", opts.ListOutput)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	st, err := newStore(s.K8s)
	if err != nil {
		return nil, fmt.Errorf("k8smcp: %s: %w", s.Name, err)
	}
	srv := &Server{opts: opts, st: st, logs: indexLogs(s.Logs)}
	clock := opts.Now
	if clock.IsZero() {
		clock = s.Now
	}
	srv.now = func() time.Time {
		if clock.IsZero() {
			return time.Now()
		}
		return clock
	}
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcpgo.ListToolsRequest, res *mcpgo.ListToolsResult) {
		var names []string
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		opts.Transcript.Record(ServiceName, "tools/list", nil, map[string]any{"tools": names})
	})
	srv.mcp = server.NewMCPServer(ServerName, "0.0.0-sim", server.WithToolCapabilities(false), server.WithHooks(hooks), server.WithRecovery())
	srv.addTools()
	return srv, nil
}

// MCPServer is the underlying mcp-go server.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// Handler serves MCP over streamable HTTP (mount it at any path). Every
// call returns the same handler, which holds the sessions.
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() {
		var opts []server.StreamableHTTPOption
		if !s.opts.Stateless {
			opts = append(opts, server.WithStateful(true), server.WithStreamableHTTPProtocolVersions(
				mcpgo.ProtocolVersion20251125, mcpgo.ProtocolVersion20250618, mcpgo.ProtocolVersion20250326))
		}
		s.handler = server.NewStreamableHTTPServer(s.mcp, opts...)
	})
	return s.handler
}

// Serve serves MCP over stdio-like streams until ctx ends or in closes.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	err := server.NewStdioServer(s.mcp).Listen(ctx, in, out)
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

// ServeStdio loads the scenario in dir and serves it over in/out (the
// `bot sim k8s-mcp --stdio --scenario DIR` subcommand).
func ServeStdio(ctx context.Context, scenarioDir string, in io.Reader, out io.Writer) error {
	sc, err := scenario.Load(scenarioDir)
	if err != nil {
		return err
	}
	srv, err := New(sc, Options{})
	if err != nil {
		return err
	}
	return srv.Serve(ctx, in, out)
}

// Path is where Start mounts the MCP endpoint.
const Path = "/mcp"

// Start serves the scenario over streamable HTTP on 127.0.0.1 and returns
// the endpoint URL and a function that stops the server.
func Start(s *scenario.Scenario, tr *sim.Transcript) (url string, closeFn func(), err error) {
	return StartWith(s, Options{Transcript: tr})
}

// StartWith is Start with options.
func StartWith(s *scenario.Scenario, opts Options) (url string, closeFn func(), err error) {
	srv, err := New(s, opts)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, srv.Handler())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("k8smcp: listen: %w", err)
	}
	hs := httptest.NewUnstartedServer(mux)
	hs.Listener = l
	hs.Start()
	return hs.URL + Path, func() {
		hs.CloseClientConnections()
		hs.Close()
	}, nil
}

// --- tools -----------------------------------------------------------------

const (
	labelSelectorDesc = "Optional Kubernetes label selector (e.g. 'app=myapp,env=prod' or 'app in (myapp,yourapp)'), use this option when you want to filter the pods by label"
	fieldSelectorDesc = "Optional Kubernetes field selector to filter pods by field values (e.g. 'status.phase=Running', 'spec.nodeName=node1')."
	apiVersionNote    = "(common apiVersion and kind include: v1 Pod, v1 Service, v1 Node, apps/v1 Deployment, networking.k8s.io/v1 Ingress)"
)

type toolDef struct {
	name, title, desc string
	schema            string
	readOnly          bool
	destructive       bool
	handler           func(context.Context, mcpgo.CallToolRequest) (string, error)
}

func (s *Server) addTools() {
	for _, d := range s.readOnlyTools() {
		s.add(d)
	}
	if s.opts.Unsafe {
		for _, d := range s.writeTools() {
			s.add(d)
		}
	}
}

func (s *Server) add(d toolDef) {
	t := mcpgo.NewToolWithRawSchema(d.name, d.desc, []byte(d.schema))
	t.Annotations = mcpgo.ToolAnnotation{Title: d.title, OpenWorldHint: mcpgo.ToBoolPtr(true), DestructiveHint: mcpgo.ToBoolPtr(d.destructive)}
	if d.readOnly {
		t.Annotations.ReadOnlyHint = mcpgo.ToBoolPtr(true)
	}
	s.mcp.AddTool(t, func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		if s.opts.Latency > 0 {
			select {
			case <-time.After(s.opts.Latency):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		text, err := d.handler(ctx, req)
		rec := map[string]any{}
		var res *mcpgo.CallToolResult
		if err != nil {
			res = mcpgo.NewToolResultError(err.Error())
			rec["is_error"], rec["text"] = true, err.Error()
		} else {
			res = mcpgo.NewToolResultText(text)
			rec["text"] = clip(text, maxTranscriptText)
		}
		s.opts.Transcript.Record(ServiceName, "tools/call "+d.name, req.GetArguments(), rec)
		return res, nil
	})
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (s *Server) readOnlyTools() []toolDef {
	return []toolDef{
		{name: "pods_list", title: "Pods: List", readOnly: true,
			desc:   "List all the Kubernetes pods in the current cluster from all namespaces",
			schema: `{"type":"object","properties":{"labelSelector":{"type":"string","description":"` + labelSelectorDesc + `","pattern":"([A-Za-z0-9][-A-Za-z0-9_./]*)?[A-Za-z0-9]"},"fieldSelector":{"type":"string","description":"` + fieldSelectorDesc + `"}}}`,
			handler: func(_ context.Context, r mcpgo.CallToolRequest) (string, error) {
				objs, err := s.selectObjects(query{Kind: "Pod"}, r)
				if err != nil {
					return "", fmt.Errorf("failed to list pods in all namespaces: %w", err)
				}
				return s.printList(objs)
			}},
		{name: "pods_list_in_namespace", title: "Pods: List in Namespace", readOnly: true,
			desc:   "List all the Kubernetes pods in the specified namespace in the current cluster",
			schema: `{"type":"object","properties":{"namespace":{"type":"string","description":"Namespace to list pods from"},"labelSelector":{"type":"string","description":"` + labelSelectorDesc + `","pattern":"([A-Za-z0-9][-A-Za-z0-9_./]*)?[A-Za-z0-9]"},"fieldSelector":{"type":"string","description":"` + fieldSelectorDesc + `"}},"required":["namespace"]}`,
			handler: func(_ context.Context, r mcpgo.CallToolRequest) (string, error) {
				ns := r.GetString("namespace", "")
				if ns == "" {
					return "", errors.New("failed to list pods in namespace: missing argument namespace")
				}
				objs, err := s.selectObjects(query{Kind: "Pod", Namespace: ns}, r)
				if err != nil {
					return "", fmt.Errorf("failed to list pods in namespace %s: %w", ns, err)
				}
				return s.printList(objs)
			}},
		{name: "pods_get", title: "Pods: Get", readOnly: true,
			desc:   "Get a Kubernetes Pod in the current or provided namespace with the provided name",
			schema: `{"type":"object","properties":{"namespace":{"type":"string","description":"Namespace to get the Pod from"},"name":{"type":"string","description":"Name of the Pod"}},"required":["name"]}`,
			handler: func(_ context.Context, r mcpgo.CallToolRequest) (string, error) {
				name, ns := r.GetString("name", ""), r.GetString("namespace", "")
				if name == "" {
					return "", errors.New("failed to get pod, missing argument name")
				}
				p, err := s.one("Pod", "", ns, name)
				if err != nil {
					return "", fmt.Errorf("failed to get pod %s in namespace %s: %w", name, ns, err)
				}
				return marshalYAML(p.Raw)
			}},
		{name: "pods_log", title: "Pods: Log", readOnly: true,
			desc:   "Get the logs of a Kubernetes Pod in the current or provided namespace with the provided name",
			schema: `{"type":"object","properties":{"namespace":{"type":"string","description":"Namespace to get the Pod logs from"},"name":{"type":"string","description":"Name of the Pod to get the logs from"},"container":{"type":"string","description":"Name of the Pod container to get the logs from (Optional)"},"tail":{"type":"integer","description":"Number of lines to retrieve from the end of the logs (Optional, default: 100)","default":100,"minimum":0},"previous":{"type":"boolean","description":"Return previous terminated container logs (Optional)"}},"required":["name"]}`,
			handler: func(_ context.Context, r mcpgo.CallToolRequest) (string, error) {
				name, ns := r.GetString("name", ""), r.GetString("namespace", "")
				if name == "" {
					return "", errors.New("failed to get pod log, missing argument name")
				}
				tail := r.GetInt("tail", DefaultTailLines)
				if tail <= 0 {
					tail = DefaultTailLines
				}
				tail = min(tail, maxTailLines)
				p, err := s.one("Pod", "", ns, name)
				if err != nil {
					return "", fmt.Errorf("failed to get pod %s log in namespace %s: %w", name, ns, err)
				}
				lines, err := s.podLog(p, r.GetString("container", ""), r.GetBool("previous", false), tail)
				if err != nil {
					return "", fmt.Errorf("failed to get pod %s log in namespace %s: %w", name, p.Namespace, err)
				}
				if len(lines) == 0 {
					return fmt.Sprintf("The pod %s in namespace %s has not logged any message yet", name, p.Namespace), nil
				}
				return strings.Join(lines, "\n") + "\n", nil
			}},
		{name: "events_list", title: "Events: List", readOnly: true,
			desc:   "List Kubernetes events (warnings, errors, state changes) for debugging and troubleshooting in the current cluster from all namespaces",
			schema: `{"type":"object","properties":{"namespace":{"type":"string","description":"Optional Namespace to retrieve the events from. If not provided, will list events from all namespaces"}}}`,
			handler: func(_ context.Context, r mcpgo.CallToolRequest) (string, error) {
				evs := s.st.find(query{Kind: "Event", Namespace: r.GetString("namespace", "")})
				if len(evs) == 0 {
					return "# No events found", nil
				}
				var out []map[string]any
				for _, e := range evs {
					out = append(out, map[string]any{
						"Namespace": e.Namespace,
						"Timestamp": eventTime(e.Raw).String(),
						"Type":      str(e.Raw, "type"),
						"Reason":    str(e.Raw, "reason"),
						"InvolvedObject": map[string]string{
							"apiVersion": str(e.Raw, "involvedObject", "apiVersion"),
							"Kind":       str(e.Raw, "involvedObject", "kind"),
							"Name":       str(e.Raw, "involvedObject", "name"),
						},
						"Message": strings.TrimSpace(str(e.Raw, "message")),
					})
				}
				y, err := marshalYAML(out)
				if err != nil {
					return "", fmt.Errorf("failed to list events in all namespaces: %w", err)
				}
				return "# The following events (YAML format) were found:\n" + y, nil
			}},
		{name: "namespaces_list", title: "Namespaces: List", readOnly: true,
			desc:   "List all the Kubernetes namespaces in the current cluster",
			schema: `{"type":"object","properties":{}}`,
			handler: func(context.Context, mcpgo.CallToolRequest) (string, error) {
				var objs []*object
				for _, n := range s.st.namespaces() {
					objs = append(objs, &object{APIVersion: "v1", Kind: "Namespace", Name: n, Labels: map[string]string{"kubernetes.io/metadata.name": n},
						Raw: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": n,
							"labels": map[string]any{"kubernetes.io/metadata.name": n}}, "status": map[string]any{"phase": "Active"}}})
				}
				return s.printList(objs)
			}},
		{name: "resources_list", title: "Resources: List", readOnly: true,
			desc:   "List Kubernetes resources and objects in the current cluster by providing their apiVersion and kind and optionally the namespace and label selector\n" + apiVersionNote,
			schema: `{"type":"object","properties":{"apiVersion":{"type":"string","description":"apiVersion of the resources (examples of valid apiVersion are: v1, apps/v1, networking.k8s.io/v1)"},"kind":{"type":"string","description":"kind of the resources (examples of valid kind are: Pod, Service, Deployment, Ingress)"},"namespace":{"type":"string","description":"Optional Namespace to retrieve the namespaced resources from (ignored in case of cluster scoped resources). If not provided, will list resources from all namespaces"},"labelSelector":{"type":"string","description":"` + labelSelectorDesc + `","pattern":"([A-Za-z0-9][-A-Za-z0-9_./]*)?[A-Za-z0-9]"},"fieldSelector":{"type":"string","description":"` + fieldSelectorDesc + `"}},"required":["apiVersion","kind"]}`,
			handler: func(_ context.Context, r mcpgo.CallToolRequest) (string, error) {
				api, kind := r.GetString("apiVersion", ""), r.GetString("kind", "")
				if api == "" {
					return "", errors.New("failed to list resources, missing argument apiVersion")
				}
				if kind == "" {
					return "", errors.New("failed to list resources, missing argument kind")
				}
				objs, err := s.selectObjects(query{APIVersion: api, Kind: kind, Namespace: r.GetString("namespace", "")}, r)
				if err != nil {
					return "", fmt.Errorf("failed to list resources: %w", err)
				}
				return s.printList(objs)
			}},
		{name: "resources_get", title: "Resources: Get", readOnly: true,
			desc:   "Get a Kubernetes resource in the current cluster by providing its apiVersion, kind, optionally the namespace, and its name\n" + apiVersionNote,
			schema: `{"type":"object","properties":{"apiVersion":{"type":"string","description":"apiVersion of the resource (examples of valid apiVersion are: v1, apps/v1, networking.k8s.io/v1)"},"kind":{"type":"string","description":"kind of the resource (examples of valid kind are: Pod, Service, Deployment, Ingress)"},"namespace":{"type":"string","description":"Optional Namespace to retrieve the namespaced resource from (ignored in case of cluster scoped resources). If not provided, will get resource from configured namespace"},"name":{"type":"string","description":"Name of the resource"}},"required":["apiVersion","kind","name"]}`,
			handler: func(_ context.Context, r mcpgo.CallToolRequest) (string, error) {
				api, kind, name := r.GetString("apiVersion", ""), r.GetString("kind", ""), r.GetString("name", "")
				switch {
				case api == "":
					return "", errors.New("failed to get resource, missing argument apiVersion")
				case kind == "":
					return "", errors.New("failed to get resource, missing argument kind")
				case name == "":
					return "", errors.New("failed to get resource, missing argument name")
				}
				o, err := s.one(kind, api, r.GetString("namespace", ""), name)
				if err != nil {
					return "", fmt.Errorf("failed to get resource: %w", err)
				}
				return marshalYAML(o.Raw)
			}},
	}
}

func (s *Server) writeTools() []toolDef {
	refuse := func(what string) func(context.Context, mcpgo.CallToolRequest) (string, error) {
		return func(context.Context, mcpgo.CallToolRequest) (string, error) {
			return what + " (simulated: nothing was changed)", nil
		}
	}
	return []toolDef{
		{name: "pods_delete", title: "Pods: Delete", destructive: true,
			desc:    "Delete a Kubernetes Pod in the current or provided namespace with the provided name",
			schema:  `{"type":"object","properties":{"namespace":{"type":"string"},"name":{"type":"string"}},"required":["name"]}`,
			handler: refuse("Pod deleted successfully")},
		{name: "pods_run", title: "Pods: Run", destructive: false,
			desc:    "Run a Kubernetes Pod in the current or provided namespace with the provided container image and optional name",
			schema:  `{"type":"object","properties":{"namespace":{"type":"string"},"name":{"type":"string"},"image":{"type":"string"},"port":{"type":"number"}},"required":["image"]}`,
			handler: refuse("# The following resources (YAML) have been created or updated successfully")},
		{name: "pods_exec", title: "Pods: Exec", destructive: true,
			desc:    "Execute a command in a Kubernetes Pod in the current or provided namespace with the provided name and command",
			schema:  `{"type":"object","properties":{"namespace":{"type":"string"},"name":{"type":"string"},"command":{"type":"array","items":{"type":"string"}},"container":{"type":"string"}},"required":["name","command"]}`,
			handler: refuse("")},
		{name: "resources_create_or_update", title: "Resources: Create or Update", destructive: true,
			desc:    "Create or update a Kubernetes resource via Server-Side Apply.\n" + apiVersionNote,
			schema:  `{"type":"object","properties":{"resource":{"type":"string"},"namespace":{"type":"string"}},"required":["resource"]}`,
			handler: refuse("# The following resources (YAML) have been created or updated successfully")},
		{name: "resources_delete", title: "Resources: Delete", destructive: true,
			desc:    "Delete a Kubernetes resource in the current cluster by providing its apiVersion, kind, optionally the namespace, and its name\n" + apiVersionNote,
			schema:  `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"namespace":{"type":"string"},"name":{"type":"string"}},"required":["apiVersion","kind","name"]}`,
			handler: refuse("Resource deleted successfully")},
		{name: "configuration_view", title: "Configuration: View", readOnly: true,
			desc:    "Get the current Kubernetes configuration content as a kubeconfig YAML",
			schema:  `{"type":"object","properties":{"minified":{"type":"boolean"}}}`,
			handler: refuse("apiVersion: v1\nkind: Config\nusers:\n- name: sim\n  user:\n    token: sim-token-do-not-use")},
	}
}

// selectObjects applies the labelSelector and fieldSelector arguments.
func (s *Server) selectObjects(q query, r mcpgo.CallToolRequest) ([]*object, error) {
	var err error
	if q.Labels, err = parseLabelSelector(r.GetString("labelSelector", "")); err != nil {
		return nil, err
	}
	if q.Fields, err = parseFieldSelector(r.GetString("fieldSelector", "")); err != nil {
		return nil, err
	}
	return s.st.find(q), nil
}

// one finds a single object. An empty namespace finds the object in any
// namespace when the name is unique (the real server uses the kubeconfig's
// namespace; scenarios have none).
func (s *Server) one(kind, api, ns, name string) (*object, error) {
	objs := s.st.find(query{Kind: kind, APIVersion: api, Namespace: ns, Name: name})
	if len(objs) == 0 || (ns == "" && len(objs) > 1 && !clusterScoped[kind]) {
		return nil, fmt.Errorf("%s %q not found", resourceName(kind, api), name)
	}
	return objs[0], nil
}

// resourceName is the API resource as errors print it (deployments.apps).
func resourceName(kind, api string) string {
	plural := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(plural, "y"):
		plural = plural[:len(plural)-1] + "ies"
	case strings.HasSuffix(plural, "s"):
		plural += "es"
	default:
		plural += "s"
	}
	if g, _, ok := strings.Cut(api, "/"); ok && g != "core" {
		return plural + "." + g
	}
	if api == "" {
		if g, _, ok := strings.Cut(defaultAPIVersion(kind), "/"); ok {
			return plural + "." + g
		}
	}
	return plural
}

// ToolNames lists the tools the server offers, sorted.
func (s *Server) ToolNames() []string {
	var out []string
	for n := range s.mcp.ListTools() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
