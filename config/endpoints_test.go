package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every URL setting and every secret belongs to exactly one endpoint group,
// so a new backend cannot be added without saying which credentials go
// with its URL.
func TestGroupsCoverEveryURLAndSecret(t *testing.T) {
	seen := map[string]int{}
	for _, g := range Groups {
		seen[g.URL]++
		for _, k := range g.Bound {
			seen[k]++
		}
	}
	for _, k := range Keys {
		if strings.HasSuffix(k.Name, "_url") {
			assert.True(t, IsURL(k.Name), "%s is a URL setting but no group's URL", k.Name)
		}
		if k.Secret {
			assert.True(t, IsBound(k.Name), "%s is a secret bound to no URL", k.Name)
		}
	}
	for k, n := range seen {
		_, known := Lookup(k)
		assert.True(t, known, "group names unknown key %s", k)
		assert.Equal(t, 1, n, "%s belongs to %d groups", k, n)
	}
}

func TestSettingsEndpoint(t *testing.T) {
	s := BoundSettings(map[string]string{"loki_url": "https://loki", "loki_token": "t", "repo": "a/b"}, []string{"loki_url"}, nil)
	ep := s.Endpoint("loki_url")
	assert.Equal(t, Endpoint{URL: "https://loki", Bound: map[string]string{"loki_token": "t"}, UserURL: true}, ep)
	assert.False(t, ep.Operator())
	assert.True(t, OperatorSettings(map[string]string{"loki_url": "https://loki"}).Endpoint("loki_url").Operator())
	assert.Equal(t, Endpoint{}, s.Endpoint("repo"), "not an endpoint")
	assert.Equal(t, "a/b", s.Get("repo"))
}
