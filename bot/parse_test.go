package bot

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseMention(t *testing.T) {
	const bot = "U0AUTOHEAL"
	tests := []struct {
		name         string
		in           string
		wantText     string
		wantSettings map[string]string
		wantProblems []string // substrings, one per problem
	}{
		{
			name:         "issue only",
			in:           "<@U0AUTOHEAL> ad service is throwing errors since 10:05",
			wantText:     "ad service is throwing errors since 10:05",
			wantSettings: map[string]string{},
		},
		{
			name:         "settings only, Slack link markup undone",
			in:           "<@U0AUTOHEAL>\nrepo: acme/shop\nloki_url: <https://loki.example.com>\nservice-name = ad",
			wantSettings: map[string]string{"repo": "acme/shop", "loki_url": "https://loki.example.com", "service_name": "ad"},
		},
		{
			name:         "settings and issue together",
			in:           "<@U0AUTOHEAL> checkout fails for every order\nrepo: acme/shop\ngithub_token: `ghp_abcdefghijklmnopqrstuvwxyz0123456789`",
			wantText:     "checkout fails for every order",
			wantSettings: map[string]string{"repo": "acme/shop", "github_token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
		},
		{
			name:         "unknown snake_case key is reported with the known keys",
			in:           "<@U0AUTOHEAL> lokiurl: x\ngrafana_url: https://g.example.com\nwhy is cart slow",
			wantText:     "lokiurl: x why is cart slow",
			wantSettings: map[string]string{},
			wantProblems: []string{`unknown config key "grafana_url" (known: github_api_url`},
		},
		{
			name:         "an ordinary word before a colon stays text",
			in:           "<@U0AUTOHEAL> error: payment declined for all cards",
			wantText:     "error: payment declined for all cards",
			wantSettings: map[string]string{},
		},
		{
			name:         "invalid value is reported without the value",
			in:           "<@U0AUTOHEAL>\nrepo: not a repo\nloki_url: ftp://x",
			wantSettings: map[string]string{},
			wantProblems: []string{"repo: must be owner/name", "loki_url: must be an http(s) URL"},
		},
		{
			name:         "key=value tokens on one line",
			in:           "<@U0AUTOHEAL> repo=acme/shop ref=release-1",
			wantSettings: map[string]string{"repo": "acme/shop", "ref": "release-1"},
		},
		{
			name:         "entities decoded, other users kept",
			in:           "<@U0AUTOHEAL> cart &amp; checkout fail, <@U0ALICE> saw it in <#C0SHOP|shop>",
			wantText:     "cart & checkout fail, <@U0ALICE> saw it in #shop",
			wantSettings: map[string]string{},
		},
		{
			name:         "labelled link keeps the URL",
			in:           "<@U0AUTOHEAL|autoheal> jaeger_url: <http://jaeger:16686|jaeger:16686>",
			wantSettings: map[string]string{"jaeger_url": "http://jaeger:16686"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ParseMention(tt.in, bot)
			assert.Equal(t, tt.wantText, p.Text)
			assert.Equal(t, tt.wantSettings, p.Settings)
			assert.Len(t, p.Problems, len(tt.wantProblems), "problems: %q", p.Problems)
			for i, want := range tt.wantProblems {
				if i < len(p.Problems) {
					assert.Contains(t, p.Problems[i], want)
				}
			}
		})
	}
}

func TestParseMentionNeverEchoesRejectedSecrets(t *testing.T) {
	secret := "ghp_" + strings.Repeat("s", 36)
	p := ParseMention("<@U0AUTOHEAL> github-tokn: "+secret+"\nloki_url: "+secret, "U0AUTOHEAL")
	assert.NotEmpty(t, p.Problems)
	for _, prob := range p.Problems {
		assert.NotContains(t, prob, secret)
	}
}

func TestParseMentionBounds(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString("repo: acme/shop\n")
	}
	b.WriteString(strings.Repeat("x", 20000))
	p := ParseMention(b.String(), "U0AUTOHEAL")
	assert.LessOrEqual(t, len(p.Settings)+len(p.Problems), maxSettingLines+1)
	assert.LessOrEqual(t, len([]rune(p.Text)), maxIssueText)
}

func TestParseAssignments(t *testing.T) {
	p := ParseAssignments(`repo=acme/shop loki_url="https://loki.example.com" github_token=ghp_abcdefghijklmnopqrstuvwxyz0123456789`)
	assert.Equal(t, map[string]string{
		"repo": "acme/shop", "loki_url": "https://loki.example.com", "github_token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	}, p.Settings)
	assert.Empty(t, p.Problems)

	p = ParseAssignments("service_name: ad")
	assert.Equal(t, map[string]string{"service_name": "ad"}, p.Settings)

	p = ParseAssignments("ghp_abcdefghijklmnopqrstuvwxyz0123456789 repo=acme/shop")
	assert.Equal(t, map[string]string{"repo": "acme/shop"}, p.Settings)
	if assert.Len(t, p.Problems, 1) {
		assert.NotContains(t, p.Problems[0], "ghp_", "a stray word may be a secret: never echoed")
	}

	p = ParseAssignments("nope=1")
	assert.Empty(t, p.Settings)
	if assert.Len(t, p.Problems, 1) {
		assert.Contains(t, p.Problems[0], "unknown config key")
	}
}
