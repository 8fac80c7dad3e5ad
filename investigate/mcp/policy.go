package mcp

import (
	"fmt"
	"slices"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// KnownServer describes an MCP server AutoHeal knows: the tools that are
// read-only even when the server does not annotate them, which are also the
// default allowlist.
type KnownServer struct {
	// Names the server may be configured under (what it reports in
	// serverInfo is never trusted: any server can claim a name).
	Names []string
	// ReadOnly tools: never modify anything.
	ReadOnly []string
}

// KubernetesReadOnlyTools are the read-only tools of
// github.com/containers/kubernetes-mcp-server used for investigations.
// configuration_view is deliberately absent: it returns kubeconfig content.
var KubernetesReadOnlyTools = []string{
	"pods_list", "pods_list_in_namespace", "pods_get", "pods_log", "pods_top",
	"events_list", "namespaces_list", "resources_list", "resources_get",
	"nodes_top", "nodes_log", "nodes_stats_summary",
}

// KnownServers are the servers with a built-in read-only list.
var KnownServers = []KnownServer{
	{Names: []string{"kubernetes", "kubernetes-mcp-server", "k8s"}, ReadOnly: KubernetesReadOnlyTools},
}

// known returns the known server configured under name.
func known(name string) *KnownServer {
	for i := range KnownServers {
		if name != "" && slices.Contains(KnownServers[i].Names, name) {
			return &KnownServers[i]
		}
	}
	return nil
}

// Decision says whether a tool may be called, and if not, why.
type Decision struct {
	Allowed bool
	Reason  string
}

// decide applies the policy to one tool the server lists:
//   - a tool must be on the allowlist (the configured one, or the known
//     server's read-only list when none is configured);
//   - destructiveHint: true is always refused;
//   - a tool must be read-only: readOnlyHint: true, or on the known
//     server's built-in read-only list.
func decide(cfg ServerConfig, ks *KnownServer, t mcpgo.Tool) Decision {
	allow := cfg.Tools
	if len(allow) == 0 && ks != nil {
		allow = ks.ReadOnly
	}
	if !slices.Contains(allow, t.Name) {
		if len(allow) == 0 {
			return Decision{Reason: fmt.Sprintf("tool %q refused: server %q has no allowlist (configure tools: [...])", t.Name, cfg.Name)}
		}
		return Decision{Reason: fmt.Sprintf("tool %q refused: not on the allowlist of server %q", t.Name, cfg.Name)}
	}
	a := t.Annotations
	if a.DestructiveHint != nil && *a.DestructiveHint {
		return Decision{Reason: fmt.Sprintf("tool %q refused: the server marks it destructive", t.Name)}
	}
	switch {
	case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		return Decision{Allowed: true}
	case ks != nil && slices.Contains(ks.ReadOnly, t.Name):
		return Decision{Allowed: true}
	}
	return Decision{Reason: fmt.Sprintf("tool %q refused: not annotated read-only (readOnlyHint: true) and not a known read-only tool", t.Name)}
}
