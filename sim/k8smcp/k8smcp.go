// Package k8smcp simulates github.com/containers/kubernetes-mcp-server over
// a scenario's k8s.json (and logs.json for pod logs): the same tool names,
// argument shapes, annotations and output style (YAML lists and objects,
// kubectl-style tables with --list-output table, events as the YAML list
// events_list prints). Like the real server it is built on the official MCP
// go-sdk and served over streamable HTTP, stateful by default or stateless
// (Handler, Start), over HTTP+SSE (SSEHandler) or stdio (ServeStdio). Only
// read-only tools are offered unless Options.Unsafe adds the write tools,
// so that tests can prove clients refuse them.
//
// It is a test and demo fixture; production code never imports it.
package k8smcp

import (
	"context"
	"encoding/json"
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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/autoheal/autoheal/redact"
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
	// Stateless serves streamable HTTP as the real server's --stateless:
	// no Mcp-Session-Id, every request on its own, and the 2026-07-28
	// protocol (server/discover) besides the handshake-based versions. By
	// default the handler is stateful like a deployed server, and refuses
	// 2026-07-28 requests as the go-sdk does.
	Stateless bool
	// ProtocolVersions narrows the versions the server negotiates (the
	// go-sdk's ServerOptions.SupportedProtocolVersions): a server built on
	// an older SDK, or one that speaks only the newest protocol.
	ProtocolVersions []string
	// Latency delays every tool call (benchmarks); a cancelled request
	// returns at once.
	Latency time.Duration
	Logger  *slog.Logger
}

// Server is a simulated kubernetes-mcp-server on the MCP go-sdk, the SDK
// the real server is built on; safe for concurrent use.
type Server struct {
	opts  Options
	now   func() time.Time
	st    *store
	logs  map[string][]logLine
	mcp   *mcp.Server
	tools []string // names, sorted

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
	for _, v := range opts.ProtocolVersions {
		if !slicesContains(mcp.SupportedProtocolVersions(), v) {
			return nil, fmt.Errorf("k8smcp: protocol version %q: the go-sdk supports %v", v, mcp.SupportedProtocolVersions())
		}
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
	srv.mcp = mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: "0.0.0-sim"},
		&mcp.ServerOptions{Logger: opts.Logger, SupportedProtocolVersions: opts.ProtocolVersions})
	srv.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lt, ok := res.(*mcp.ListToolsResult); ok && err == nil && method == "tools/list" {
				var names []string
				for _, t := range lt.Tools {
					names = append(names, t.Name)
				}
				opts.Transcript.Record(ServiceName, "tools/list", nil, map[string]any{"tools": names})
			}
			return res, err
		}
	})
	srv.addTools()
	return srv, nil
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Handler serves MCP over streamable HTTP (mount it at any path). Every
// call returns the same handler, which holds the sessions.
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() {
		s.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
			&mcp.StreamableHTTPOptions{Stateless: s.opts.Stateless, Logger: s.opts.Logger})
	})
	return s.handler
}

// SSEHandler serves MCP over the older HTTP+SSE transport, as the real
// server's /sse endpoint.
func (s *Server) SSEHandler() http.Handler {
	return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
}

// Serve serves MCP over stdio-like streams until ctx ends or in closes.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed)) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

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

// Argument descriptions and patterns as the real server's tools/list prints them.
const (
	labelSelectorDesc      = "Optional Kubernetes label selector (e.g. 'app=myapp,env=prod' or 'app in (myapp,yourapp)'), use this option when you want to filter the pods by label"
	labelSelectorPattern   = `^([/_.\\-A-Za-z0-9=, ()!])+$`
	fieldSelectorPattern   = `^[.\\-A-Za-z0-9]+([=!,]{1,2}[./\\-A-Za-z0-9]+)+$`
	fieldSelectorDocs      = " See https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors/"
	podFields              = "metadata.name, metadata.namespace, spec.nodeName, spec.restartPolicy, spec.schedulerName, spec.serviceAccountName, status.phase (Pending/Running/Succeeded/Failed/Unknown), status.podIP, status.nominatedNodeName"
	podFieldSelectorDesc   = "Optional Kubernetes field selector to filter pods by field values (e.g. 'status.phase=Running', 'spec.nodeName=node1'). Supported fields: " + podFields + ". Note: CrashLoopBackOff is a container state, not a pod phase, so it cannot be filtered directly." + fieldSelectorDocs
	resourceFieldSelDesc   = "Optional Kubernetes field selector to filter resources by field values (e.g. 'status.phase=Running', 'metadata.name=myresource'). Supported fields vary by resource type. For Pods: " + podFields + "." + fieldSelectorDocs
	eventFieldSelectorDesc = "Optional Kubernetes field selector to filter events by field values (e.g. 'type=Warning', 'involvedObject.name=my-pod'). Supported fields: involvedObject.kind, involvedObject.name, involvedObject.namespace, involvedObject.uid, involvedObject.apiVersion, involvedObject.resourceVersion, involvedObject.fieldPath, reason, reportingComponent, source, type." + fieldSelectorDocs
	nsFieldSelectorDesc    = "Optional Kubernetes field selector to filter namespaces by field values (e.g. 'metadata.name=default', 'status.phase=Active'). Supported fields: metadata.name, status.phase." + fieldSelectorDocs
	apiVersionNote         = "(common apiVersion and kind include: v1 Pod, v1 Service, v1 Node, apps/v1 Deployment, networking.k8s.io/v1 Ingress)"
)

// prop is one property of an input schema.
func prop(typ, desc string, extra ...string) string {
	p := `{"type":"` + typ + `","description":` + quote(desc)
	for i := 0; i+1 < len(extra); i += 2 {
		p += `,"` + extra[i] + `":` + extra[i+1]
	}
	return p + "}"
}

// objectSchema is an input schema: {"type":"object","properties":{...},"required":[...]}.
func objectSchema(props []string, required ...string) string {
	out := `{"type":"object","properties":{`
	for i := 0; i+1 < len(props); i += 2 {
		if i > 0 {
			out += ","
		}
		out += quote(props[i]) + ":" + props[i+1]
	}
	out += "}"
	if len(required) > 0 {
		b, _ := json.Marshal(required)
		out += `,"required":` + string(b)
	}
	return out + "}"
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

var (
	labelSelectorProp = prop("string", labelSelectorDesc, "pattern", quote(labelSelectorPattern))
	podFieldProp      = prop("string", podFieldSelectorDesc, "pattern", quote(fieldSelectorPattern))
)

type toolDef struct {
	name, title, desc string
	schema            string
	readOnly          bool
	destructive       bool
	idempotent        bool
	handler           func(context.Context, args) (string, error)
}

// args are a call's arguments as the real server reads them: a JSON object
// decoded into a map, values taken only when they have the expected type.
type args map[string]any

func (a args) str(k string) string { v, _ := a[k].(string); return v }

func (a args) boolean(k string) bool { v, _ := a[k].(bool); return v }

func (a args) integer(k string, def int) int {
	if v, ok := a[k].(float64); ok {
		return int(v)
	}
	return def
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
	sort.Strings(s.tools)
}

// add registers a tool as the real server converts its tools for the
// go-sdk: the title on the tool and in its annotations, openWorldHint, and
// one text content (the error text with isError on failure).
func (s *Server) add(d toolDef) {
	t := &mcp.Tool{Name: d.name, Title: d.title, Description: d.desc, InputSchema: json.RawMessage(d.schema),
		Annotations: &mcp.ToolAnnotations{Title: d.title, ReadOnlyHint: d.readOnly, DestructiveHint: &d.destructive,
			IdempotentHint: d.idempotent, OpenWorldHint: &openWorld}}
	s.tools = append(s.tools, d.name)
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if s.opts.Latency > 0 {
			select {
			case <-time.After(s.opts.Latency):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		var a args
		if raw := req.Params.Arguments; len(raw) > 0 {
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, fmt.Errorf("failed to unmarshal tool call arguments: %w for tool %s", err, d.name)
			}
		}
		text, err := d.handler(ctx, a)
		rec := map[string]any{}
		res := &mcp.CallToolResult{}
		if err != nil {
			res.IsError, res.Content = true, []mcp.Content{&mcp.TextContent{Text: err.Error()}}
			rec["is_error"], rec["text"] = true, redact.String(err.Error())
		} else {
			res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
			// The transcript is a file users share: what the server
			// answered is recorded masked (and masked before it is cut).
			rec["text"] = clip(redact.String(text), maxTranscriptText)
		}
		s.opts.Transcript.Record(ServiceName, "tools/call "+d.name, map[string]any(a), rec)
		return res, nil
	})
}

var openWorld = true

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
			schema: objectSchema([]string{"fieldSelector", podFieldProp, "labelSelector", labelSelectorProp}),
			handler: func(_ context.Context, r args) (string, error) {
				objs, err := s.selectObjects(query{Kind: "Pod"}, r)
				if err != nil {
					return "", fmt.Errorf("failed to list pods in all namespaces: %w", err)
				}
				return s.printList(objs)
			}},
		{name: "pods_list_in_namespace", title: "Pods: List in Namespace", readOnly: true,
			desc: "List all the Kubernetes pods in the specified namespace in the current cluster",
			schema: objectSchema([]string{"fieldSelector", podFieldProp, "labelSelector", labelSelectorProp,
				"namespace", prop("string", "Namespace to list pods from")}, "namespace"),
			handler: func(_ context.Context, r args) (string, error) {
				ns := r.str("namespace")
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
			schema: objectSchema([]string{"name", prop("string", "Name of the Pod"), "namespace", prop("string", "Namespace to get the Pod from")}, "name"),
			handler: func(_ context.Context, r args) (string, error) {
				name, ns := r.str("name"), r.str("namespace")
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
			desc: "Get the logs of a Kubernetes Pod in the current or provided namespace with the provided name",
			schema: objectSchema([]string{"container", prop("string", "Name of the Pod container to get the logs from (Optional)"),
				"name", prop("string", "Name of the Pod to get the logs from"), "namespace", prop("string", "Namespace to get the Pod logs from"),
				"previous", prop("boolean", "Return previous terminated container logs (Optional)"),
				"tail", prop("integer", "Number of lines to retrieve from the end of the logs (Optional, default: 100)", "default", "100", "minimum", "0")}, "name"),
			handler: func(_ context.Context, r args) (string, error) {
				name, ns := r.str("name"), r.str("namespace")
				if name == "" {
					return "", errors.New("failed to get pod log, missing argument name")
				}
				tail := r.integer("tail", DefaultTailLines)
				if tail <= 0 {
					tail = DefaultTailLines
				}
				tail = min(tail, maxTailLines)
				p, err := s.one("Pod", "", ns, name)
				if err != nil {
					return "", fmt.Errorf("failed to get pod %s log in namespace %s: %w", name, ns, err)
				}
				lines, err := s.podLog(p, r.str("container"), r.boolean("previous"), tail)
				if err != nil {
					return "", fmt.Errorf("failed to get pod %s log in namespace %s: %w", name, p.Namespace, err)
				}
				if len(lines) == 0 {
					return fmt.Sprintf("The pod %s in namespace %s has not logged any message yet", name, p.Namespace), nil
				}
				return strings.Join(lines, "\n") + "\n", nil
			}},
		{name: "events_list", title: "Events: List", readOnly: true,
			desc: "List Kubernetes events (warnings, errors, state changes) for debugging and troubleshooting in the current cluster from all namespaces",
			schema: objectSchema([]string{"fieldSelector", prop("string", eventFieldSelectorDesc, "pattern", quote(fieldSelectorPattern)),
				"namespace", prop("string", "Optional Namespace to retrieve the events from. If not provided, will list events from all namespaces")}),
			handler: func(_ context.Context, r args) (string, error) {
				evs, err := s.selectObjects(query{Kind: "Event", Namespace: r.str("namespace")}, r)
				if err != nil {
					return "", fmt.Errorf("failed to list events in all namespaces: %w", err)
				}
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
			schema: objectSchema([]string{"fieldSelector", prop("string", nsFieldSelectorDesc, "pattern", quote(fieldSelectorPattern))}),
			handler: func(_ context.Context, r args) (string, error) {
				fields, err := parseFieldSelector(r.str("fieldSelector"))
				if err != nil {
					return "", fmt.Errorf("failed to list namespaces: %w", err)
				}
				var objs []*object
				for _, n := range s.st.namespaces() {
					o := &object{APIVersion: "v1", Kind: "Namespace", Name: n, Labels: map[string]string{"kubernetes.io/metadata.name": n},
						Raw: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": n,
							"labels": map[string]any{"kubernetes.io/metadata.name": n}}, "status": map[string]any{"phase": "Active"}}}
					if matchFields(fields, o) {
						objs = append(objs, o)
					}
				}
				return s.printList(objs)
			}},
		{name: "resources_list", title: "Resources: List", readOnly: true,
			desc: "List Kubernetes resources and objects in the current cluster by providing their apiVersion and kind and optionally the namespace and label selector\n" + apiVersionNote,
			schema: objectSchema([]string{"apiVersion", prop("string", "apiVersion of the resources (examples of valid apiVersion are: v1, apps/v1, networking.k8s.io/v1)"),
				"fieldSelector", prop("string", resourceFieldSelDesc, "pattern", quote(fieldSelectorPattern)),
				"kind", prop("string", "kind of the resources (examples of valid kind are: Pod, Service, Deployment, Ingress)"),
				"labelSelector", prop("string", strings.Replace(labelSelectorDesc, "the pods", "the resources", 1), "pattern", quote(labelSelectorPattern)),
				"namespace", prop("string", "Optional Namespace to retrieve the namespaced resources from (ignored in case of cluster scoped resources). If not provided, will list resources from all namespaces")},
				"apiVersion", "kind"),
			handler: func(_ context.Context, r args) (string, error) {
				api, kind := r.str("apiVersion"), r.str("kind")
				if api == "" {
					return "", errors.New("failed to list resources, missing argument apiVersion")
				}
				if kind == "" {
					return "", errors.New("failed to list resources, missing argument kind")
				}
				objs, err := s.selectObjects(query{APIVersion: api, Kind: kind, Namespace: r.str("namespace")}, r)
				if err != nil {
					return "", fmt.Errorf("failed to list resources: %w", err)
				}
				return s.printList(objs)
			}},
		{name: "resources_get", title: "Resources: Get", readOnly: true,
			desc: "Get a Kubernetes resource in the current cluster by providing its apiVersion, kind, optionally the namespace, and its name\n" + apiVersionNote,
			schema: objectSchema([]string{"apiVersion", prop("string", "apiVersion of the resource (examples of valid apiVersion are: v1, apps/v1, networking.k8s.io/v1)"),
				"kind", prop("string", "kind of the resource (examples of valid kind are: Pod, Service, Deployment, Ingress)"),
				"name", prop("string", "Name of the resource"),
				"namespace", prop("string", "Optional Namespace to retrieve the namespaced resource from (ignored in case of cluster scoped resources). If not provided, will get resource from configured namespace")},
				"apiVersion", "kind", "name"),
			handler: func(_ context.Context, r args) (string, error) {
				api, kind, name := r.str("apiVersion"), r.str("kind"), r.str("name")
				switch {
				case api == "":
					return "", errors.New("failed to get resource, missing argument apiVersion")
				case kind == "":
					return "", errors.New("failed to get resource, missing argument kind")
				case name == "":
					return "", errors.New("failed to get resource, missing argument name")
				}
				o, err := s.one(kind, api, r.str("namespace"), name)
				if err != nil {
					return "", fmt.Errorf("failed to get resource: %w", err)
				}
				return marshalYAML(o.Raw)
			}},
	}
}

func (s *Server) writeTools() []toolDef {
	refuse := func(what string) func(context.Context, args) (string, error) {
		return func(context.Context, args) (string, error) {
			return what + " (simulated: nothing was changed)", nil
		}
	}
	return []toolDef{
		{name: "pods_delete", title: "Pods: Delete", destructive: true, idempotent: true,
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
		{name: "resources_create_or_update", title: "Resources: Create or Update", destructive: true, idempotent: true,
			desc:    "Create or update a Kubernetes resource via Server-Side Apply.\n" + apiVersionNote,
			schema:  `{"type":"object","properties":{"resource":{"type":"string"},"namespace":{"type":"string"}},"required":["resource"]}`,
			handler: refuse("# The following resources (YAML) have been created or updated successfully")},
		{name: "resources_delete", title: "Resources: Delete", destructive: true, idempotent: true,
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
func (s *Server) selectObjects(q query, r args) ([]*object, error) {
	var err error
	if q.Labels, err = parseLabelSelector(r.str("labelSelector")); err != nil {
		return nil, err
	}
	if q.Fields, err = parseFieldSelector(r.str("fieldSelector")); err != nil {
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
func (s *Server) ToolNames() []string { return append([]string(nil), s.tools...) }
