package config

import "maps"

// Group is one backend's endpoint: the setting holding its URL and the
// settings bound to that URL (credentials, tenant) that may only ever be
// sent to it. Settings resolve a group as a unit (see sessions.Resolve):
// a credential is never paired with a URL given in a less trusted scope.
type Group struct {
	URL   string   // the *_url key
	Bound []string // keys sent only to URL
}

// Groups is the catalogue of endpoint groups. Every *_url key and every
// secret key belongs to exactly one group (TestGroupsCoverEveryURLAndSecret).
var Groups = []Group{
	{URL: "jaeger_url", Bound: []string{"jaeger_token"}},
	{URL: "loki_url", Bound: []string{"loki_token", "loki_org_id"}},
	{URL: "prometheus_url", Bound: []string{"prometheus_token"}},
	{URL: "github_api_url", Bound: []string{"github_token"}},
	{URL: "k8s_mcp_url"},
}

var (
	groupByURL   = map[string]Group{}
	groupByBound = map[string]Group{}
)

func init() {
	for _, g := range Groups {
		groupByURL[g.URL] = g
		for _, k := range g.Bound {
			groupByBound[k] = g
		}
	}
}

// IsURL reports whether the named key is the URL of an endpoint group.
func IsURL(name string) bool {
	_, ok := groupByURL[Normalize(name)]
	return ok
}

// IsBound reports whether the named key is bound to an endpoint's URL (a
// credential or a tenant): it is only ever sent to that URL.
func IsBound(name string) bool {
	_, ok := groupByBound[Normalize(name)]
	return ok
}

// GroupOf returns the group the named key belongs to (as URL or bound key).
func GroupOf(name string) (Group, bool) {
	n := Normalize(name)
	if g, ok := groupByURL[n]; ok {
		return g, true
	}
	g, ok := groupByBound[n]
	return g, ok
}

// Endpoint is one backend as resolved: its URL and the bound settings that
// go with it.
type Endpoint struct {
	URL string
	// Bound holds the bound settings resolved with URL (never ones from a
	// less trusted scope than URL's).
	Bound map[string]string
	// UserURL: the URL was set in a thread or channel, not by the operator.
	// Connections to it are guarded (private addresses are refused unless
	// the host is allowlisted).
	UserURL bool
	// UserBound: the bound settings came from a thread or channel; the
	// operator's credentials are not used.
	UserBound bool
}

// Operator reports whether URL and credentials are the operator's own
// (environment), so the deployment's implicit credentials (a GitHub App)
// may be used with it.
func (e Endpoint) Operator() bool { return !e.UserURL && !e.UserBound }

// Settings are resolved settings whose endpoint groups are already bound:
// the only form capabilities are built from. Build them with Operator (the
// environment, a scenario) or let sessions.Resolved.Settings bind them.
type Settings struct {
	values    map[string]string
	userURL   map[string]bool // group URL key -> URL from a user scope
	userBound map[string]bool // group URL key -> bound keys from a user scope
}

// OperatorSettings are settings that all come from the operator (the
// environment, the CLI, a scenario): one scope, so every group is bound as
// given, and no URL is user-supplied.
func OperatorSettings(values map[string]string) Settings {
	return Settings{values: clean(values)}
}

// BoundSettings are settings a resolver has bound already; userURL and
// userBound name the groups (by URL key) whose URL, or whose bound
// settings, came from a user scope (thread or channel).
func BoundSettings(values map[string]string, userURL, userBound []string) Settings {
	s := Settings{values: clean(values), userURL: map[string]bool{}, userBound: map[string]bool{}}
	for _, k := range userURL {
		s.userURL[k] = true
	}
	for _, k := range userBound {
		s.userBound[k] = true
	}
	return s
}

func clean(values map[string]string) map[string]string {
	out := make(map[string]string, len(values))
	for k, v := range values {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// Get returns a setting's value ("" when unset).
func (s Settings) Get(key string) string { return s.values[key] }

// Values returns a copy of every value, for callers that fill defaults
// (service, namespace, repo) from them.
func (s Settings) Values() map[string]string { return maps.Clone(s.values) }

// Endpoint returns the endpoint of the group whose URL key is urlKey, with
// its bound settings. An unknown key yields an empty Endpoint.
func (s Settings) Endpoint(urlKey string) Endpoint {
	g, ok := groupByURL[urlKey]
	if !ok {
		return Endpoint{}
	}
	ep := Endpoint{URL: s.values[g.URL], Bound: map[string]string{}, UserURL: s.userURL[g.URL], UserBound: s.userBound[g.URL]}
	for _, k := range g.Bound {
		if v := s.values[k]; v != "" {
			ep.Bound[k] = v
		}
	}
	return ep
}
