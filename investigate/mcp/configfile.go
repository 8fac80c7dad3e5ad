package mcp

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/config/yamlfile"
)

// ConfigSection is the top-level key of the AUTOHEAL_CONFIG file that lists
// the operator's MCP servers:
//
//	mcp_servers:
//	  - name: argocd                       # tools are offered as argocd__<tool>
//	    url: http://argocd-mcp.argocd.svc:8080/mcp
//	    transport: http                    # http (default with url), sse, or stdio (default with command)
//	    headers:
//	      Authorization: ARGOCD_MCP_AUTH   # names an environment variable, never the secret
//	      X-Api-Key: {env: ARGOCD_API_KEY}
//	      X-Token: {file: /var/run/secrets/argocd/token, prefix: "Bearer "}
//	    tools: [list_applications, get_application]   # the allowlist
//	    timeout: 20s                       # one tool call
//	  - name: kubernetes                   # backs the Kubernetes capability when k8s_mcp_url is not set
//	    command: kubernetes-mcp-server
//	    args: [--read-only]
//	    env: [KUBECONFIG]                  # the only variables the child sees (with PATH and HOME)
//
// Every key must be known; an error names the file, the line and the path
// of the value (mcp_servers[1].headers.Authorization).
const ConfigSection = "mcp_servers"

// FileError is one problem of the mcp_servers section, with its line.
type FileError = yamlfile.Error

// LoadConfigFile reads the mcp_servers section of the config file at path
// (nil when the file has none).
func LoadConfigFile(path string) ([]ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	return ParseConfigFile(path, data)
}

// ParseConfigFile parses the mcp_servers section of a config file's
// content; name is used in errors. Other top-level sections (routing:, …)
// belong to other parts of the product and are left alone. Every server is
// validated (see ServerConfig.Validate) and names are unique. All problems
// are reported at once.
func ParseConfigFile(name string, data []byte) ([]ServerConfig, error) {
	root, err := yamlfile.Root(name, data, "routing:, mcp_servers:, …")
	if err != nil || root == nil {
		return nil, err
	}
	var section *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == ConfigSection {
			if section != nil {
				return nil, &FileError{File: name, Line: root.Content[i].Line, Path: ConfigSection, Msg: "section defined twice"}
			}
			section = root.Content[i+1]
		}
	}
	if section == nil || section.Tag == "!!null" {
		return nil, nil
	}
	p := &fileParser{yamlfile.Parser{File: name}}
	servers := p.servers(section)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return servers, nil
}

// fileParser reads the mcp_servers section.
type fileParser struct{ yamlfile.Parser }

func (p *fileParser) strings(n *yaml.Node, path string) []string {
	if n.Kind != yaml.SequenceNode {
		p.Errf(n, path, "must be a list")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, it := range n.Content {
		if v, ok := p.Scalar(it, fmt.Sprintf("%s[%d]", path, i)); ok {
			out = append(out, v)
		}
	}
	return out
}

func (p *fileParser) servers(n *yaml.Node) []ServerConfig {
	if n.Kind != yaml.SequenceNode {
		p.Errf(n, ConfigSection, "must be a list of servers (- name: …)")
		return nil
	}
	if len(n.Content) > MaxServers {
		p.Errf(n, ConfigSection, "%d servers, at most %d", len(n.Content), MaxServers)
		return nil
	}
	var out []ServerConfig
	names := map[string]int{}
	for i, it := range n.Content {
		path := fmt.Sprintf("%s[%d]", ConfigSection, i)
		before := p.Count()
		c := p.server(it, path)
		if p.Count() > before {
			continue // Validate would repeat what is already reported
		}
		if err := c.Validate(); err != nil {
			var ce *ConfigError
			if errors.As(err, &ce) {
				p.Errf(it, path+"."+ce.Field, "%v", ce.Err.Error()+detail(ce.Detail))
			} else {
				p.Errf(it, path, "%v", err)
			}
			continue
		}
		if prev, dup := names[c.Name]; dup {
			p.Errf(it, path+".name", "server name %q is also used by %s[%d]", c.Name, ConfigSection, prev)
			continue
		}
		names[c.Name] = i
		out = append(out, c)
	}
	return out
}

func detail(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}

func (p *fileParser) server(n *yaml.Node, path string) ServerConfig {
	var c ServerConfig
	hasName := false
	p.Fields(n, path, map[string]func(k, v *yaml.Node, path string){
		"name": func(_, v *yaml.Node, path string) {
			if s, ok := p.Scalar(v, path); ok {
				hasName = true
				if len(s) > MaxServerNameLen || !serverNameRE.MatchString(s) {
					p.Errf(v, path, "%q: want lower-case letters, digits and dashes, at most %d characters", truncate(s, 40), MaxServerNameLen)
					return
				}
				c.Name = s
			}
		},
		"transport": func(_, v *yaml.Node, path string) {
			if s, ok := p.Scalar(v, path); ok {
				switch s {
				case TransportHTTP, TransportSSE, TransportStdio:
					c.Kind = s
				default:
					p.Errf(v, path, "%q: want http, sse or stdio", truncate(s, 20))
				}
			}
		},
		"url": func(_, v *yaml.Node, path string) {
			if s, ok := p.Scalar(v, path); ok {
				c.URL = s
			}
		},
		"command": func(_, v *yaml.Node, path string) {
			if s, ok := p.Scalar(v, path); ok {
				c.Command = s
			}
		},
		"args": func(_, v *yaml.Node, path string) { c.Args = p.strings(v, path) },
		"env": func(_, v *yaml.Node, path string) {
			for i, e := range p.strings(v, path) {
				if !envNameRE.MatchString(e) {
					p.Errf(v.Content[i], fmt.Sprintf("%s[%d]", path, i), "%q is not a variable name (list names, not NAME=value)", truncate(e, 40))
					continue
				}
				c.Env = append(c.Env, e)
			}
		},
		"headers": func(_, v *yaml.Node, path string) { p.headers(v, path, &c) },
		"tools": func(_, v *yaml.Node, path string) {
			seen := map[string]bool{}
			for i, t := range p.strings(v, path) {
				switch {
				case !toolNameRE.MatchString(t):
					p.Errf(v.Content[i], fmt.Sprintf("%s[%d]", path, i), "%q is not a tool name", truncate(t, 40))
				case seen[t]:
					p.Errf(v.Content[i], fmt.Sprintf("%s[%d]", path, i), "tool %q listed twice", t)
				default:
					seen[t] = true
					c.Tools = append(c.Tools, t)
				}
			}
		},
		"timeout": func(_, v *yaml.Node, path string) {
			s, ok := p.Scalar(v, path)
			if !ok {
				return
			}
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 || d > MaxCallTimeout {
				p.Errf(v, path, "%q: want a duration from 1s to %s (default %s)", truncate(s, 20), MaxCallTimeout, DefaultCallTimeout)
				return
			}
			c.Timeout = d
		},
	})
	if n.Kind == yaml.MappingNode && !hasName {
		p.Errf(n, path+".name", "is required (tools are offered as <name>__<tool>)")
	}
	return c
}

// headers reads header: ENV_NAME, header: {env: ENV_NAME} or header:
// {file: /path}, each with an optional prefix in the mapping forms.
func (p *fileParser) headers(n *yaml.Node, path string, c *ServerConfig) {
	if n.Kind != yaml.MappingNode {
		p.Errf(n, path, "must be a mapping of header names to secret references (Authorization: ENV_NAME)")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := k.Value
		sub := path + "." + name
		if !headerNameRE.MatchString(name) {
			p.Errf(k, sub, "%q is not a header name", truncate(name, 40))
			continue
		}
		_, dupEnv := c.Headers[name]
		_, dupFile := c.HeaderFiles[name]
		if dupEnv || dupFile {
			p.Errf(k, sub, "defined twice")
			continue
		}
		var env, file, prefix string
		if v.Kind == yaml.ScalarNode {
			s, ok := p.Scalar(v, sub)
			if !ok {
				continue
			}
			env = s
		} else {
			p.Fields(v, sub, map[string]func(k, v *yaml.Node, path string){
				"env": func(_, v *yaml.Node, path string) {
					if s, ok := p.Scalar(v, path); ok {
						env = s
					}
				},
				"file": func(_, v *yaml.Node, path string) {
					if s, ok := p.Scalar(v, path); ok {
						file = s
					}
				},
				"prefix": func(_, v *yaml.Node, path string) {
					if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
						p.Errf(v, path, "must be a single value")
						return
					}
					prefix = v.Value // kept as written: "Bearer " ends with a space
				},
			})
			if v.Kind != yaml.MappingNode {
				continue
			}
			if (env == "") == (file == "") {
				p.Errf(v, sub, "want exactly one of env: VARIABLE or file: /path")
				continue
			}
		}
		switch {
		case env != "" && !envNameRE.MatchString(env):
			// Not echoed: it may be the secret itself, pasted by mistake.
			p.Errf(v, sub, "the value must name an environment variable that holds the secret (or use {file: /path}), never the secret itself")
			continue
		case file != "" && (!strings.HasPrefix(file, "/") || strings.ContainsAny(file, "\x00\n")):
			p.Errf(v, sub, "file: want an absolute path (a mounted Secret)")
			continue
		case len(prefix) > 64 || strings.ContainsAny(prefix, "\r\n\x00"):
			p.Errf(v, sub+".prefix", "must be one line of at most 64 bytes")
			continue
		}
		if env != "" {
			if c.Headers == nil {
				c.Headers = map[string]string{}
			}
			c.Headers[name] = env
		} else {
			if c.HeaderFiles == nil {
				c.HeaderFiles = map[string]string{}
			}
			c.HeaderFiles[name] = file
		}
		if prefix != "" {
			if c.HeaderPrefix == nil {
				c.HeaderPrefix = map[string]string{}
			}
			c.HeaderPrefix[name] = prefix
		}
	}
}
