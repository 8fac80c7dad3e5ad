package sessions

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/config"
)

// Endpoint groups resolve as a unit: a credential (or tenant) is never
// paired with a URL set in a more specific scope than its own, and the
// bound settings of one endpoint never mix scopes.
func TestResolveBindsCredentialsToTheirEndpoint(t *testing.T) {
	env := map[string]string{
		"jaeger_url": "https://jaeger.env", "jaeger_token": "env-jaeger-token",
		"loki_url": "https://loki.env", "loki_token": "env-loki-token", "loki_org_id": "env-tenant",
		"prometheus_url": "https://prom.env", "prometheus_token": "env-prom-token",
		"github_api_url": "https://ghe.env/api/v3/", "github_token": "ghp_env",
		"k8s_mcp_url": "http://127.0.0.1:8081/mcp",
	}
	tests := []struct {
		name            string
		channel, thread map[string]string
		// want is every value of the groups after resolution (env included).
		want map[string]string
		// userURL and userBound name the groups (by URL key) whose URL or
		// credentials come from a user scope.
		userURL, userBound []string
	}{
		{
			name: "environment only: every group as the operator set it",
			want: env,
		},
		{
			name:   "a thread URL gets no environment credential or tenant",
			thread: map[string]string{"jaeger_url": "https://attacker.example", "loki_url": "https://attacker.example", "prometheus_url": "https://attacker.example", "github_api_url": "https://attacker.example/", "k8s_mcp_url": "https://attacker.example/mcp"},
			want: map[string]string{
				"jaeger_url": "https://attacker.example", "loki_url": "https://attacker.example", "prometheus_url": "https://attacker.example",
				"github_api_url": "https://attacker.example/", "k8s_mcp_url": "https://attacker.example/mcp",
			},
			userURL: []string{"jaeger_url", "loki_url", "prometheus_url", "github_api_url", "k8s_mcp_url"},
		},
		{
			name:    "a thread URL gets no channel credential either",
			channel: map[string]string{"loki_url": "https://loki.channel", "loki_token": "channel-loki-token", "github_token": "ghp_channel"},
			thread:  map[string]string{"loki_url": "https://attacker.example", "github_api_url": "https://attacker.example/"},
			want: map[string]string{
				"jaeger_url": "https://jaeger.env", "jaeger_token": "env-jaeger-token",
				"loki_url":       "https://attacker.example",
				"prometheus_url": "https://prom.env", "prometheus_token": "env-prom-token",
				"github_api_url": "https://attacker.example/",
				"k8s_mcp_url":    "http://127.0.0.1:8081/mcp",
			},
			userURL: []string{"loki_url", "github_api_url"},
		},
		{
			name:   "a thread URL with its own token gets that token",
			thread: map[string]string{"loki_url": "https://loki.team", "loki_token": "thread-loki-token"},
			want: map[string]string{
				"jaeger_url": "https://jaeger.env", "jaeger_token": "env-jaeger-token",
				"loki_url": "https://loki.team", "loki_token": "thread-loki-token",
				"prometheus_url": "https://prom.env", "prometheus_token": "env-prom-token",
				"github_api_url": "https://ghe.env/api/v3/", "github_token": "ghp_env",
				"k8s_mcp_url": "http://127.0.0.1:8081/mcp",
			},
			userURL: []string{"loki_url"}, userBound: []string{"loki_url"},
		},
		{
			name:   "a user's own token may go to the operator's URL, alone: the operator's tenant is not mixed in",
			thread: map[string]string{"loki_token": "thread-loki-token", "github_token": "ghp_thread"},
			want: map[string]string{
				"jaeger_url": "https://jaeger.env", "jaeger_token": "env-jaeger-token",
				"loki_url": "https://loki.env", "loki_token": "thread-loki-token",
				"prometheus_url": "https://prom.env", "prometheus_token": "env-prom-token",
				"github_api_url": "https://ghe.env/api/v3/", "github_token": "ghp_thread",
				"k8s_mcp_url": "http://127.0.0.1:8081/mcp",
			},
			userBound: []string{"loki_url", "github_api_url"},
		},
		{
			name:   "a user's tenant never borrows the operator's token",
			thread: map[string]string{"loki_org_id": "other-tenant"},
			want: map[string]string{
				"jaeger_url": "https://jaeger.env", "jaeger_token": "env-jaeger-token",
				"loki_url": "https://loki.env", "loki_org_id": "other-tenant",
				"prometheus_url": "https://prom.env", "prometheus_token": "env-prom-token",
				"github_api_url": "https://ghe.env/api/v3/", "github_token": "ghp_env",
				"k8s_mcp_url": "http://127.0.0.1:8081/mcp",
			},
			userBound: []string{"loki_url"},
		},
		{
			name:    "a channel URL with its token; the thread's token goes to the channel's URL",
			channel: map[string]string{"prometheus_url": "https://prom.channel", "prometheus_token": "channel-prom-token", "jaeger_url": "https://jaeger.channel", "jaeger_token": "channel-jaeger-token"},
			thread:  map[string]string{"jaeger_token": "thread-jaeger-token"},
			want: map[string]string{
				"jaeger_url": "https://jaeger.channel", "jaeger_token": "thread-jaeger-token",
				"loki_url": "https://loki.env", "loki_token": "env-loki-token", "loki_org_id": "env-tenant",
				"prometheus_url": "https://prom.channel", "prometheus_token": "channel-prom-token",
				"github_api_url": "https://ghe.env/api/v3/", "github_token": "ghp_env",
				"k8s_mcp_url": "http://127.0.0.1:8081/mcp",
			},
			userURL: []string{"jaeger_url", "prometheus_url"}, userBound: []string{"jaeger_url", "prometheus_url"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb := newRedis(t)
			ctx := ctxT(t)
			s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), EncryptionKey: testKey(t)})
			if len(tt.channel) > 0 {
				require.NoError(t, s.Set(ctx, ChannelScope("C1"), tt.channel))
			}
			if len(tt.thread) > 0 {
				require.NoError(t, s.Set(ctx, ThreadScope("C1", "1.1"), tt.thread))
			}
			res, err := s.Resolve(ctx, "C1", "1.1", env)
			require.NoError(t, err)
			got := map[string]string{}
			for k, st := range res {
				got[k] = st.Value
			}
			assert.Equal(t, tt.want, got)

			cfg := res.Settings()
			for _, g := range config.Groups {
				ep := cfg.Endpoint(g.URL)
				assert.Equal(t, tt.want[g.URL], ep.URL, g.URL)
				assert.Equal(t, slices.Contains(tt.userURL, g.URL), ep.UserURL, "%s: URL from a user scope", g.URL)
				assert.Equal(t, slices.Contains(tt.userBound, g.URL), ep.UserBound, "%s: credentials from a user scope", g.URL)
				for _, k := range g.Bound {
					assert.Equal(t, tt.want[k], ep.Bound[k], k)
				}
			}
		})
	}
}

// Without a thread, the channel's URL never receives the environment's
// credential either.
func TestResolveChannelURLGetsNoEnvironmentCredential(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb), EncryptionKey: testKey(t)})
	require.NoError(t, s.Set(ctx, ChannelScope("C1"), map[string]string{"github_api_url": "https://attacker.example/"}))
	res, err := s.Resolve(ctx, "C1", "", map[string]string{"github_api_url": "https://api.github.com/", "github_token": "ghp_env"})
	require.NoError(t, err)
	assert.Equal(t, "https://attacker.example/", res.Value("github_api_url"))
	assert.NotContains(t, res, "github_token")
	ep := res.Settings().Endpoint("github_api_url")
	assert.True(t, ep.UserURL)
	assert.False(t, ep.Operator(), "the deployment's implicit GitHub credentials must not be used either")
}

// The settings audit log keeps entries in order, bounded, without values.
func TestSettingsAuditLog(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	s := newStore(t, rdb, Options{Prefix: uniquePrefix(t, rdb)})
	require.Error(t, s.AuditSetting(ctx, SettingAudit{User: "U1"}), "an entry names its key and outcome")
	require.NoError(t, s.AuditSetting(ctx, SettingAudit{User: "U1", Channel: "C1", Key: "jaeger_url", Outcome: "refused", Reason: "not_admin", Host: "attacker.example", Via: "command"}))
	require.NoError(t, s.AuditSetting(ctx, SettingAudit{User: "U2", Channel: "C1", ThreadTS: "1.1", Key: "loki_url", Outcome: "saved", Host: "loki.internal", Via: "mention"}))
	got, err := s.SettingAudits(ctx, 0)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "jaeger_url", got[0].Key)
	assert.Equal(t, "not_admin", got[0].Reason)
	assert.False(t, got[0].At.IsZero())
	assert.Equal(t, "loki_url", got[1].Key)
	last, err := s.SettingAudits(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, []SettingAudit{got[1]}, last)
	ttl, err := rdb.PTTL(ctx, s.settingsAuditKey()).Result()
	require.NoError(t, err)
	assert.Positive(t, ttl, "the log expires")
}
