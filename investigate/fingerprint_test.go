package investigate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogueMatchesRealErrors(t *testing.T) {
	cases := []struct {
		text string
		id   string
		et   ErrorType
	}{
		{`java.lang.NullPointerException: Cannot invoke "String.trim()" because the return value of "java.util.Map.get(Object)" is null`, "java-npe", ErrNullPointer},
		{"java.lang.OutOfMemoryError: Java heap space", "java-oom", ErrOOM},
		{"java.util.ConcurrentModificationException\n\tat java.util.ArrayList$Itr.next", "java-cme", ErrRace},
		{"HikariPool-1 - Connection is not available, request timed out after 30000ms.", "java-hikari", ErrResourceExhaustion},
		{`java.lang.NumberFormatException: For input string: "12,5"`, "java-numberformat", ErrDataValidation},
		{"javax.net.ssl.SSLHandshakeException: PKIX path building failed", "java-ssl", ErrTLS},
		{"panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV", "go-nil", ErrNullPointer},
		{"fatal error: concurrent map writes", "go-concurrent-map", ErrRace},
		{"panic: runtime error: slice bounds out of range [1:0]", "go-index", ErrRuntime},
		{"rpc error: code = DeadlineExceeded desc = context deadline exceeded", "go-deadline", ErrTimeout},
		{"AttributeError: 'NoneType' object has no attribute 'rotate'", "py-nonetype", ErrNullPointer},
		{"sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached", "py-pool", ErrResourceExhaustion},
		{"json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)", "py-validation", ErrDataValidation},
		{"TypeError: Cannot read properties of undefined (reading 'units')", "node-undefined", ErrNullPointer},
		{"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", "node-heap", ErrOOM},
		{"System.NullReferenceException: Object reference not set to an instance of an object.", "dotnet-nre", ErrNullPointer},
		{"System.InvalidOperationException: Collection was modified; enumeration operation may not execute.", "dotnet-collection-modified", ErrRace},
		{"x509: certificate has expired or is not yet valid", "tls-cert", ErrTLS},
		{"dial tcp: lookup traffic-model.routing.svc.cluster.local on 10.96.0.10:53: read udp: i/o timeout", "dns", ErrNetwork},
		{"getaddrinfo ENOTFOUND api.partner.example", "dns", ErrNetwork},
		{"connect ECONNREFUSED 10.96.142.37:7070", "conn-refused", ErrNetwork},
		{"Error: connect ETIMEDOUT 10.0.44.12:6379", "connect-timeout", ErrNetwork},
		{"Last State: Terminated Reason: OOMKilled Exit Code: 137", "k8s-oomkilled", ErrOOM},
		{`Back-off pulling image "ghcr.io/acme/podcast-ingest:2.4.O": ImagePullBackOff`, "k8s-imagepull", ErrConfig},
		{`Error: couldn't find key DB_PASSWORD in Secret shop/orders-db`, "k8s-configerror", ErrConfig},
		{"The node was low on resource: memory. Container report was using 3Gi", "k8s-evicted", ErrResourceExhaustion},
		{"Readiness probe failed: Get \"http://10.1.2.3:8080/healthz\": dial tcp 10.1.2.3:8080: connect: connection refused", "k8s-probe", ErrConfig},
		{"error: environment variable PAYOUT_BANK_URL is not set", "missing-env", ErrConfig},
		{`FATAL: password authentication failed for user "orders"`, "bad-credentials", ErrConfig},
		{"error: no more connections allowed (max_client_conn)", "server-connlimit", ErrResourceExhaustion},
		{"write /var/lib/data/segment: no space left on device", "disk-full", ErrResourceExhaustion},
		{"ERROR: deadlock detected", "db-deadlock", ErrRace},
		{`customs hub: HTTP 401: {"error":"invalid_token","error_description":"The access token expired"}`, "token-expired", ErrConfig},
		{"jwt.exceptions.ExpiredSignatureError: Signature has expired", "token-expired", ErrConfig},
		{" ⨯ SyntaxError: EXPECT_ARGUMENT_CLOSING_BRACE\n    at parse (/app/node_modules/@formatjs/icu-messageformat-parser/lib/index.js:36:21)", "message-format", ErrDataValidation},
		{"java.lang.IllegalArgumentException: Unmatched braces in the pattern.", "message-format", ErrDataValidation},
		{"PodDisruptionBudget claims-api selects no pods (selector app=claims-api; the pods of claims-api are labelled app.kubernetes.io/name=claims-api)", "pdb-selects-nothing", ErrConfig},
		{"botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the AssumeRoleWithWebIdentity operation: Not authorized to perform sts:AssumeRoleWithWebIdentity", "cloud-access-denied", ErrConfig},
		{"googleapi: Error 403: Permission 'storage.objects.create' denied on resource (or it may not exist).", "cloud-access-denied", ErrConfig},
		{"ImportError: urllib3 v2 only supports OpenSSL 1.1.1+", "import-error", ErrDependency},
		{`currency: unknown ISO 4217 code "EURO"`, "invalid-value", ErrDataValidation},
	}
	ids := map[string]bool{}
	for _, tc := range cases {
		s := Best(tc.text)
		require.NotNil(t, s, tc.text)
		assert.Equal(t, tc.id, s.ID, tc.text)
		assert.Equal(t, tc.et, s.ErrorType, tc.text)
		ids[s.ID] = true
	}
	assert.GreaterOrEqual(t, len(ids), 20, "the catalogue covers at least 20 signatures")
}

func TestCatalogueKeepsNoiseOut(t *testing.T) {
	for _, text := range []string{
		"serving stale product list (age=157s, ttl=120s), refresh scheduled",
		"request completed statusCode=200 responseTime=53",
		"KeyError: 'surge_multiplier'", // a code error, not missing configuration
	} {
		if s := Best(text); s != nil {
			assert.NotEqual(t, "missing-env", s.ID, text)
			assert.NotEqual(t, RoleCause == s.Role && s.Infra, true, "%s matched %s", text, s.ID)
		}
	}
}

func TestCatalogueIDsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Catalogue {
		assert.False(t, seen[s.ID], "duplicate id %s", s.ID)
		seen[s.ID] = true
		assert.NotEmpty(t, s.Title, s.ID)
	}
}
