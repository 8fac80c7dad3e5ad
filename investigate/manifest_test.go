package investigate

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fieldOf(fs []ManifestField, kind string) *ManifestField {
	for i := range fs {
		if fs[i].Kind == kind {
			return &fs[i]
		}
	}
	return nil
}

func TestLocateManifestFieldsDeployment(t *testing.T) {
	b, err := os.ReadFile("../testdata/examples/cart-oomkilled-low-limit/repo/deploy/k8s/cart.yaml")
	require.NoError(t, err)
	fs, err := LocateManifestFields("deploy/k8s/cart.yaml", b, "cart")
	require.NoError(t, err)
	m := fieldOf(fs, FieldMemoryLimit)
	require.NotNil(t, m)
	assert.Equal(t, 58, m.Line)
	assert.Equal(t, "128Mi", m.Value)
	assert.Equal(t, "spec.template.spec.containers[cart].resources.limits.memory", m.Path)
	assert.Equal(t, 34, fieldOf(fs, FieldImage).Line)
	assert.Equal(t, "3", fieldOf(fs, FieldReplicas).Value)
	other, err := LocateManifestFields("deploy/k8s/cart.yaml", b, "checkout")
	require.NoError(t, err)
	assert.Empty(t, other, "another workload's manifest says nothing about checkout")
}

func TestLocateManifestFieldsHelmAndCertificates(t *testing.T) {
	values := []byte(`# quote-engine chart values
quoteEngine:
  replicaCount: 3
  image:
    repository: ghcr.io/acme/quote-engine
    tag: "1.8.2"
  resources:
    limits:
      memory: 512Mi   # raised in March
  tls:
    trustBundles:
      - ba-root-ca-g2
`)
	fs, err := LocateManifestFields("charts/quote-engine/values.yaml", values, "quote-engine")
	require.NoError(t, err)
	assert.Equal(t, 9, fieldOf(fs, FieldMemoryLimit).Line)
	assert.Equal(t, `1.8.2`, fieldOf(fs, FieldImageTag).Value)
	require.NotNil(t, fieldOf(fs, FieldTLS))

	cert := []byte("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: fraud-scoring\nspec:\n  secretName: fraud-scoring-tls\n  issuerRef:\n    name: internal-ca\n    kind: ClusterIssuer\n")
	fs, err = LocateManifestFields("deploy/certs/fraud-scoring.yaml", cert, "fraud-scoring")
	require.NoError(t, err)
	iss := fieldOf(fs, FieldIssuer)
	require.NotNil(t, iss)
	assert.Equal(t, 8, iss.Line)
	assert.Equal(t, "internal-ca", iss.Value)
}

func TestLocateConfigKeys(t *testing.T) {
	ini := []byte("[pgbouncer]\nlisten_port = 6432\n; max_client_conn = 100\nmax_client_conn = 200\ndefault_pool_size = 20\n")
	fs := LocateConfigKeys("deploy/pgbouncer/pgbouncer.ini", ini, []string{"max_client_conn"})
	require.Len(t, fs, 1, "comments are not settings")
	assert.Equal(t, 4, fs[0].Line)
	assert.Equal(t, "200", fs[0].Value)
}

func TestNextMemory(t *testing.T) {
	assert.Equal(t, "256Mi", nextMemory("128Mi", 133372665))
	assert.Equal(t, "2Gi", nextMemory("1Gi", 0))
	assert.Equal(t, "", nextMemory("lots", 0))
}

func TestRecordsFollowSpecificRecords(t *testing.T) {
	var r Records
	for i, sku := range []string{"4004217", "4004218", "4004217", "4011950", "4004217", "4004218"} {
		r.Add("pricing failed basket=bsk_" + string(rune('a'+i)) + "0d9 suspect_sku=" + sku + " NullPointerException")
	}
	key, vals := r.Recurring()
	assert.Equal(t, "suspect_sku", key)
	assert.Equal(t, []string{"4004217", "4004218", "4011950"}, vals)

	var spread Records
	for i := 0; i < 8; i++ {
		spread.Add("request failed order_id=ord_" + string(rune('a'+i)) + "99 timeout")
	}
	key, _ = spread.Recurring()
	assert.Empty(t, key, "every failure on another record is not bad data")
}

func TestLocateManifestFieldsReadsHelmTemplates(t *testing.T) {
	dir := "../testdata/holdout3/claims-api-pdb-selector-mismatch-node-upgrade/repo/charts/claims-api/templates/"
	pdb, err := os.ReadFile(dir + "pdb.yaml")
	require.NoError(t, err)
	fs, err := LocateManifestFields("charts/claims-api/templates/pdb.yaml", pdb, "claims-api")
	require.NoError(t, err)
	sel := fieldOf(fs, FieldPDBSelector)
	require.NotNil(t, sel, "the budget's name is computed; the chart directory names the service")
	assert.Equal(t, 12, sel.Line, "line numbers survive the blanked template actions")
	assert.Equal(t, "app=claims-api", sel.Value)
	other, err := LocateManifestFields("charts/claims-api/templates/pdb.yaml", pdb, "policy-api")
	require.NoError(t, err)
	assert.Empty(t, other)

	dep, err := os.ReadFile(dir + "deployment.yaml")
	require.NoError(t, err)
	fs, err = LocateManifestFields("charts/claims-api/templates/deployment.yaml", dep, "claims-api")
	require.NoError(t, err)
	require.NotEmpty(t, fs)
	for _, f := range fs {
		assert.NotContains(t, f.Value, templated, "%s: a computed value is not a setting", f.Path)
	}
	assert.Nil(t, fieldOf(fs, FieldImage), "the image is computed from values")
}

func TestDetemplateKeepsLines(t *testing.T) {
	in := "{{- if .Values.enabled }}\nkind: X\nmetadata:\n  name: {{ include \"n\" . }}\n  labels:\n    {{- include \"l\" . | nindent 4 }}\n{{- end }}"
	out := string(detemplate([]byte(in)))
	assert.Equal(t, strings.Count(in, "\n"), strings.Count(out, "\n"))
	assert.Equal(t, "\nkind: X\nmetadata:\n  name: TEMPLATED\n  labels:\n\n", out)
}

func TestCertificateDNSNamesInATemplate(t *testing.T) {
	tpl := []byte("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: ledger-api-mtls\n  namespace: {{ .Release.Namespace }}\nspec:\n  secretName: ledger-api-mtls\n  issuerRef:\n    name: mesh-internal-ca\n  dnsNames:\n    - ledger-api.{{ .Release.Namespace }}.svc\n")
	fs, err := LocateManifestFields("deploy/charts/ledger-api/templates/certificate.yaml", tpl, "ledger-api")
	require.NoError(t, err)
	dns := fieldOf(fs, FieldDNSNames)
	require.NotNil(t, dns)
	assert.Equal(t, 10, dns.Line)
	assert.Contains(t, dns.Value, "ledger-api.")
	assert.Equal(t, 9, fieldOf(fs, FieldIssuer).Line)
}

func TestLocateConfigValuesFindsTheLimitAFailureQuotes(t *testing.T) {
	conf := "server:\n  port: 8080\n  max_connections: 250\nsuggest:\n  suggest_timeout_ms: 250\n  max_body_size: \"2MB\"\n  name: 250ms\n"
	cases := []struct {
		values []string
		want   []int
	}{
		{[]string{"250ms"}, []int{5}},  // the key names the unit: a wait of 250 ms, not 250 connections
		{[]string{"2MB"}, []int{6}},    // value and unit as written
		{[]string{"250"}, []int{3, 5}}, // a bare count matches every limit holding it
		{[]string{"8080"}, nil},        // a port is not a limit
		{[]string{"250ms", "x"}, []int{5}},
	}
	for _, tc := range cases {
		var lines []int
		for _, f := range LocateConfigValues("config/search.yaml", []byte(conf), tc.values) {
			assert.Equal(t, FieldConfigValue, f.Kind)
			lines = append(lines, f.Line)
		}
		assert.Equal(t, tc.want, lines, "values %v", tc.values)
	}
}

func TestQuotedLimits(t *testing.T) {
	c := &candidate{Support: []Finding{
		{Quote: "suggest backend call aborted after 250ms"},
		{Quote: "HikariPool-1 - Connection is not available (total=5, active=5)"},
		{Quote: "body 4.2MB exceeds max_body_size 2MB"},
	}}
	assert.Equal(t, []string{"250ms", "2MB", "4.2MB", "5"}, quotedLimits(c), "in a canonical order")
}
