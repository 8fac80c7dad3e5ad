package alerts

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/config/yamlfile"
)

// ConfigEnv names the environment variable holding the config file's path.
const ConfigEnv = "AUTOHEAL_CONFIG"

// Routing defaults.
const (
	DefaultCooldown     = 30 * time.Minute
	DefaultDedupeWindow = 5 * time.Minute
	maxDuration         = 30 * 24 * time.Hour
	maxRoutes           = 500
)

// Config is the part of the AUTOHEAL_CONFIG file this package owns: the
// routing section. Other top-level sections (mcp_servers:, …) belong to
// other parts of the product and are left alone here.
type Config struct {
	// Routing is nil when the file has no routing section.
	Routing *Routing
}

// Routing decides, per alert, the channel its thread opens in, whether it
// is investigated automatically, the cooldown between investigations, the
// labels of its issue key and the session settings of its thread.
//
//	routing:
//	  default_channel: C0INCIDENTS      # alerts no route matches
//	  cooldown: 30m                     # least time between two automatic investigations of one incident
//	  dedupe_window: 5m                 # identical notifications within it count once
//	  issue_key_labels: [cluster]       # labels added to every issue key
//	  required_labels: [namespace]      # alerts without them are refused (400)
//	  investigate: true                 # or {severities: [critical], matchers: ['team!="qa"']}
//	  session: {repo: acme/shop}        # thread settings (non-secret config keys)
//	  routes:                           # first match wins
//	    - name: payments
//	      matchers: ['namespace="payments"', 'severity=~"critical|warning"']
//	      channel: C0PAYMENTS
//	      investigate: {severities: [critical]}
//	      cooldown: 1h
//	      issue_key_labels: [region]
//	      session: {repo: acme/payments, service_name: payments-api, log_service_label: app}
//	    - name: watchdog
//	      matchers: ['alertname="Watchdog"']
//	      ignore: true                    # acknowledged, never posted
type Routing struct {
	DefaultChannel string
	Cooldown       time.Duration
	DedupeWindow   time.Duration
	IssueKeyLabels []string
	RequiredLabels []string
	Investigate    Policy
	Session        map[string]string
	Routes         []Route
}

// Route is one routing rule.
type Route struct {
	Name     string
	Matchers []Matcher
	// Channel is the Slack channel id (default Routing.DefaultChannel).
	Channel string
	// Ignore acknowledges matching alerts without posting them.
	Ignore bool
	// Investigate overrides Routing.Investigate when set.
	Investigate *Policy
	// Cooldown overrides Routing.Cooldown when positive.
	Cooldown time.Duration
	// IssueKeyLabels are added to Routing.IssueKeyLabels.
	IssueKeyLabels []string
	// Session is merged over Routing.Session.
	Session map[string]string
}

// Policy decides which alerts are investigated automatically; the others
// are only posted (anyone can still mention @autoheal in their thread).
type Policy struct {
	Enabled bool
	// Severities, when set, limit investigations to these severity label
	// values (case-insensitive).
	Severities []string
	// Matchers must all match.
	Matchers []Matcher
}

// Allows reports whether the policy investigates an alert with labels.
func (p Policy) Allows(labels map[string]string) bool {
	if !p.Enabled {
		return false
	}
	if len(p.Severities) > 0 {
		sev := strings.ToLower(strings.TrimSpace(labels["severity"]))
		found := false
		for _, s := range p.Severities {
			if s == sev {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return matchAll(p.Matchers, labels)
}

// DefaultRouting sends every alert to channel and investigates it.
func DefaultRouting(channel string) *Routing {
	return &Routing{DefaultChannel: channel, Cooldown: DefaultCooldown, DedupeWindow: DefaultDedupeWindow,
		Investigate: Policy{Enabled: true}, Session: map[string]string{}}
}

// Decision is where one alert goes and how it is handled.
type Decision struct {
	Route       string
	Channel     string
	Ignore      bool
	Investigate bool
	Cooldown    time.Duration
	// KeyLabels are the extra issue-key labels, sorted.
	KeyLabels []string
	Session   map[string]string
}

// Decide routes one alert: the first route whose matchers all match, else
// the defaults.
func (r *Routing) Decide(labels map[string]string) Decision {
	d := Decision{Route: "default", Channel: r.DefaultChannel, Investigate: r.Investigate.Allows(labels), Cooldown: r.Cooldown,
		KeyLabels: r.IssueKeyLabels, Session: r.Session}
	for _, rt := range r.Routes {
		if !matchAll(rt.Matchers, labels) {
			continue
		}
		d.Route, d.Ignore = rt.Name, rt.Ignore
		if rt.Channel != "" {
			d.Channel = rt.Channel
		}
		if rt.Investigate != nil {
			d.Investigate = rt.Investigate.Allows(labels)
		}
		if rt.Cooldown > 0 {
			d.Cooldown = rt.Cooldown
		}
		if len(rt.IssueKeyLabels) > 0 {
			d.KeyLabels = mergeLabels(r.IssueKeyLabels, rt.IssueKeyLabels)
		}
		if len(rt.Session) > 0 {
			s := make(map[string]string, len(r.Session)+len(rt.Session))
			for k, v := range r.Session {
				s[k] = v
			}
			for k, v := range rt.Session {
				s[k] = v
			}
			d.Session = s
		}
		break
	}
	return d
}

func mergeLabels(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range append(append([]string{}, a...), b...) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// ConfigError is one problem in the config file, with its line.
type ConfigError = yamlfile.Error

// LoadConfig reads and parses the config file at path.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig parses a config file's content; name is used in errors.
// Unknown top-level sections are accepted (they belong to other parts of
// the product); inside routing every key must be known, and every error
// names its line. All problems are reported at once.
func ParseConfig(name string, data []byte) (*Config, error) {
	root, err := yamlfile.Root(name, data, "routing:, …")
	if err != nil {
		return nil, err
	}
	cfg := &Config{}
	if root == nil {
		return cfg, nil // empty file
	}
	p := &parser{yamlfile.Parser{File: name}}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			p.Errf(k, k.Value, "section defined twice")
			continue
		}
		seen[k.Value] = true
		if k.Value == "routing" {
			cfg.Routing = p.routing(v)
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// parser reads the routing section.
type parser struct{ yamlfile.Parser }

func (p *parser) str(n *yaml.Node, path string, into *string) {
	if v, ok := p.Scalar(n, path); ok {
		*into = v
	}
}

func (p *parser) boolean(n *yaml.Node, path string, into *bool) {
	v, ok := p.Scalar(n, path)
	if !ok {
		return
	}
	b, err := strconv.ParseBool(v)
	if err != nil || n.Tag != "!!bool" {
		p.Errf(n, path, "must be true or false, got %q", v)
		return
	}
	*into = b
}

func (p *parser) duration(n *yaml.Node, path string, into *time.Duration, allowZero bool) {
	v, ok := p.Scalar(n, path)
	if !ok {
		return
	}
	d, err := model.ParseDuration(v)
	switch {
	case err != nil:
		p.Errf(n, path, "%q is not a duration (use 90s, 30m, 4h, 1d)", v)
	case time.Duration(d) == 0 && !allowZero:
		p.Errf(n, path, "must be positive")
	case time.Duration(d) > maxDuration:
		p.Errf(n, path, "%s is longer than %s", v, model.Duration(maxDuration))
	default:
		*into = time.Duration(d)
	}
}

func (p *parser) labels(n *yaml.Node, path string, into *[]string) {
	seen := map[string]bool{}
	var out []string
	for i, it := range p.List(n, path) {
		sub := fmt.Sprintf("%s[%d]", path, i)
		v, ok := p.Scalar(it, sub)
		if !ok {
			continue
		}
		if !labelNameRE.MatchString(v) {
			p.Errf(it, sub, "%q is not a label name", v)
			continue
		}
		if seen[v] {
			p.Errf(it, sub, "label %q listed twice", v)
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	sort.Strings(out)
	*into = out
}

func (p *parser) matchers(n *yaml.Node, path string, into *[]Matcher) {
	var out []Matcher
	for i, it := range p.List(n, path) {
		sub := fmt.Sprintf("%s[%d]", path, i)
		v, ok := p.Scalar(it, sub)
		if !ok {
			continue
		}
		m, err := ParseMatcher(v)
		if err != nil {
			p.Errf(it, sub, "%v", err)
			continue
		}
		out = append(out, m)
	}
	*into = out
}

var channelIDRE = regexp.MustCompile(`^[CG][A-Z0-9]{2,24}$`)

func (p *parser) channel(n *yaml.Node, path string, into *string) {
	v, ok := p.Scalar(n, path)
	if !ok {
		return
	}
	if !channelIDRE.MatchString(v) {
		p.Errf(n, path, "%q is not a Slack channel id (C… or G…; copy it from the channel's details, names can change)", v)
		return
	}
	*into = v
}

func (p *parser) policy(n *yaml.Node, path string) *Policy {
	if n.Kind == yaml.ScalarNode {
		pol := &Policy{}
		p.boolean(n, path, &pol.Enabled)
		return pol
	}
	pol := &Policy{Enabled: true}
	p.Fields(n, path, map[string]func(_, v *yaml.Node, path string){
		"severities": func(_, v *yaml.Node, path string) {
			for i, it := range p.List(v, path) {
				if s, ok := p.Scalar(it, fmt.Sprintf("%s[%d]", path, i)); ok && s != "" {
					pol.Severities = append(pol.Severities, strings.ToLower(s))
				}
			}
		},
		"matchers": func(_, v *yaml.Node, path string) { p.matchers(v, path, &pol.Matchers) },
	})
	return pol
}

func (p *parser) session(n *yaml.Node, path string) map[string]string {
	out := map[string]string{}
	if n.Kind != yaml.MappingNode {
		p.Errf(n, path, "must be a mapping of settings (repo: acme/shop)")
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		sub := path + "." + k.Value
		key, ok := config.Lookup(k.Value)
		if !ok {
			p.Errf(k, sub, "unknown setting %q (known: %s)", k.Value, strings.Join(config.Names(), ", "))
			continue
		}
		if key.Secret {
			p.Errf(k, sub, "%s is a secret: set it with %s or /autoheal config, never in this file", key.Name, key.Env)
			continue
		}
		if _, dup := out[key.Name]; dup {
			p.Errf(k, sub, "defined twice")
			continue
		}
		val, ok := p.Scalar(v, sub)
		if !ok {
			continue
		}
		if _, err := config.Check(key.Name, val); err != nil {
			p.Errf(v, sub, "%v", err)
			continue
		}
		out[key.Name] = val
	}
	return out
}

func (p *parser) routing(n *yaml.Node) *Routing {
	r := DefaultRouting("")
	defaultLine := n
	p.Fields(n, "routing", map[string]func(_, v *yaml.Node, path string){
		"default_channel":  func(_, v *yaml.Node, path string) { defaultLine = v; p.channel(v, path, &r.DefaultChannel) },
		"cooldown":         func(_, v *yaml.Node, path string) { p.duration(v, path, &r.Cooldown, true) },
		"dedupe_window":    func(_, v *yaml.Node, path string) { p.duration(v, path, &r.DedupeWindow, false) },
		"issue_key_labels": func(_, v *yaml.Node, path string) { p.labels(v, path, &r.IssueKeyLabels) },
		"required_labels":  func(_, v *yaml.Node, path string) { p.labels(v, path, &r.RequiredLabels) },
		"investigate":      func(_, v *yaml.Node, path string) { r.Investigate = *p.policy(v, path) },
		"session":          func(_, v *yaml.Node, path string) { r.Session = p.session(v, path) },
		"routes": func(_, v *yaml.Node, path string) {
			items := p.List(v, path)
			if len(items) > maxRoutes {
				p.Errf(v, path, "%d routes, at most %d", len(items), maxRoutes)
				return
			}
			names := map[string]int{}
			for i, it := range items {
				rt := p.route(it, fmt.Sprintf("%s[%d]", path, i), i)
				if prev, dup := names[rt.Name]; dup {
					p.Errf(it, fmt.Sprintf("%s[%d].name", path, i), "route name %q is also used by routes[%d]", rt.Name, prev)
				}
				names[rt.Name] = i
				r.Routes = append(r.Routes, rt)
			}
		},
	})
	if n.Kind == yaml.MappingNode && r.DefaultChannel == "" {
		p.Errf(defaultLine, "routing.default_channel", "is required: the Slack channel id (C…) that gets alerts no route matches")
	}
	return r
}

func (p *parser) route(n *yaml.Node, path string, i int) Route {
	rt := Route{Name: fmt.Sprintf("routes[%d]", i)}
	hasMatchers := false
	p.Fields(n, path, map[string]func(_, v *yaml.Node, path string){
		"name": func(_, v *yaml.Node, path string) {
			if s, ok := p.Scalar(v, path); ok {
				if s == "" || len(s) > 64 {
					p.Errf(v, path, "must be 1-64 characters")
					return
				}
				rt.Name = s
			}
		},
		"matchers": func(_, v *yaml.Node, path string) { hasMatchers = true; p.matchers(v, path, &rt.Matchers) },
		"channel":  func(_, v *yaml.Node, path string) { p.channel(v, path, &rt.Channel) },
		"ignore":   func(_, v *yaml.Node, path string) { p.boolean(v, path, &rt.Ignore) },
		"investigate": func(_, v *yaml.Node, path string) {
			rt.Investigate = p.policy(v, path)
		},
		"cooldown":         func(_, v *yaml.Node, path string) { p.duration(v, path, &rt.Cooldown, false) },
		"issue_key_labels": func(_, v *yaml.Node, path string) { p.labels(v, path, &rt.IssueKeyLabels) },
		"session":          func(_, v *yaml.Node, path string) { rt.Session = p.session(v, path) },
	})
	if n.Kind == yaml.MappingNode && !hasMatchers {
		p.Errf(n, path+".matchers", "is required (a route without matchers would catch every alert; use default_channel for that)")
	}
	return rt
}
