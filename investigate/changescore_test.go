package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func change(sha, file string, at time.Time, msg, added, removed string) Finding {
	return Finding{Kind: KindChangeCorrelation, Family: FamilyChanges, File: file, Time: at, Quote: sha + " " + msg,
		Attrs: map[string]string{"sha": sha, "added": added, "removed": removed, "hunks": "10-14", "message": msg}}
}

// The change that explains the failure (it names the bucket the errors
// name, days before) outranks the latest commit, which explains nothing
// and scores nothing; a change after the onset is not a cause.
func TestExplainingChangeIsNotTheLatestCommit(t *testing.T) {
	onset := nt0.Add(40 * time.Minute)
	failing := Finding{Kind: KindLogPattern, Family: FamilyLogs, Service: "helpdesk-web", ErrorType: ErrUnknown, Count: 40, Time: onset,
		Quote: "Aws::S3::Errors::NoSuchKey: The specified key does not exist (bucket supportly-attachments-prod)"}
	latest := change("aaa1111", "app/javascript/macros/editor.ts", onset.Add(-20*time.Minute), "macros: allow 12 actions",
		"41:  const MAX_ACTIONS = 12;", "41:  const MAX_ACTIONS = 8;")
	lifecycle := change("bbb2222", "infra/terraform/s3_attachments.tf", onset.Add(-50*time.Hour), "terraform: expire tmp exports after 1 day",
		"24:resource \"aws_s3_bucket_lifecycle_configuration\" \"supportly_attachments_prod\" {\n27:    filter {}\n28:    expiration { days = 1 }", "")
	after := change("ccc3333", "infra/terraform/s3_attachments.tf", onset.Add(10*time.Minute), "terraform: restore attachments prefix",
		"27:    filter { prefix = \"tmp/\" }", "27:    filter {}")
	ev := evidenceOf(Issue{Text: "attachments on older tickets are broken", FiredAt: onset}, failing, latest, lifecycle, after)
	cs := ev.candidates()
	require.NotEmpty(t, cs)
	ms := ev.explainingChanges(cs[0])
	require.Len(t, ms, 1, "the latest commit shares nothing; the fix came after the onset")
	m := ms[0]
	assert.Equal(t, "bbb2222", m.line.change.Attrs["sha"])
	assert.Equal(t, 24, m.line.line, "the line that names what the failure names")
	assert.Contains(t, m.why[len(m.why)-1], "attachments")
	assert.InDelta(t, 0.7, recencyWeight(onset.Sub(lifecycle.Time)), 1e-9)
}

// A change to the file a stack frame names, in the service's directory,
// explains a failure well enough to locate it.
func TestChangeToTheFailingFileExplains(t *testing.T) {
	onset := nt0.Add(40 * time.Minute)
	exc := Finding{Kind: KindException, Family: FamilyTraces, Service: "expenses-api", ErrorType: ErrTimeout, Count: 9, Time: onset,
		Quote: "upstream request timeout", File: "/app/dist/reports/exportXlsx.js", Line: 15,
		Frames: []Frame{{File: "/app/src/reports/exportXlsx.ts", Line: 15, Function: "exportXlsx"}}}
	code := change("ddd4444", "services/expenses-api/src/reports/exportXlsx.ts", onset.Add(-3*time.Hour), "reports: add XLSX export",
		"15:  const buf = XLSX.write(book, { type: 'buffer' });\n16:  res.send(buf);", "")
	other := change("eee5555", "services/ledger/src/main.ts", onset.Add(-time.Hour), "ledger: log more", "3:  log.info('x')", "")
	ev := evidenceOf(Issue{Text: "expenses export hangs", FiredAt: onset}, exc, code, other)
	cs := ev.candidates()
	require.NotEmpty(t, cs)
	m, ok := ev.explainingChange(cs[0])
	require.True(t, ok)
	assert.Equal(t, "ddd4444", m.line.change.Attrs["sha"])
	assert.GreaterOrEqual(t, m.score, explainThreshold)
	assert.Contains(t, m.why[0], "exportXlsx.ts")
	assert.Equal(t, BucketCodeBug, ev.decideBucket(cs[0], m, true))
}

func TestDecideBucketNeverUnknown(t *testing.T) {
	ev := evidenceOf(Issue{Text: "x"})
	cases := []struct {
		c    *candidate
		want Bucket
	}{
		{&candidate{ErrorType: ErrUnknown, Support: []Finding{{Quote: "cannot parse value '12,5'"}}}, BucketBadData},
		{&candidate{ErrorType: ErrUnknown, Support: []Finding{{Quote: "lost leadership of partition 3"}}}, BucketFlake},
		{&candidate{ErrorType: ErrUnknown, Support: []Finding{{Quote: "permission denied writing /data"}}}, BucketInfrastructure},
		{&candidate{ErrorType: ErrUnknown, hasAppFrame: true, Support: []Finding{{Quote: "something odd"}}}, BucketCodeBug},
		{&candidate{ErrorType: ErrUnknown, Support: []Finding{{Quote: "something odd"}}}, BucketInfrastructure},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ev.decideBucket(c.c, changeMatch{}, false), c.c.Support[0].Quote)
	}
	cfg := changeMatch{line: changeLine{change: Finding{File: "deploy/values.yaml"}}}
	assert.Equal(t, BucketInfrastructure, ev.decideBucket(&candidate{ErrorType: ErrUnknown, hasAppFrame: true}, cfg, true))
	assert.Equal(t, ErrConfig, ev.decideErrorType(&candidate{ErrorType: ErrUnknown, Support: []Finding{{Quote: "it broke"}}}, cfg, true))
}

func TestWordsOfSplitsIdentifiers(t *testing.T) {
	w := wordsOf(`bucket = "supportly-attachments-prod" max_client_conn=200 the error`)
	for _, want := range []string{"supportly-attachments-prod", "supportly", "attachments", "max_client_conn", "conn", "bucket"} {
		assert.True(t, w[want], want)
	}
	for _, no := range []string{"prod", "the", "error", "200", "client"} {
		assert.False(t, w[no], no)
	}
}
