package investigate

import (
	"strings"
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
		{"panic: send on closed channel\n\ngoroutine 640191 [running]:", "go-closed-channel", ErrRace},
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
		{`W0414 09:38:39.771752 1 reflector.go:561] failed to list *v1.Pod: pods is forbidden: User "system:serviceaccount:analytics:report-scheduler" cannot list resource "pods" in API group "" in the namespace "analytics"`, "k8s-rbac-forbidden", ErrConfig},
		{`ProvisioningFailed: storageclass.storage.k8s.io "premium-ssd" not found`, "k8s-storage", ErrConfig},
		{`Error creating: pods "exporter-7d4b9c6f5-" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`, "k8s-limitrange", ErrConfig},
		{`failed to get cpu utilization: missing request for cpu in container web of Pod web-6c7d8x9f5b-kkzkk`, "k8s-hpa-no-requests", ErrConfig},
		{`DeadlineExceeded: Job was active longer than specified deadline`, "k8s-job-deadline", ErrTimeout},
		{`WARN -- : [Shoryuken] Failed to delete message: ReceiptHandleIsInvalid: The receipt handle has expired.`, "queue-redelivery", ErrTimeout},
		{`botocore.errorfactory.ReceiptHandleIsInvalid: An error occurred (ReceiptHandleIsInvalid) when calling the DeleteMessage operation: The receipt handle has expired`, "queue-redelivery", ErrTimeout},
		{`{"level":"warn","msg":"duplicate delivery","ApproximateReceiveCount":"3","messageId":"9f1c"}`, "queue-redelivery", ErrTimeout},
		{`Channel error on connection <0.1234.0>: operation none caused a channel exception precondition_failed: delivery acknowledgement on channel 1 timed out. Timeout value used: 1800000 ms.`, "queue-redelivery", ErrTimeout},
		{`pubsub: ack failed for message 4711: PERMANENT_FAILURE_INVALID_ACK_ID`, "queue-redelivery", ErrTimeout},
		{`FailedPreStopHook: PreStopHook failed: rpc error: code = Unknown desc = failed to exec in container: exec: "sleep": executable file not found in $PATH: unknown`, "k8s-lifecycle-hook", ErrConfig},
		{`Exec lifecycle hook ([/bin/register]) for Container "exporter" in Pod "search-1_shop(0b1c)" failed - error: command '/bin/register' exited with 126`, "k8s-lifecycle-hook", ErrConfig},
		{`Error: couldn't find key DB_PASSWORD in Secret shop/orders-db`, "k8s-configerror", ErrConfig},
		{"The node was low on resource: memory. Container report was using 3Gi", "k8s-evicted", ErrResourceExhaustion},
		{"Readiness probe failed: Get \"http://10.1.2.3:8080/healthz\": dial tcp 10.1.2.3:8080: connect: connection refused", "k8s-probe", ErrConfig},
		{"error: environment variable PAYOUT_BANK_URL is not set", "missing-env", ErrConfig},
		{`FATAL: password authentication failed for user "orders"`, "bad-credentials", ErrConfig},
		{"error: no more connections allowed (max_client_conn)", "server-connlimit", ErrResourceExhaustion},
		{"write /var/lib/data/segment: no space left on device", "disk-full", ErrResourceExhaustion},
		{"OSError: [Errno 24] Too many open files", "go-fd", ErrResourceExhaustion},
		{"accept4: Too Many Open Files", "go-fd", ErrResourceExhaustion},
		{"Error: EMFILE: too many open files, open '/srv/app/cache/x.json'", "go-fd", ErrResourceExhaustion},
		{"ERROR: socket.accept() out of system resource", "go-fd", ErrResourceExhaustion},
		{"ERROR: deadlock detected", "db-deadlock", ErrRace},
		{"java.lang.IllegalMonitorStateException: attempt to unlock lock, not locked by current thread by node id: 7c1f thread-id: 88", "lock-lost", ErrRace},
		{"io.lettuce.core.RedisCommandExecutionException: ERR invalid expire time in 'psetex' command", "redis-invalid-arg", ErrRuntime},
		{`{"level":"error","msg":"get document failed","error":"document 8842 not found"}`, "record-not-found", ErrDataValidation},
		{"DETAIL:  Unicode low surrogate must follow a high surrogate.", "lone-surrogate", ErrDataValidation},
		{"System.ArgumentOutOfRangeException: The added or subtracted value results in an un-representable DateTime. (Parameter 'value')", "value-out-of-range", ErrDataValidation},
		{"OverflowError: date value out of range", "value-out-of-range", ErrDataValidation},
		{`FailedCreate: Error creating: pods "ticket-pricing-k4xz2gbmhf-pqj8j" is forbidden: exceeded quota: rail-compute, requested: limits.cpu=2, used: limits.cpu=24, limited: limits.cpu=24`, "quota-exceeded", ErrResourceExhaustion},
		{"503 Service Unavailable response_flags=UO", "proxy-overflow", ErrConfig},
		{`[2026-03-02T11:08:42.113Z] "GET /v1/products/90402 HTTP/1.1" 503 UO upstream_reset_before_response_started{overflow} - "-" 0 81`, "proxy-overflow", ErrConfig},
		{`Post "https://ledger-api.payments.svc.cluster.local:8443/v1/transfers": tls: failed to verify certificate: x509: certificate is valid for ledger-api.core.svc, ledger-api.core.svc.cluster.local, not ledger-api.payments.svc.cluster.local`, "tls-hostname", ErrTLS},
		{"Confluent.Kafka.KafkaException: Broker: Unknown member\n   at Confluent.Kafka.Impl.SafeKafkaHandle.Commit(IEnumerable`1 offsets)", "consumer-rebalance", ErrConfig},
		{"[thrd:main]: Application maximum poll interval (30000ms) exceeded by 9946ms (adjust max.poll.interval.ms for long-running message processing): leaving group", "consumer-rebalance", ErrConfig},
		{"** (DBConnection.ConnectionError) connection not available and request was dropped from queue after 2000ms", "db-pool", ErrResourceExhaustion},
		{"Exception in thread \"main\" java.lang.StackOverflowError\n\tat com.acme.tree.Node.depth(Node.java:41)", "stack-overflow", ErrRuntime},
		{"RangeError: Maximum call stack size exceeded", "stack-overflow", ErrRuntime},
		{"thread 'tokio-runtime-worker' panicked at src/units.rs:42:17:\nattempt to multiply with overflow", "int-overflow", ErrRuntime},
		{"System.OverflowException: Arithmetic operation resulted in an overflow.", "int-overflow", ErrRuntime},
		{"System.DivideByZeroException: Attempted to divide by zero.", "div-by-zero", ErrRuntime},
		{"PHP Fatal error:  Uncaught TypeError: App\\Pricing\\Money::fromFloat(): Argument #1 ($amount) must be of type float, string given", "php-type", ErrRuntime},
		{"PHP Fatal error:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes)", "php-memory", ErrOOM},
		{"** (FunctionClauseError) no function clause matching in Billing.Invoice.total/1", "elixir-error", ErrRuntime},
		{"kotlin.UninitializedPropertyAccessException: lateinit property repository has not been initialized", "kotlin-null", ErrNullPointer},
		{"NoMethodError (undefined method `each' for \"sku-1\":String)", "ruby-runtime", ErrRuntime},
		{"Net::ReadTimeout with #<TCPSocket:(closed)>", "ruby-timeout", ErrTimeout},
		{"Error [ERR_HTTP_HEADERS_SENT]: Cannot set headers after they are sent to the client", "node-runtime", ErrRuntime},
		{`strconv.ParseFloat: parsing "12,50": invalid syntax`, "go-parse", ErrDataValidation},
		{"org.springframework.orm.ObjectOptimisticLockingFailureException: Row was updated or deleted by another transaction", "optimistic-lock", ErrRace},
		{"client intended to send too large body: 15728640 bytes", "body-too-large", ErrConfig},
		{"rpc error: code = ResourceExhausted desc = grpc: received message larger than max (5242880 vs. 4194304)", "body-too-large", ErrConfig},
		{"org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active group", "consumer-rebalance", ErrConfig},
		{"kernel: nf_conntrack: table full, dropping packet", "conntrack-full", ErrNetwork},
		{"x509: certificate is valid for ledger.internal, not ledger-grpc.payments.svc.cluster.local", "tls-hostname", ErrTLS},
		{"Error: listen EADDRINUSE: address already in use :::3000", "port-in-use", ErrConfig},
		{`ERROR: column "tier_code" does not exist at character 48`, "db-missing-object", ErrRuntime},
		{"java.lang.NoSuchFieldError: INSTANCE", "dependency-mismatch", ErrDependency},
		{`java.sql.SQLException: Incorrect string value: '\xF0\x9F\x98\x80' for column 'display_name' at row 1`, "text-encoding", ErrDataValidation},
		{"Unexpected token '\ufeff', \"\ufeffsku;qty\" is not valid JSON", "byte-order-mark", ErrDataValidation},
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
		"handler finished: 413 entries reconciled",
		"checked 3 members of the group",
		`{"event":"invoice_mailed","ApproximateReceiveCount":"1"}`, // a first delivery
	} {
		if s := Best(text); s != nil {
			assert.NotEqual(t, "missing-env", s.ID, text)
			assert.NotEqual(t, "queue-redelivery", s.ID, text)
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

func TestCatalogueKeepsRuntimesApart(t *testing.T) {
	for text, want := range map[string]string{
		"KeyError: 'surge_multiplier'":                                           "py-runtime",
		"ZeroDivisionError: division by zero":                                    "div-by-zero",
		"javax.validation.ConstraintViolationException: email: must not be null": "invalid-value",
	} {
		s := Best(text)
		if assert.NotNil(t, s, text) {
			assert.Equal(t, want, s.ID, text)
		}
	}
}

func TestUnknownExceptionsTypedByTheirName(t *testing.T) {
	for text, want := range map[string]string{
		"com.acme.ledger.LedgerTimeoutException: settlement lookup exceeded budget": "named-timeout",
		"CustomerAddressValidationError: postcode rejected":                         "named-validation",
		"Acme.Partners.PartnerAccessDeniedException: partner 4471":                  "named-auth",
		"app.errors.InventoryConcurrentModificationError: stock row changed":        "named-conflict",
	} {
		s := Best(text)
		if assert.NotNil(t, s, text) {
			assert.Equal(t, want, s.ID, text)
		}
	}
	// A specific signature always wins over the name.
	assert.Equal(t, "java-sockettimeout", Best("java.net.SocketTimeoutException: Read timed out").ID)
	assert.Nil(t, Best("com.acme.CustomsSubmissionException: declaration re-queued"), "a name that says nothing types nothing")
}

func TestExceptionWithStackIsACatchAll(t *testing.T) {
	node := "/app/src/clients/audit.ts:26\n  throw new AuditError(msg)\n        ^\n\nAuditError: audit-log rejected event promotion.redeemed: 400 {\"error\":\"invalid_event\"}\n    at AuditClient.record (/app/src/clients/audit.ts:26:13)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"
	s := Best(node)
	require.NotNil(t, s)
	assert.Equal(t, "exception-with-stack", s.ID)
	assert.True(t, strings.HasPrefix(errorLine(node, s), "AuditError: audit-log rejected"), errorLine(node, s))

	py := "Traceback (most recent call last):\n  File \"/app/recs/ranker.py\", line 41, in rank\n    score = weights[item.kind]\n  File \"/app/recs/weights.py\", line 12, in lookup\n    raise UnknownKindFailure(kind)\nrecs.errors.UnknownKindFailure: kind 'bundle'"
	s = Best(py)
	require.NotNil(t, s)
	assert.Equal(t, "exception-with-stack", s.ID)
	assert.Equal(t, "recs.errors.UnknownKindFailure: kind 'bundle'", errorLine(py, s), "the quote is the exception, not the traceback header")

	// A dependency's failure printed with a stack is not a code error.
	for _, text := range []string{
		"notify_otp.providers.smsgate.ProviderError: smsgate returned 503: service_unavailable\n    at send (/app/smsgate.js:27:9)",
		"MaxRetriesPerRequestError: Reached the max retries per request limit (which is 3).\n    at Socket.<anonymous> (/app/node_modules/ioredis/built/redis/event_handler.js:182:37)",
	} {
		if s := Best(text); s != nil {
			assert.NotEqual(t, "exception-with-stack", s.ID, text)
		}
	}
}

func TestWrappedErrorsAreTypedByWhatTheyWrap(t *testing.T) {
	wrapped := "thread 'upstream_timeout' panicked at tests/common/mod.rs:36:64:\ncalled `Result::unwrap()` on an `Err` value: Os { code: 98, kind: AddrInUse, message: \"Address already in use\" }"
	assert.Equal(t, "port-in-use", Best(wrapped).ID)
	assert.Equal(t, "rust-unwrap", Best("called `Option::unwrap()` on a `None` value").ID, "None wraps nothing")
	assert.Equal(t, "rust-unwrap", Best("called `Result::unwrap()` on an `Err` value: ParseError { kind: Empty }").ID, "an error nothing knows stays the unwrap")
}
