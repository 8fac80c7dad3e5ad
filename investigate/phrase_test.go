package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server's prose spells the setting out word by word; a shared part
// with the service's name does not hide it, a bare kind word does not name it.
func TestPhraseNamedSettings(t *testing.T) {
	prose := phraseText("psycopg.errors.QueryCanceled: canceling statement due to statement timeout")
	assert.Equal(t, []string{"statement_timeout"}, phraseNamedSettings(`options: "-c statement_timeout=5s -c idle_in_transaction_session_timeout=30s"`, prose))
	assert.Equal(t, []string{"statementTimeout"}, phraseNamedSettings(`statementTimeout: 5000`, prose))
	assert.Empty(t, phraseNamedSettings(`lock_timeout: 2s`, prose))
	assert.Empty(t, phraseNamedSettings(`max_timeout: 2s`, phraseText("request max timeout reached")), "kind words only")
}

// A failure of the statement-exporter names statement_timeout: the word
// "statement" is part of the service's name but, next to "timeout", it is
// the setting's, so the values change that sets it shares it.
func TestFailureWordsKeepSettingCompoundsOfTheServiceName(t *testing.T) {
	c := &candidate{Service: "statement-exporter", Support: []Finding{{Quote: "QueryCanceled: canceling statement due to statement timeout"}}}
	w := failureWords(&evidence{}, c)
	assert.True(t, w["statement_timeout"])
	assert.False(t, w["statement"], "the bare service word still says which service, not which change")
	assert.False(t, w["statement_exporter"])
}

func manifestOf(svc, file string) Finding {
	return Finding{Kind: KindManifest, Family: FamilySource, Service: svc, File: file, Line: 28, Quote: svc + ".resources.requests.memory = 512Mi"}
}

// A global block of the chart that deploys the job sets the timeout its
// failures spell out: that change is the configuration cause, even though
// the file names no service and the reporter's failures look rare.
func TestNamedConfigChangeInTheServiceChartByPhrase(t *testing.T) {
	onset := nt0.Add(2 * time.Hour)
	values := "deploy/helm/core-banking/values-prod.yaml"
	helm := change("f98c183", values, onset.Add(-114*time.Minute), "helm: 5s statement_timeout for all core clients",
		"11:    # Passed to every Postgres client as PGOPTIONS.\n12:    options: \"-c statement_timeout=5s\"", "11:    options: \"\"")
	helm.Attrs["context"] = "9:    port: 5432\n10:    name: core"
	c := &candidate{Service: "statement-exporter", ErrorType: ErrTimeout, Signature: "db-statement-timeout",
		Support: []Finding{{Kind: KindLogPattern, Service: "statement-exporter", Quote: "psycopg.errors.QueryCanceled: canceling statement due to statement timeout"}}}
	ev := &evidence{onset: onset, impact: onset, known: []string{"statement-exporter", "postgres", "accounts-api"},
		findings: []Finding{helm, manifestOf("statement-exporter", "deploy/helm/core-banking/templates/statement-exporter-cronjob.yaml")}}
	l, ok := ev.namedConfigChange(c)
	require.True(t, ok)
	assert.Equal(t, 12, l.line)

	// Without a manifest of the service in that chart, nothing ties it.
	ev.findings = []Finding{helm}
	_, ok = ev.namedConfigChange(c)
	assert.False(t, ok)

	// A block keyed by another service configures that service.
	other := change("f98c184", values, onset.Add(-114*time.Minute), "helm: accounts-api statement timeout",
		"12:    options: \"-c statement_timeout=5s\"", "")
	other.Attrs["context"] = "10:  accounts-api:\n11:    database:"
	ev.findings = []Finding{other, manifestOf("statement-exporter", values)}
	_, ok = ev.namedConfigChange(c)
	assert.False(t, ok)
}

// A failure moved to another service is described in the service the
// answer names.
func TestDescriptionNamesTheReattributedService(t *testing.T) {
	c := &candidate{Service: "github-actions", ErrorType: ErrRuntime}
	rc := RootCause{Service: "search-suggest", File: "search-suggest/tests/reindex.rs", Line: 23, Bucket: BucketFlake}
	d := describeCause(&hypothesis{c: c}, rc, nil, Finding{}, false, time.Time{})
	assert.Contains(t, d, "in search-suggest (seen in github-actions)")
}
