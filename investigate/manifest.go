package investigate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Manifest field kinds the engine can tie an infrastructure cause to.
const (
	FieldMemoryLimit   = "memory_limit"
	FieldMemoryRequest = "memory_request"
	FieldCPULimit      = "cpu_limit"
	FieldImage         = "image"
	FieldImageTag      = "image_tag"
	FieldEnv           = "env"     // the env list (Line = the `env:` key)
	FieldEnvVar        = "env_var" // one variable (Name set)
	FieldEnvFrom       = "env_from"
	FieldSecretKeyRef  = "secret_key_ref"
	FieldReadinessPort = "readiness_port"
	FieldLivenessPort  = "liveness_port"
	FieldContainerPort = "container_port"
	FieldReplicas      = "replicas"
	FieldMaxReplicas   = "max_replicas"  // HorizontalPodAutoscaler spec.maxReplicas
	FieldIssuer        = "issuer_ref"    // cert-manager Certificate issuerRef.name
	FieldTLS           = "tls"           // trust stores, CA bundles, certificate settings
	FieldConfigKey     = "config_key"    // a key named by the evidence in a config file
	FieldConfigValue   = "config_value"  // a limit-like key holding a value the evidence quotes
	FieldPDBSelector   = "pdb_selector"  // PodDisruptionBudget spec.selector
	FieldDNSNames      = "dns_names"     // cert-manager Certificate spec.dnsNames
	FieldLivenessPath  = "liveness_path" // livenessProbe.httpGet.path
	// FieldK8sRef is a field a Kubernetes analyzer named (FieldRef),
	// located by LocateField wherever the repository produces it.
	FieldK8sRef = "k8s_field"
)

var tlsKeyRE = regexp.MustCompile(`(?i)trust|ca[-_]?bundle|ca[-_]?certs?$|root[-_]?ca|certificates?$|^ca$|cacert|pinned|pinning`)

// ManifestField is one located setting of a workload in a YAML manifest or
// Helm values file.
type ManifestField struct {
	File      string `json:"file"`
	Line      int    `json:"line"` // 1-based line of the value
	Kind      string `json:"kind"`
	Path      string `json:"path"` // dotted path, containers named in brackets
	Value     string `json:"value"`
	Name      string `json:"name,omitempty"` // env var name, secret name/key
	Container string `json:"container,omitempty"`
	Workload  string `json:"workload,omitempty"`
	// For FieldK8sRef: the analyzer's reference, how the line was found,
	// whether it sets the field itself, and the part of the path to add.
	Ref     *FieldRef `json:"ref,omitempty"`
	How     string    `json:"how,omitempty"`
	Exact   bool      `json:"exact,omitempty"`
	Missing string    `json:"missing,omitempty"`
}

// IsManifestPath reports whether a repository path looks like a deployment
// manifest or Helm values file (a file-name check, no content read).
func IsManifestPath(p string) bool {
	ext := path.Ext(p)
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	lp := strings.ToLower(p)
	base := path.Base(lp)
	if strings.HasPrefix(base, "values") || base == "kustomization.yaml" || base == "kustomization.yml" {
		return true
	}
	for _, d := range []string{"deploy", "k8s", "kube", "kubernetes", "manifests", "helm", "charts", "chart", "kustomize", "overlays", "base", "infra", "ops", "gitops", "argocd", "apps", "environments", "env"} {
		if strings.Contains("/"+lp, "/"+d+"/") || strings.HasPrefix(lp, d+"/") {
			return true
		}
	}
	return false
}

// LocateManifestFields parses a multi-document YAML file and returns the
// settings of the workload named service (matched on workload, container
// or Helm values section names).
func LocateManifestFields(file string, content []byte, service string) ([]ManifestField, error) {
	out, err := locateManifestFields(file, content, service)
	if err != nil && bytes.Contains(content, []byte("{{")) {
		// A Helm template: read it with its directives blanked out, line
		// numbers kept.
		fields, err := locateManifestFields(file, detemplate(content), service)
		kept := fields[:0]
		for _, f := range fields {
			// A computed value says nothing, except in lists whose line is
			// the setting (the names a certificate carries).
			if !strings.Contains(f.Value, templated) || f.Kind == FieldDNSNames {
				f.Value = strings.ReplaceAll(f.Value, templated, "{{…}}")
				kept = append(kept, f)
			}
		}
		return kept, err
	}
	return out, err
}

var (
	directiveLineRE = regexp.MustCompile(`^\s*\{\{.*\}\}\s*$`)
	actionRE        = regexp.MustCompile(`\{\{.*?\}\}`)
)

// detemplate turns a Helm template into YAML: lines that are only a
// template action become empty, other actions become a placeholder scalar.
func detemplate(content []byte) []byte {
	lines := strings.Split(string(content), "\n")
	for i, l := range lines {
		switch {
		case directiveLineRE.MatchString(l):
			lines[i] = ""
		case strings.Contains(l, "{{"):
			lines[i] = actionRE.ReplaceAllString(l, templated)
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// templated stands for a value a template computes.
const templated = "TEMPLATED"

func locateManifestFields(file string, content []byte, service string) ([]ManifestField, error) {
	dec := yaml.NewDecoder(bytes.NewReader(content))
	var out []ManifestField
	want := NormalizeServiceName(service)
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", file, err)
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		root := doc.Content[0]
		kind := scalar(mapGet(root, "kind"))
		switch kind {
		case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod", "Rollout":
			name := scalar(mapGet(mapGet(root, "metadata"), "name"))
			var podSpec *yaml.Node
			var prefix string
			switch kind {
			case "Pod":
				podSpec, prefix = mapGet(root, "spec"), "spec"
			case "CronJob":
				podSpec, prefix = mapGet(mapGet(mapGet(mapGet(mapGet(root, "spec"), "jobTemplate"), "spec"), "template"), "spec"), "spec.jobTemplate.spec.template.spec"
			default:
				podSpec, prefix = mapGet(mapGet(mapGet(root, "spec"), "template"), "spec"), "spec.template.spec"
			}
			workloadMatch := want == "" || NormalizeServiceName(name) == want || strings.Contains(NormalizeServiceName(name), want) || namedByChart(file, name, want)
			containers := seqItems(mapGet(podSpec, "containers"))
			var matched []*yaml.Node
			for _, c := range containers {
				if workloadMatch || NormalizeServiceName(scalar(mapGet(c, "name"))) == want {
					matched = append(matched, c)
				}
			}
			if len(matched) == 0 {
				continue
			}
			if r := mapGet(mapGet(root, "spec"), "replicas"); r != nil && workloadMatch {
				out = append(out, ManifestField{File: file, Line: r.Line, Kind: FieldReplicas, Path: "spec.replicas", Value: r.Value, Workload: name})
			}
			for _, c := range matched {
				cname := scalar(mapGet(c, "name"))
				out = append(out, containerFields(file, c, fmt.Sprintf("%s.containers[%s]", prefix, cname), cname, name)...)
			}
		case "HorizontalPodAutoscaler":
			name := scalar(mapGet(mapGet(root, "metadata"), "name"))
			spec := mapGet(root, "spec")
			target := scalar(mapGet(mapGet(spec, "scaleTargetRef"), "name"))
			if want != "" && !strings.Contains(NormalizeServiceName(name), want) && !strings.Contains(NormalizeServiceName(target), want) {
				continue
			}
			if n := mapGet(spec, "maxReplicas"); n != nil {
				out = append(out, ManifestField{File: file, Line: n.Line, Kind: FieldMaxReplicas, Path: "spec.maxReplicas", Value: n.Value, Workload: name})
			}
		case "PodDisruptionBudget":
			name := scalar(mapGet(mapGet(root, "metadata"), "name"))
			if want != "" && !strings.Contains(NormalizeServiceName(name), want) && !namedByChart(file, name, want) {
				continue
			}
			sel := mapGet(mapGet(root, "spec"), "selector")
			labels := mapGet(sel, "matchLabels")
			if labels == nil || len(labels.Content) < 2 {
				continue
			}
			var pairs []string
			for i := 0; i+1 < len(labels.Content); i += 2 {
				pairs = append(pairs, labels.Content[i].Value+"="+labels.Content[i+1].Value)
			}
			out = append(out, ManifestField{File: file, Line: labels.Content[0].Line, Kind: FieldPDBSelector, Path: "spec.selector.matchLabels", Value: strings.Join(pairs, ","), Workload: name})
		case "Certificate":
			name := scalar(mapGet(mapGet(root, "metadata"), "name"))
			spec := mapGet(root, "spec")
			if want != "" && !strings.Contains(NormalizeServiceName(name), want) && !strings.Contains(NormalizeServiceName(scalar(mapGet(spec, "secretName"))), want) && !strings.Contains(NormalizeServiceName(file), want) {
				continue
			}
			if n := mapGet(mapGet(spec, "issuerRef"), "name"); n != nil {
				out = append(out, ManifestField{File: file, Line: n.Line, Kind: FieldIssuer, Path: "spec.issuerRef.name", Value: n.Value, Workload: name})
			}
			if k, v := mapGetKey(spec, "dnsNames"); k != nil {
				var names []string
				for _, n := range seqItems(v) {
					names = append(names, n.Value)
				}
				out = append(out, ManifestField{File: file, Line: k.Line, Kind: FieldDNSNames, Path: "spec.dnsNames", Value: strings.Join(names, ","), Workload: name})
			}
		case "":
			// Helm values: a section named after the service, or the root
			// when the file belongs to the service's own chart.
			section := root
			sectionPath := ""
			for i := 0; i+1 < len(root.Content); i += 2 {
				if NormalizeServiceName(root.Content[i].Value) == want && root.Content[i+1].Kind == yaml.MappingNode {
					section, sectionPath = root.Content[i+1], root.Content[i].Value+"."
					break
				}
			}
			if section == root && !strings.Contains(NormalizeServiceName(file), want) {
				continue
			}
			out = append(out, valuesFields(file, section, sectionPath, service)...)
			out = append(out, walkTLS(file, section, strings.TrimSuffix(sectionPath, "."), service, 0)...)
		}
	}
	return out, nil
}

func containerFields(file string, c *yaml.Node, prefix, cname, workload string) []ManifestField {
	var out []ManifestField
	add := func(n *yaml.Node, kind, p, name string) {
		if n != nil {
			out = append(out, ManifestField{File: file, Line: n.Line, Kind: kind, Path: prefix + "." + p, Value: n.Value, Name: name, Container: cname, Workload: workload})
		}
	}
	res := mapGet(c, "resources")
	add(mapGet(mapGet(res, "limits"), "memory"), FieldMemoryLimit, "resources.limits.memory", "")
	add(mapGet(mapGet(res, "requests"), "memory"), FieldMemoryRequest, "resources.requests.memory", "")
	add(mapGet(mapGet(res, "limits"), "cpu"), FieldCPULimit, "resources.limits.cpu", "")
	add(mapGet(c, "image"), FieldImage, "image", "")
	if k, v := mapGetKey(c, "env"); k != nil {
		out = append(out, ManifestField{File: file, Line: k.Line, Kind: FieldEnv, Path: prefix + ".env", Container: cname, Workload: workload})
		for _, e := range seqItems(v) {
			name := scalar(mapGet(e, "name"))
			if val := mapGet(e, "value"); val != nil {
				add(val, FieldEnvVar, "env["+name+"].value", name)
			} else if ref := mapGet(mapGet(e, "valueFrom"), "secretKeyRef"); ref != nil {
				key := mapGet(ref, "key")
				if key != nil {
					out = append(out, ManifestField{File: file, Line: key.Line, Kind: FieldSecretKeyRef, Path: prefix + ".env[" + name + "].valueFrom.secretKeyRef.key",
						Value: key.Value, Name: scalar(mapGet(ref, "name")) + "/" + name, Container: cname, Workload: workload})
				}
			} else if ref := mapGet(mapGet(e, "valueFrom"), "configMapKeyRef"); ref != nil {
				add(mapGet(ref, "key"), FieldEnvVar, "env["+name+"].valueFrom.configMapKeyRef.key", name)
			}
		}
	}
	if k, _ := mapGetKey(c, "envFrom"); k != nil {
		out = append(out, ManifestField{File: file, Line: k.Line, Kind: FieldEnvFrom, Path: prefix + ".envFrom", Container: cname, Workload: workload})
	}
	add(mapGet(mapGet(mapGet(c, "livenessProbe"), "httpGet"), "path"), FieldLivenessPath, "livenessProbe.httpGet.path", "")
	for _, probe := range []struct{ key, kind string }{{"readinessProbe", FieldReadinessPort}, {"livenessProbe", FieldLivenessPort}} {
		p := mapGet(c, probe.key)
		for _, h := range []string{"httpGet", "tcpSocket", "grpc"} {
			add(mapGet(mapGet(p, h), "port"), probe.kind, probe.key+"."+h+".port", "")
		}
	}
	for _, port := range seqItems(mapGet(c, "ports")) {
		add(mapGet(port, "containerPort"), FieldContainerPort, "ports["+scalar(mapGet(port, "name"))+"].containerPort", scalar(mapGet(port, "name")))
	}
	return out
}

func valuesFields(file string, s *yaml.Node, prefix, service string) []ManifestField {
	var out []ManifestField
	add := func(n *yaml.Node, kind, p, name string) {
		if n != nil && n.Kind == yaml.ScalarNode {
			out = append(out, ManifestField{File: file, Line: n.Line, Kind: kind, Path: prefix + p, Value: n.Value, Name: name, Workload: service})
		}
	}
	res := mapGet(s, "resources")
	add(mapGet(mapGet(res, "limits"), "memory"), FieldMemoryLimit, "resources.limits.memory", "")
	add(mapGet(mapGet(res, "requests"), "memory"), FieldMemoryRequest, "resources.requests.memory", "")
	add(mapGet(mapGet(res, "limits"), "cpu"), FieldCPULimit, "resources.limits.cpu", "")
	img := mapGet(s, "image")
	if img != nil && img.Kind == yaml.MappingNode {
		add(mapGet(img, "tag"), FieldImageTag, "image.tag", "")
		add(mapGet(img, "repository"), FieldImage, "image.repository", "")
	} else {
		add(img, FieldImage, "image", "")
	}
	add(mapGet(s, "replicaCount"), FieldReplicas, "replicaCount", "")
	for _, key := range []string{"autoscaling", "hpa"} {
		add(mapGet(mapGet(s, key), "maxReplicas"), FieldMaxReplicas, key+".maxReplicas", "")
	}
	for _, key := range []string{"env", "extraEnv", "environment", "envVars"} {
		k, v := mapGetKey(s, key)
		if k == nil {
			continue
		}
		out = append(out, ManifestField{File: file, Line: k.Line, Kind: FieldEnv, Path: prefix + key, Workload: service})
		switch v.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(v.Content); i += 2 {
				add(v.Content[i+1], FieldEnvVar, key+"."+v.Content[i].Value, v.Content[i].Value)
			}
		case yaml.SequenceNode:
			for _, e := range v.Content {
				add(mapGet(e, "value"), FieldEnvVar, key+"["+scalar(mapGet(e, "name"))+"].value", scalar(mapGet(e, "name")))
			}
		}
	}
	for _, probe := range []struct{ key, kind string }{{"readinessProbe", FieldReadinessPort}, {"livenessProbe", FieldLivenessPort}} {
		p := mapGet(s, probe.key)
		for _, h := range []string{"httpGet", "tcpSocket", "grpc"} {
			add(mapGet(mapGet(p, h), "port"), probe.kind, probe.key+"."+h+".port", "")
		}
	}
	add(mapGet(mapGet(s, "service"), "targetPort"), FieldContainerPort, "service.targetPort", "")
	add(mapGet(s, "containerPort"), FieldContainerPort, "containerPort", "")
	return out
}

func mapGetKey(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

func mapGet(n *yaml.Node, key string) *yaml.Node {
	_, v := mapGetKey(n, key)
	return v
}

func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// walkTLS finds trust-store / CA bundle settings at any depth of a values section.
func walkTLS(file string, n *yaml.Node, prefix, service string, depth int) []ManifestField {
	if n == nil || depth > 8 {
		return nil
	}
	var out []ManifestField
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if prefix != "" {
				p = prefix + "." + k.Value
			}
			if tlsKeyRE.MatchString(k.Value) {
				line, val := k.Line, v.Value
				if v.Kind == yaml.ScalarNode {
					line = v.Line
				} else if len(v.Content) > 0 {
					val = ""
				}
				out = append(out, ManifestField{File: file, Line: line, Kind: FieldTLS, Path: p, Value: val, Workload: service})
			}
			out = append(out, walkTLS(file, v, p, service, depth+1)...)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			out = append(out, walkTLS(file, c, fmt.Sprintf("%s[%d]", prefix, i), service, depth+1)...)
		}
	}
	return out
}

// LocateConfigKeys finds, in any text config file (ini, conf, properties,
// toml, env, yaml), the lines that set one of keys.
func LocateConfigKeys(file string, content []byte, keys []string) []ManifestField {
	var out []ManifestField
	if len(keys) == 0 {
		return nil
	}
	for i, line := range strings.Split(string(content), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") || strings.HasPrefix(t, "//") {
			continue
		}
		for _, k := range keys {
			kl := strings.ToLower(k)
			tl := strings.ToLower(t)
			if !strings.HasPrefix(tl, kl) && !strings.HasPrefix(tl, "- "+kl) && !strings.HasPrefix(tl, `"`+kl) {
				continue
			}
			rest := strings.TrimSpace(t[len(k):])
			rest = strings.TrimLeft(rest, `"`)
			rest = strings.TrimSpace(rest)
			if !strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, ":") && !(rest != "" && rest[0] == ' ') {
				continue
			}
			val := strings.TrimSpace(strings.TrimLeft(rest, "=: "))
			out = append(out, ManifestField{File: file, Line: i + 1, Kind: FieldConfigKey, Path: k, Value: val, Name: k})
		}
	}
	return out
}

// namedByChart: an object whose name a template computes belongs to the
// service whose chart the file is in (charts/claims-api/templates/...).
func namedByChart(file, name, want string) bool {
	if want == "" || !strings.Contains(name, templated) {
		return false
	}
	for _, seg := range strings.Split(path.Dir(file), "/") {
		if NormalizeServiceName(seg) == want {
			return true
		}
	}
	return false
}

// limitKeyRE: setting names that bound something (a wait, a size, a count,
// a rate): the settings a quoted limit is looked for in.
var limitKeyRE = regexp.MustCompile(`(?i)timeout|deadline|max|min|limit|size|pool|conn|ttl|interval|rate|burst|quota|capacity|threads|workers|retries|memory|heap|period|expir|window|concurren|batch|buffer|queue|wait`)

// configAssignRE: "key: value", "key = value", "KEY=value" on one line.
var configAssignRE = regexp.MustCompile(`^\s*(?:-\s*)?["']?([A-Za-z_][\w.-]*)["']?\s*[:=]\s*["']?([^"'#\s,]+)`)

// quotedNumberRE splits a value into its number and unit (150ms, 2MB, 5).
var quotedNumberRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*([A-Za-z%]*)$`)

// LocateConfigValues returns the config lines whose limit-like key holds
// one of values (the limit a failure quotes: "aborted after 150ms" ->
// inventory_timeout_ms: 150; "exceeds 2MB" -> max_body_size = "2MB"). A
// bare number matches a value with a unit when the key names the unit.
func LocateConfigValues(file string, content []byte, values []string) []ManifestField {
	if len(values) == 0 {
		return nil
	}
	var out []ManifestField
	for i, line := range strings.Split(string(content), "\n") {
		m := configAssignRE.FindStringSubmatch(line)
		if m == nil || !limitKeyRE.MatchString(m[1]) {
			continue
		}
		have := quotedNumberRE.FindStringSubmatch(m[2])
		if have == nil {
			continue
		}
		for _, v := range values {
			want := quotedNumberRE.FindStringSubmatch(strings.TrimSpace(v))
			if want == nil || want[1] != have[1] {
				continue
			}
			hu, wu := strings.ToLower(have[2]), strings.ToLower(want[2])
			key := strings.ToLower(m[1])
			if hu == wu || (hu == "" && (wu == "" || strings.HasSuffix(key, wu) || strings.Contains(key, "_"+wu+"_"))) {
				out = append(out, ManifestField{File: file, Line: i + 1, Kind: FieldConfigValue, Path: m[1], Value: m[2], Name: m[1]})
				break
			}
		}
	}
	return out
}
