package investigate

import (
	"regexp"
	"sort"
	"strings"
)

// Role says what a signature tells about causality.
type Role string

const (
	// RoleCause: the error is raised where the defect or the faulty resource is.
	RoleCause Role = "cause"
	// RolePropagated: the error reports a failure of something else
	// (UNAVAILABLE from a callee, 502 from an upstream): it points away.
	RolePropagated Role = "propagated"
	// RoleSymptom: a consequence whose cause must be found elsewhere
	// (CrashLoopBackOff says a container keeps exiting, not why).
	RoleSymptom Role = "symptom"
)

// Signature is one entry of the fingerprint catalogue.
type Signature struct {
	ID        string
	Runtime   string // java, go, python, node, dotnet, k8s, any
	Pattern   *regexp.Regexp
	ErrorType ErrorType
	// Bucket is the usual classification when nothing else decides.
	Bucket Bucket
	Role   Role
	// Infra marks signatures that describe the platform rather than the code.
	Infra bool
	// Weight orders signatures when several match (more specific wins).
	Weight int
	Title  string
	// Unless vetoes a match: texts it matches are not this signature
	// (a generic exception whose message says a dependency failed).
	Unless *regexp.Regexp
	// pre rules out most texts before the expression runs.
	pre prefilter
}

// unless attaches a veto expression to a signature.
func unless(s Signature, veto string) Signature {
	s.Unless = regexp.MustCompile(veto)
	return s
}

func sig(id, runtime, pattern string, et ErrorType, b Bucket, role Role, infra bool, weight int, title string) Signature {
	return Signature{ID: id, Runtime: runtime, Pattern: regexp.MustCompile(pattern), ErrorType: et, Bucket: b,
		Role: role, Infra: infra, Weight: weight, Title: title, pre: newPrefilter(pattern)}
}

// Catalogue is the fingerprint catalogue, most specific first within a runtime.
// Adding a fingerprint: append a sig(...) line with a unique id and a test
// case in fingerprint_test.go.
var Catalogue = []Signature{
	// Java / JVM
	sig("java-npe", "java", `java\.lang\.NullPointerException|\bNullPointerException\b`, ErrNullPointer, BucketCodeBug, RoleCause, false, 90, "Java NullPointerException"),
	sig("java-oom", "java", `java\.lang\.OutOfMemoryError`, ErrOOM, BucketInfrastructure, RoleCause, true, 85, "JVM OutOfMemoryError"),
	// java.text formatters and calendars keep parse state in the instance:
	// unchecked exceptions from inside them mean several threads share one.
	sig("java-shared-formatter", "java", `(?s)(?:NumberFormatException|ArrayIndexOutOfBoundsException|StringIndexOutOfBoundsException)\b.*?(?:java\.text\.(?:DigitList|DecimalFormat|SimpleDateFormat)\.|sun\.util\.calendar\.|java\.util\.GregorianCalendar\.)`, ErrRace, BucketFlake, RoleCause, false, 89, "non-thread-safe formatter shared between threads"),
	// One connection used by several processes or threads at once: replies
	// interleave and a client reads another request's answer.
	sig("shared-connection", "any", `MemcacheUnknownError: b?'(?:STORED|DELETED|NOT_STORED|END|EXISTS|NOT_FOUND|TOUCHED)|MemcacheUnexpectedCloseError|Commands out of sync|Packets out of order|another command is already in progress|(?i:redis).{0,80}Protocol [Ee]rror|decryption failed or bad record mac|unexpected (?:reply|response) (?:type|from server)|received an unexpected response`, ErrRace, BucketFlake, RoleCause, false, 84, "one connection shared by several workers (replies interleave)"),
	// Every worker thread blocked: requests, timers and even client libraries
	// (Redis WORKER Busy counts) starve. Usually sync-over-async code.
	sig("threadpool-starvation", "any", `(?i)thread ?pool starvation|heartbeat has been running for|WORKER: \(Busy=[1-9]\d{2,}|IOCP: \(Busy=[1-9]\d{2,}|Thread starvation or clock leap detected|Starvation detected: thread pool`, ErrResourceExhaustion, BucketCodeBug, RoleCause, false, 83, "thread pool starvation"),
	sig("java-cme", "java", `ConcurrentModificationException`, ErrRace, BucketFlake, RoleCause, false, 88, "concurrent modification of a collection"),
	sig("java-hikari", "java", `HikariPool-\d+ - Connection is not available|Connection is not available, request timed out|Timeout waiting for (?:idle object|connection from pool)|Cannot get a connection, pool error|Unable to acquire JDBC Connection`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, false, 87, "database connection pool exhausted"),
	sig("java-numberformat", "java", `NumberFormatException`, ErrDataValidation, BucketBadData, RoleCause, false, 70, "unparseable number in input data"),
	sig("java-json", "java", `JsonParseException|MismatchedInputException|InvalidFormatException|UnrecognizedPropertyException|JsonMappingException|DateTimeParseException`, ErrDataValidation, BucketBadData, RoleCause, false, 70, "payload does not match the expected format"),
	sig("java-runtime", "java", `java\.lang\.(?:IllegalStateException|IllegalArgumentException|ClassCastException|ArithmeticException|(?:Array)?IndexOutOfBoundsException|StringIndexOutOfBoundsException|UnsupportedOperationException)|java\.util\.NoSuchElementException`, ErrRuntime, BucketCodeBug, RoleCause, false, 60, "Java runtime exception"),
	sig("java-ssl", "java", `SSLHandshakeException|PKIX path building failed|CertificateExpiredException|SSLPeerUnverifiedException`, ErrTLS, BucketInfrastructure, RoleCause, true, 85, "TLS handshake / certificate failure"),
	sig("java-unknownhost", "java", `UnknownHostException`, ErrNetwork, BucketInfrastructure, RoleCause, true, 75, "DNS name does not resolve"),
	sig("java-sockettimeout", "java", `SocketTimeoutException|Read timed out|connect timed out`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 55, "socket timeout"),

	// Go
	sig("go-nil", "go", `invalid memory address or nil pointer dereference`, ErrNullPointer, BucketCodeBug, RoleCause, false, 90, "Go nil pointer dereference"),
	sig("go-concurrent-map", "go", `concurrent map (?:writes|read and map write|iteration and map write)`, ErrRace, BucketFlake, RoleCause, false, 90, "concurrent map access (data race)"),
	sig("go-race", "any", `WARNING: DATA RACE|data race detected`, ErrRace, BucketFlake, RoleCause, false, 88, "data race"),
	sig("go-index", "go", `index out of range|slice bounds out of range`, ErrRuntime, BucketCodeBug, RoleCause, false, 80, "Go index out of range"),
	sig("go-nil-map", "go", `assignment to entry in nil map`, ErrNullPointer, BucketCodeBug, RoleCause, false, 86, "write to a nil map"),
	// A goroutine sends on (or closes) a channel another one already
	// closed: which side runs first decides, so it happens only when the
	// timing lines up (a sender that outlives its receiver's deadline).
	sig("go-closed-channel", "go", `send on closed channel|close of closed channel`, ErrRace, BucketFlake, RoleCause, false, 84, "goroutine used a channel after it was closed (ordering race)"),
	sig("go-panic-assert", "go", `interface conversion: .* is .*, not|integer divide by zero|all goroutines are asleep - deadlock`, ErrRuntime, BucketCodeBug, RoleCause, false, 78, "Go runtime panic"),
	// EMFILE / ENFILE in any runtime's words: the process (or the host)
	// ran out of file descriptors; sockets count. asyncio reports an
	// accept() failing on it as "out of system resource".
	sig("go-fd", "any", `(?i:too many open files|file table overflow|socket\.accept\(\) out of system resource)|\bEMFILE\b|\bENFILE\b|\[Errno 2[34]\]`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, true, 80, "file descriptors exhausted"),
	sig("go-deadline", "any", `context deadline exceeded|code = DeadlineExceeded|\b4 DEADLINE_EXCEEDED\b|DEADLINE_EXCEEDED`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 55, "deadline exceeded waiting for a dependency"),

	// Python
	sig("py-nonetype", "python", `'NoneType' object (?:has no attribute|is not subscriptable|is not iterable|is not callable)|NoneType: None`, ErrNullPointer, BucketCodeBug, RoleCause, false, 88, "Python None dereference"),
	sig("py-pool", "python", `QueuePool limit of size \d+ overflow \d+ reached|TimeoutError: QueuePool|connection pool (?:exhausted|is full)|PoolTimeout`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, false, 87, "connection pool exhausted"),
	sig("py-validation", "python", `pydantic.*ValidationError|ValidationError: \d+ validation error|json\.decoder\.JSONDecodeError|JSONDecodeError|UnicodeDecodeError|InvalidOperation: \[<class 'decimal`, ErrDataValidation, BucketBadData, RoleCause, false, 72, "invalid input data"),
	sig("py-valueerror", "python", `\bValueError: (?:invalid literal|could not convert|time data .* does not match|Invalid isoformat)`, ErrDataValidation, BucketBadData, RoleCause, false, 70, "unparseable value in input data"),
	sig("py-runtime", "python", `\b(?:KeyError|IndexError|ZeroDivisionError|TypeError|AttributeError|RecursionError|UnboundLocalError|NameError|AssertionError): `, ErrRuntime, BucketCodeBug, RoleCause, false, 55, "Python runtime error"),

	// Node.js
	sig("node-undefined", "node", `TypeError: Cannot read propert(?:y|ies) of (?:undefined|null)|TypeError: Cannot (?:set|destructure) propert(?:y|ies) of (?:undefined|null)|undefined is not an object|Cannot read properties of (?:undefined|null)`, ErrNullPointer, BucketCodeBug, RoleCause, false, 88, "JavaScript undefined/null dereference"),
	sig("node-notfunction", "node", `TypeError: [\w$.\[\]'"]+ is not a function|ReferenceError: \w+ is not defined|RangeError: `, ErrRuntime, BucketCodeBug, RoleCause, false, 70, "JavaScript runtime error"),
	sig("node-heap", "node", `JavaScript heap out of memory|FATAL ERROR: .*Allocation failed|Reached heap limit`, ErrOOM, BucketInfrastructure, RoleCause, true, 85, "Node.js heap exhausted"),
	sig("message-format", "any", `\b(?:EXPECT_ARGUMENT_CLOSING_BRACE|EXPECT_ARGUMENT_TYPE|EXPECT_ARGUMENT_STYLE|MALFORMED_ARGUMENT|EXPECT_PLURAL_ARGUMENT_SELECTOR|EXPECT_SELECT_ARGUMENT_OPTIONS|MISSING_OTHER_CLAUSE|UNMATCHED_CLOSING_TAG|UNCLOSED_TAG|INVALID_TAG|UNCLOSED_QUOTE_IN_ARGUMENT_STYLE|EMPTY_ARGUMENT)\b|Unmatched braces in the pattern|can't parse argument number|FORMATTING_ERROR|i18next::translator: missing|MessageFormat(?:Error|Exception)|Invalid ICU message`, ErrDataValidation, BucketBadData, RoleCause, false, 78, "malformed message/translation string"),
	sig("node-json", "node", `SyntaxError: Unexpected (?:token|end of JSON input|non-whitespace)|in JSON at position \d+|is not valid JSON`, ErrDataValidation, BucketBadData, RoleCause, false, 70, "malformed JSON payload"),

	// .NET
	sig("dotnet-nre", "dotnet", `System\.NullReferenceException|Object reference not set to an instance of an object`, ErrNullPointer, BucketCodeBug, RoleCause, false, 90, ".NET NullReferenceException"),
	sig("dotnet-collection-modified", "dotnet", `Collection was modified; enumeration operation may not execute|Operations that change non-concurrent collections must have exclusive access|A second operation was started on this context|second operation (?:was )?started on this context|DbContext is not thread-safe|dictionary changed size during iteration|Set changed size during iteration`, ErrRace, BucketFlake, RoleCause, false, 88, "collection modified concurrently"),
	sig("dotnet-format", "dotnet", `System\.FormatException|System\.OverflowException|System\.Text\.Json\.JsonException|Newtonsoft\.Json\.JsonReaderException`, ErrDataValidation, BucketBadData, RoleCause, false, 70, "input data in an unexpected format"),
	sig("dotnet-runtime", "dotnet", `System\.(?:InvalidOperationException|ArgumentException|ArgumentNullException|ArgumentOutOfRangeException|IndexOutOfRangeException|InvalidCastException|DivideByZeroException|Collections\.Generic\.KeyNotFoundException|NotImplementedException)`, ErrRuntime, BucketCodeBug, RoleCause, false, 60, ".NET runtime exception"),
	sig("dotnet-timeout", "dotnet", `TaskCanceledException|System\.TimeoutException|The operation was canceled|A task was canceled`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 50, ".NET timeout / cancellation"),

	// Ruby, PHP, Rust
	sig("ruby-nil", "ruby", "undefined method [\x60'][\\w?!]+' for nil|NoMethodError: undefined method .* for nil", ErrNullPointer, BucketCodeBug, RoleCause, false, 88, "Ruby method called on nil"),
	sig("php-null", "php", `Call to a member function \w+\(\) on null|Attempt to read property "\w+" on null|Trying to access array offset on value of type null`, ErrNullPointer, BucketCodeBug, RoleCause, false, 88, "PHP member access on null"),
	sig("rust-unwrap", "rust", "called \x60(?:Option|Result)::unwrap\\(\\)\x60 on (?:a \x60None\x60 value|an \x60Err\x60 value)|called \x60Option::expect\\(\\)\x60", ErrNullPointer, BucketCodeBug, RoleCause, false, 86, "Rust unwrap on None/Err"),
	sig("rust-panic", "rust", `thread '[^']+' panicked at|index out of bounds: the len is`, ErrRuntime, BucketCodeBug, RoleCause, false, 60, "Rust panic"),

	// Databases and data
	sig("db-deadlock", "any", `deadlock detected|Deadlock found when trying to get lock|was deadlocked on lock resources`, ErrRace, BucketFlake, RoleCause, false, 80, "database deadlock"),
	sig("db-constraint", "any", `violates (?:not-null|foreign key|unique|check) constraint|duplicate key value|Duplicate entry .* for key|IntegrityError|invalid input syntax for type|out of range for type|value too long for type`, ErrDataValidation, BucketBadData, RoleCause, false, 72, "data violates a database constraint"),
	sig("schema-validation", "any", `schema validation failed|does not match schema|failed to (?:decode|unmarshal|deserialize)|cannot unmarshal|invalid character .* looking for|unexpected end of JSON input|malformed (?:record|payload|message|json)|poison (?:message|pill)|DeserializationException|SerializationException`, ErrDataValidation, BucketBadData, RoleCause, false, 68, "record does not match the expected schema"),

	sig("db-pool", "any", `connection not available and request was dropped from queue|[Tt]imed out waiting for (?:a )?connection from (?:the )?pool|timeout acquiring (?:a )?connection|ConnectionPoolTimeoutError|could not obtain a connection from the pool|Unable to acquire a connection|pool exhausted|No connections available in pool`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, false, 80, "client connection pool exhausted"),
	sig("redis-invalid-arg", "any", `ERR invalid expire time|ERR value is not an integer or out of range|ERR value is out of range|ERR invalid expire`, ErrRuntime, BucketCodeBug, RoleCause, false, 72, "invalid argument sent to Redis (a negative or overflowed number)"),
	sig("redis-oom", "any", `OOM command not allowed when used memory > 'maxmemory'|redis memory at maxmemory`, ErrResourceExhaustion, BucketInfrastructure, RolePropagated, true, 90, "Redis at maxmemory (writes refused)"),
	sig("server-connlimit", "any", `no more connections allowed|max_client_conn|too many clients already|remaining connection slots are reserved|Too many connections|max number of clients reached|connection limit exceeded|too many open connections`, ErrResourceExhaustion, BucketInfrastructure, RolePropagated, true, 89, "the server refuses new connections (connection limit reached)"),
	sig("enum-value", "any", `No enum constant|not one of the values accepted for Enum|Cannot deserialize value of type \S+ from String|invalid input value for enum|is not a valid (?:enum|choice|value for)|Unknown enum value|has no member named|ValueError: '[^']+' is not a valid \w+`, ErrDataValidation, BucketBadData, RoleCause, false, 74, "a stored value is not one the code knows"),
	sig("invalid-value", "any", `(?i:\b(?:unknown|invalid|unsupported|unrecognized|unrecognised|illegal|malformed)\s+(?:[\w-]+\s+){0,3}(?:code|value|format|currency|enum|type|date|timestamp|record|field|character|input|payload|id|identifier|number))|(?i:is not a valid)|(?i:failed validation)|(?i:validation (?:failed|error))|ConstraintViolation|MethodArgumentNotValid|must not be (?:null|blank|empty)|must be a valid|must match|should match pattern|does not match (?:the )?(?:pattern|required)|BadRequestException|Bad Request Exception|(?i:failed to validate)|is not allowed to be empty|is required\b|(?i:\b(?:records?|readings?|messages?|events?|payloads?|rows?|documents?|items?|entries|entry|inputs?|requests?) (?:rejected|dropped|discarded|refused)\b)|(?i:failed to parse field|document_parsing_exception|mapper_parsing_exception|cannot parse|could not parse|unparseable|unparsable)|(?i:\bout of range\b)|(?i:does not conform)|(?i:schema mismatch)`, ErrDataValidation, BucketBadData, RoleCause, false, 62, "input fails validation"),

	// Configuration and credentials
	sig("missing-env", "any", `(?i:environment variable|env var|env)\s+["'\x60]?[A-Z][A-Z0-9_]{2,}["'\x60]?\s+(?i:is\s+)?(?i:not set|missing|required|undefined|empty)|(?i:missing required (?:environment|env|config(?:uration)?))|required key \[?[A-Z_]+\]? missing|KeyError: '[A-Z][A-Z0-9_]{2,}'|\b[A-Z][A-Z0-9_]{2,} (?:must|should) be set|(?i:no value for required)`, ErrConfig, BucketInfrastructure, RoleCause, true, 86, "required configuration missing"),
	sig("bad-credentials", "any", `password authentication failed|Access denied for user|(?i:authentication failed for user)|(?i:invalid (?:username or password|credentials|api key|client secret))|WRONGPASS|NOAUTH Authentication required|SASL authentication failed|\b(?:Sasl|Ldap|Mongo|Npgsql|Sql|Redis|Kafka)?AuthenticationException|401 Unauthorized|InvalidClientTokenId|SignatureDoesNotMatch`, ErrConfig, BucketInfrastructure, RoleCause, true, 82, "credentials rejected"),
	sig("config-parse", "any", `(?i)(?:invalid|bad|malformed) (?:configuration|config)|failed to (?:load|parse) (?:config|configuration|settings)|unknown configuration key|BeanCreationException|Could not resolve placeholder|ConfigurationException`, ErrConfig, BucketInfrastructure, RoleCause, true, 75, "invalid configuration"),

	// TLS and network
	sig("tls-cert", "any", `x509: certificate (?:has expired|is not valid|signed by unknown authority|is valid for)|certificate has expired|CERT_HAS_EXPIRED|certificate verify failed|UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|SSL routines|tls: (?:handshake failure|bad certificate|failed to verify)|ERR_TLS_CERT|The SSL connection could not be established|remote certificate is invalid|NotTimeValid|RemoteCertificateChainErrors|certificate chain|Authentication\.AuthenticationException`, ErrTLS, BucketInfrastructure, RoleCause, true, 92, "TLS certificate / handshake failure"),
	sig("es-flood-stage", "any", `flood[- ]stage watermark|read_only_allow_delete|disk usage exceeded|cluster_block_exception|index read-only`, ErrResourceExhaustion, BucketInfrastructure, RolePropagated, true, 90, "storage full: the cluster blocks writes"),
	sig("import-error", "any", `ImportError|ModuleNotFoundError|Cannot find module|ERR_MODULE_NOT_FOUND|NoClassDefFoundError|ClassNotFoundException|NoSuchMethodError|undefined symbol|only supports OpenSSL|requires (?:Python|OpenSSL|glibc|node) [\d.]+|GLIBC_[\d.]+' not found|Could not load file or assembly|incompatible with|version mismatch`, ErrDependency, BucketCodeBug, RoleCause, false, 84, "a dependency cannot be loaded"),
	sig("dns", "any", `dial tcp: lookup \S+|lookup \S+ on \S+:53|no such host|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|\bENOTFOUND\b|\bEAI_AGAIN\b|Temporary failure in name resolution|Name or service not known|(?i:nxdomain)|Name does not resolve|nodename nor servname provided|server misbehaving|could not resolve host`, ErrNetwork, BucketInfrastructure, RoleCause, true, 78, "DNS resolution failure"),
	sig("connect-timeout", "any", `connect ETIMEDOUT|connect timed out|ConnectTimeoutException|dial tcp [^ ]+: i/o timeout|dial tcp [^ ]+: connect: connection timed out|Connection timed out|timeout while connecting|connection attempt timed out`, ErrNetwork, BucketInfrastructure, RolePropagated, false, 66, "cannot connect (connection timed out)"),
	sig("conn-refused", "any", `(?i)connection refused|ECONNREFUSED|actively refused`, ErrNetwork, BucketInfrastructure, RolePropagated, false, 60, "connection refused by the callee"),
	sig("conn-reset", "any", `ECONNRESET|connection reset by peer|broken pipe|EPIPE|socket hang up|unexpected EOF|other side closed|UND_ERR_SOCKET|Connection closed before|server closed idle connection|connection closed by peer|RemoteDisconnected|Remote end closed connection`, ErrNetwork, BucketInfrastructure, RolePropagated, false, 50, "connection reset"),
	sig("grpc-unavailable", "any", `code = Unavailable|\b14 UNAVAILABLE\b|StatusCode\.UNAVAILABLE|Status\(StatusCode="Unavailable"|UNAVAILABLE: `, ErrNetwork, BucketInfrastructure, RolePropagated, false, 45, "callee unavailable (gRPC UNAVAILABLE)"),
	sig("gateway-timeout", "any", `504 Gateway Time-?out|upstream timed out|upstream request timeout|\bGatewayTimeout\b`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 48, "the upstream answered too slowly for the proxy (504)"),
	sig("upstream-5xx", "any", `no healthy upstream|upstream connect error|502 Bad Gateway|503 Service Unavailable|upstream prematurely closed`, ErrDependency, BucketInfrastructure, RolePropagated, false, 45, "upstream failure reported by a proxy"),
	sig("rate-limited", "any", `429 Too Many Requests|(?i)rate limit(?:ed| exceeded)|TooManyRequests|Throttling(?:Exception)?:`, ErrDependency, BucketInfrastructure, RoleCause, false, 60, "throttled by a dependency"),
	sig("db-statement-timeout", "any", `PG::QueryCanceled|canceling statement due to statement timeout|SQLSTATE\s*57014|\(57014\)|QueryCanceledException|Query execution was interrupted|maximum statement execution time exceeded|Execution Timeout Expired|ORA-01013|statement timeout`, ErrTimeout, BucketCodeBug, RoleCause, false, 82, "database query cancelled by its statement timeout"),
	sig("timeout-generic", "any", `(?i)\btimed? ?out\b|ETIMEDOUT|ESOCKETTIMEDOUT|Gateway Timeout`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 35, "timeout"),
	sig("disk-full", "any", `(?i:no space left on device)|ENOSPC|(?i:disk quota exceeded)`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, true, 85, "disk full"),

	// Kubernetes
	sig("k8s-oomkilled", "k8s", `OOMKilled|OOM[- ]?killed|oom-kill|Memory cgroup out of memory|exit code 137|exitCode: 137|Exit Code:\s+137`, ErrOOM, BucketInfrastructure, RoleCause, true, 95, "container OOM-killed"),
	sig("k8s-imagepull", "k8s", `ImagePullBackOff|ErrImagePull|InvalidImageName|manifest unknown|manifest for .* not found|pull access denied|repository does not exist|failed to pull and unpack image`, ErrConfig, BucketInfrastructure, RoleCause, true, 94, "image cannot be pulled"),
	sig("k8s-configerror", "k8s", `CreateContainerConfigError|couldn't find key \S+ in (?:Secret|ConfigMap)|(?:secret|configmap) "[^"]+" not found|CreateContainerError`, ErrConfig, BucketInfrastructure, RoleCause, true, 94, "container configuration references a missing Secret/ConfigMap key"),
	sig("k8s-evicted", "k8s", `\bEvicted\b|The node was low on resource: memory|MemoryPressure|memory-pressure|evicting pod|NodeHasInsufficientMemory|node\.kubernetes\.io/memory-pressure`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, true, 90, "pods evicted under node memory pressure"),
	sig("k8s-scheduling", "k8s", `FailedScheduling|Insufficient (?:cpu|memory|nvidia\.com/gpu)|didn't match Pod's node affinity|had untolerated taint|had taint \{|Too many pods`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, true, 80, "pods cannot be scheduled"),
	sig("pdb-selects-nothing", "k8s", `PodDisruptionBudget \S+ selects no pods`, ErrConfig, BucketInfrastructure, RoleCause, true, 84, "disruption budget selects no pods"),
	sig("quota-exceeded", "k8s", `(?:is forbidden: )?exceeded quota: [\w.-]+|forbidden: failed quota: [\w.-]+`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, true, 88, "namespace ResourceQuota exhausted (pods cannot be created)"),
	sig("k8s-probe", "k8s", `(?:Readiness|Liveness|Startup) probe failed`, ErrConfig, BucketInfrastructure, RoleSymptom, true, 70, "health probe failing"),
	sig("hpa-at-max", "k8s", `ScalingLimited|TooManyReplicas|desired replica count is more than the maximum|HorizontalPodAutoscaler at its maxReplicas`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, true, 75, "autoscaler held at its maximum replicas"),
	sig("cpu-throttled", "k8s", `(?i)\bCPU throttled in \d+% of CFS periods|\bcpu throttling (?:high|detected)`, ErrResourceExhaustion, BucketInfrastructure, RoleCause, true, 72, "CPU throttled at the container's limit"),
	sig("growth-with-uptime", "any", `grows? steadily with uptime`, ErrOOM, BucketCodeBug, RoleCause, false, 70, "memory leak (usage grows with uptime)"),
	sig("latency-rise", "any", `\bp99 latency \S+ since\b`, ErrTimeout, BucketUnknown, RoleSymptom, false, 30, "latency rise"),
	sig("clock-skew", "any", `ImmatureSignatureError|[Tt]oken is not yet valid|Token used before issued|TokenNotYetValid|JWT not active|issued in the future|(?i:clock skew detected)|System clock wrong by|clock offset of -?\d+(?:\.\d+)?s on node`, ErrConfig, BucketInfrastructure, RoleCause, true, 80, "clocks disagree (a token not yet valid / clock skew)"),
	sig("token-expired", "any", `(?i)access token (?:has )?expired|\btoken (?:is |has )?expired|"invalid_token"|\bjwt expired|TokenExpiredError|ExpiredSignatureError|ExpiredJwtException|\btoken_expired\b|\bexpired_token\b`, ErrConfig, BucketInfrastructure, RoleCause, false, 76, "access token expired"),
	sig("cloud-access-denied", "any", `An error occurred \((?:AccessDenied|AccessDeniedException|UnauthorizedOperation|InvalidClientTokenId|UnrecognizedClientException)\)|[Nn]ot authorized to perform:? sts:AssumeRole|is not authorized to perform: \w+:\w+|AuthorizationFailed|does not have authorization to perform action|Permission '[\w.]+' denied on resource|PERMISSION_DENIED: Permission`, ErrConfig, BucketInfrastructure, RoleCause, true, 82, "cloud IAM permission denied"),
	sig("k8s-crashloop", "k8s", `CrashLoopBackOff|Back-off restarting failed container`, ErrUnknown, BucketInfrastructure, RoleSymptom, true, 40, "container restarting in a loop"),
	// Kubernetes analyzers (investigate/k8s): each names the object field at
	// fault; the expressions also recognise the same conditions in logs and
	// events (a client refused by RBAC logs "cannot list resource").
	sig("k8s-rbac-forbidden", "k8s", `cannot (?:get|list|watch|create|update|patch|delete|deletecollection|use|bind|escalate|impersonate) resource "[^"]+"|is forbidden: User "system:serviceaccount:`, ErrConfig, BucketInfrastructure, RoleCause, true, 90, "service account lacks an RBAC permission"),
	sig("k8s-storage", "k8s", `storageclass\.storage\.k8s\.io "[^"]+" not found|StorageClass \S+ does not exist|ProvisioningFailed|unbound immediate PersistentVolumeClaims|persistentvolumeclaim "[^"]+" not found|no persistent volumes available for this claim and no storage class is set`, ErrConfig, BucketInfrastructure, RoleCause, true, 90, "volume claim cannot be provisioned"),
	sig("k8s-selector-mismatch", "k8s", `Service \S+ selects no pods`, ErrConfig, BucketInfrastructure, RoleCause, true, 88, "Service selector matches no pods (no endpoints)"),
	sig("k8s-target-port", "k8s", `targetPort \S+ is not a port of`, ErrConfig, BucketInfrastructure, RoleCause, true, 88, "Service targetPort is not a port the pods listen on"),
	sig("k8s-ingress-backend", "k8s", `backend Service \S+ does not exist|backend port \S+ is not a port of Service`, ErrConfig, BucketInfrastructure, RoleCause, true, 88, "Ingress or route backend does not exist"),
	sig("k8s-netpol-blocked", "k8s", `NetworkPolicy \S+ does not allow`, ErrNetwork, BucketInfrastructure, RoleCause, true, 88, "NetworkPolicy drops the traffic"),
	sig("k8s-hpa-no-requests", "k8s", `missing request for (?:cpu|memory)|failed to get (?:cpu|memory) utilization|FailedGetResourceMetric`, ErrConfig, BucketInfrastructure, RoleCause, true, 87, "autoscaler cannot compute utilization (containers without resource requests)"),
	sig("k8s-limitrange", "k8s", `(?:maximum|minimum) (?:cpu|memory|ephemeral-storage) usage per (?:Container|Pod) is|must be less than or equal to (?:cpu|memory) limit`, ErrConfig, BucketInfrastructure, RoleCause, true, 88, "LimitRange rejects the pods' resources"),
	sig("k8s-job-deadline", "k8s", `Job was active longer than specified deadline|Job \S+ was stopped at its deadline`, ErrTimeout, BucketInfrastructure, RoleCause, true, 82, "Job stopped at its activeDeadlineSeconds"),
	sig("k8s-job-backoff", "k8s", `BackoffLimitExceeded|Job has reached the specified backoff limit`, ErrUnknown, BucketInfrastructure, RoleSymptom, true, 45, "Job failed (backoff limit reached)"),
	sig("k8s-cert-not-ready", "k8s", `Certificate \S+ is not Ready|[Ii]ssuer \S+ (?:not found|does not exist|is not ready)|IssuerNotFound|IssuerNotReady`, ErrTLS, BucketInfrastructure, RoleCause, true, 86, "certificate not issued (issuer missing or not ready)"),
	sig("k8s-rollout-stuck", "k8s", `ProgressDeadlineExceeded|exceeded its progress deadline`, ErrUnknown, BucketInfrastructure, RoleSymptom, true, 45, "rollout stuck (progress deadline exceeded)"),
	sig("k8s-lifecycle-hook", "k8s", `Failed(?:PreStop|PostStart)Hook|(?:PreStop|PostStart)Hook failed|(?:Exec|HTTP) lifecycle hook \(.*\) for Container "[^"]+" in Pod "[^"]+" failed`, ErrConfig, BucketInfrastructure, RoleCause, true, 86, "container lifecycle hook (preStop/postStart) fails"),
	sig("k8s-node-notready", "k8s", `NodeNotReady|Kubelet stopped posting node status|node \S+ is NotReady`, ErrDependency, BucketInfrastructure, RoleCause, true, 70, "node NotReady"),

	// Test runners: a failed assertion in CI (Jest, pytest, go test, JUnit).
	sig("test-failure", "any", `(?m)^\s*● .+ › |\bFAIL\s+\S+\.(?:spec|test|int-spec|e2e-spec)\.[cm]?[jt]sx?\b|expect\(received\)|--- FAIL: Test\w+|^FAILED \S+::\S+|AssertionFailedError|ComparisonFailure|Tests run: \d+, Failures: [1-9]`, ErrRuntime, BucketCodeBug, RoleCause, false, 45, "test assertion failed"),

	// Runtime failures of more languages and frameworks.
	sig("stack-overflow", "any", `StackOverflowError|Maximum call stack size exceeded|RecursionError: maximum recursion depth|goroutine stack exceeds|fatal error: stack overflow|has overflowed its stack|SystemStackError: stack level too deep|Stack overflow\.`, ErrRuntime, BucketCodeBug, RoleCause, false, 80, "unbounded recursion (stack overflow)"),
	sig("int-overflow", "any", `attempt to (?:add|subtract|multiply|negate|shift left|shift right) with overflow|ArithmeticException: (?:integer|long) overflow|Arithmetic operation resulted in an overflow|\binteger overflow\b|overflowed (?:int|u?int\d+|i\d+|u\d+)\b`, ErrRuntime, BucketCodeBug, RoleCause, false, 82, "integer overflow"),
	sig("div-by-zero", "any", `ZeroDivisionError|DivideByZeroException|integer divide by zero|ArithmeticException: / by zero|attempt to divide by zero|DivisionByZeroError|\bdivision by zero\b`, ErrRuntime, BucketCodeBug, RoleCause, false, 78, "division by zero"),
	sig("php-type", "php", `must be of type [\w\\|?]+, [\w\\]+ given|Uncaught TypeError|Return value must be of type|Cannot assign [\w\\]+ to property`, ErrRuntime, BucketCodeBug, RoleCause, false, 80, "PHP type error"),
	sig("record-not-found", "any", `(?i:\b(?:document|record|row|entity|order|item) (?:\S+ )?not found\b)|ActiveRecord::RecordNotFound|DoesNotExist: \w+ matching query does not exist|EntityNotFoundException|EmptyResultDataAccessException|NoResultException|sql: no rows in result set|ObjectDoesNotExist|Ecto\.NoResultsError|RecordNotFoundError`, ErrDataValidation, BucketBadData, RoleCause, false, 66, "record not found"),
	sig("php-undefined", "php", `Undefined (?:array key|index|offset|variable|property)\b|Trying to access array offset on value of type (?:bool|int)`, ErrRuntime, BucketCodeBug, RoleCause, false, 70, "PHP undefined key or variable"),
	sig("php-memory", "php", `Allowed memory size of \d+ bytes exhausted`, ErrOOM, BucketInfrastructure, RoleCause, false, 86, "PHP memory_limit exhausted"),
	sig("php-timeout", "php", `Maximum execution time of \d+ seconds? exceeded`, ErrTimeout, BucketInfrastructure, RoleCause, false, 80, "PHP max_execution_time exceeded"),
	sig("elixir-error", "elixir", `\*\* \((?:FunctionClauseError|MatchError|CaseClauseError|CondClauseError|WithClauseError|KeyError|ArgumentError|ArithmeticError|BadMapError|BadBooleanError|UndefinedFunctionError|Protocol\.UndefinedError|Ecto\.NoResultsError)\)`, ErrRuntime, BucketCodeBug, RoleCause, false, 72, "Elixir runtime error"),
	sig("already-started-race", "elixir", `\{:already_started, ?#PID<|\{:error, \{:already_started`, ErrRace, BucketFlake, RoleCause, false, 82, "process started twice by concurrent callers"),
	sig("elixir-call-timeout", "elixir", `\*\* \(EXIT\) time out|exited in: GenServer\.call|DBConnection\.ConnectionError.*(?:timeout|timed out)`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 62, "GenServer call timed out"),
	sig("kotlin-null", "java", `UninitializedPropertyAccessException|lateinit property \w+ has not been initialized|KotlinNullPointerException|Parameter specified as non-null is null`, ErrNullPointer, BucketCodeBug, RoleCause, false, 86, "Kotlin null-safety violation"),
	sig("coroutine-timeout", "java", `TimeoutCancellationException|Timed out waiting for \d+ ms`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 60, "coroutine timed out"),
	sig("ruby-runtime", "ruby", `\bNoMethodError\b|\bFrozenError\b|\bArgumentError \(|no implicit conversion of \w+ into \w+|ActiveModel::UnknownAttributeError|ActiveRecord::StatementInvalid|undefined local variable or method`, ErrRuntime, BucketCodeBug, RoleCause, false, 58, "Ruby runtime error"),
	sig("ruby-timeout", "ruby", `Net::ReadTimeout|Net::OpenTimeout|Rack::Timeout::RequestTimeout|Faraday::TimeoutError|Redis::TimeoutError|Timeout::Error`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 55, "Ruby client timeout"),
	sig("node-runtime", "node", `ERR_HTTP_HEADERS_SENT|Cannot set headers after they are sent|ERR_INVALID_ARG_TYPE|RangeError: Invalid (?:array length|string length|count value)|ReferenceError: \w+ is not defined`, ErrRuntime, BucketCodeBug, RoleCause, false, 70, "Node.js runtime error"),
	sig("value-out-of-range", "any", `un-representable DateTime|[Yy]ear (?:\d+ )?is out of range|day is out of range for month|date value out of range|date/time field value out of range|Value was either too large or too small for|DateTimeException: Invalid value for|datetime field overflow|timestamp out of range`, ErrDataValidation, BucketBadData, RoleCause, false, 76, "a value outside the range the code can represent"),
	sig("go-parse", "go", `strconv\.(?:Parse\w+|Atoi): parsing "[^"]*": (?:invalid syntax|value out of range)|parsing time "[^"]*"(?: as "[^"]*")?: cannot parse`, ErrDataValidation, BucketBadData, RoleCause, false, 70, "unparseable value in input data"),
	sig("lock-lost", "any", `attempt to unlock lock, not locked by current thread|[Ll]ock (?:was )?(?:already )?expired|LockNotOwnedError|[Ll]ost (?:the )?lock|lock lease expired|Cannot release a lock that's no longer owned|lock not held`, ErrRace, BucketFlake, RoleCause, false, 84, "distributed lock lost while the work still ran (lease expired)"),
	sig("optimistic-lock", "any", `OptimisticLock(?:ing)?(?:Failure)?Exception|StaleObjectStateException|StaleStateException|could not serialize access due to (?:concurrent update|read/write dependencies)|Row was updated or deleted by another transaction|DbUpdateConcurrencyException|ActiveRecord::StaleObjectError|Lock wait timeout exceeded|CannotAcquireLockException|LockAcquisitionException|SQLSTATE\[40001\]`, ErrRace, BucketFlake, RoleCause, false, 80, "concurrent update conflict"),
	sig("hung-call", "any", `took [\d.]+ s while the caller gave up after`, ErrTimeout, BucketCodeBug, RoleCause, false, 78, "outgoing call without a timeout hangs"),
	// Platform and protocol limits.
	sig("body-too-large", "any", `413 Request Entity Too Large|client intended to send too large body|413 Payload Too Large|[Rr]equest entity too large|http: request body too large|Request body too large|MaxUploadSizeExceededException|FileSizeLimitExceededException|exceeds the maximum upload size|LIMIT_FILE_SIZE|received message larger than max|message larger than max`, ErrConfig, BucketInfrastructure, RoleCause, false, 80, "request or message above a size limit"),
	sig("consumer-rebalance", "any", `CommitFailedException|consumer is not part of an active group|max\.poll\.interval\.ms|consumer poll timeout has expired|RebalanceInProgressException|REBALANCE_IN_PROGRESS|Attempt to heartbeat failed since group is rebalancing|[Uu]nknown member|UNKNOWN_MEMBER_ID|[Ii]llegal generation|ILLEGAL_GENERATION|maximum poll interval \(\d+ms\) exceeded|[Mm]ember \S+ (?:has left|leaving) (?:the )?group`, ErrConfig, BucketInfrastructure, RoleCause, false, 72, "consumer group keeps rebalancing (poll interval exceeded)"),
	// A consumer still working on a message when the queue's visibility
	// timeout / ack deadline ends: the queue hands the message out again,
	// the late acknowledgement is refused and the work is done twice.
	sig("queue-redelivery", "any", `ReceiptHandleIsInvalid|[Rr]eceipt handle (?:has expired|is (?:no longer valid|expired))|(?i:message (?:was|has been) received again|visibility timeout (?:expired|exceeded|elapsed)|ack(?:nowledge?ment)? deadline (?:has )?(?:expired|exceeded|elapsed)|lease (?:on|of) message \S+ expired)|PERMANENT_FAILURE_INVALID_ACK_ID|delivery acknowledgement on channel \d+ timed out|\bApproximateReceiveCount"?\s*[:=]\s*"?(?:[2-9]|[1-9]\d+)\b`, ErrTimeout, BucketInfrastructure, RoleCause, false, 74, "messages redelivered: processing outlasts the queue's visibility timeout / ack deadline"),
	sig("proxy-overflow", "any", `response_flags[":= ]*UO\b|\bUO upstream_reset|upstream_reset_before_response_started\{overflow\}|x-envoy-overloaded|upstream_rq_pending_overflow|pending requests? overflow`, ErrConfig, BucketInfrastructure, RolePropagated, false, 88, "proxy circuit breaker overflow (connection pool limits)"),
	sig("conntrack-full", "any", `nf_conntrack: table full|conntrack table full`, ErrNetwork, BucketInfrastructure, RoleCause, true, 88, "conntrack table full on the node"),
	sig("tls-hostname", "any", `certificate is valid for [^\n]+?, not \S|Hostname \S+ not verified|[Nn]o subject alternative (?:DNS )?names? (?:matching|present)|doesn't match any of the subject alternative names|does not match (?:any of )?the (?:certificate's )?subject alternative names?|ERR_TLS_CERT_ALTNAME_INVALID|SSLCertVerificationError.*[Hh]ostname mismatch|[Hh]ostname mismatch, certificate is not valid for`, ErrTLS, BucketInfrastructure, RoleCause, true, 94, "certificate does not name the host (SAN mismatch)"),
	sig("port-in-use", "any", `EADDRINUSE|[Aa]ddress already in use|Port \d+ is already in use|port is already allocated`, ErrConfig, BucketInfrastructure, RoleCause, false, 74, "port already in use"),
	sig("db-missing-object", "any", `relation "[^"]+" does not exist|column "[^"]+" (?:of relation "[^"]+" )?does not exist|column \S+ does not exist|Unknown column '[^']+'|Table '[^']+' doesn't exist|no such (?:table|column): |UndefinedColumn|UndefinedTable|Invalid column name '|Invalid object name '`, ErrRuntime, BucketCodeBug, RoleCause, false, 82, "code and database schema disagree (missing table or column)"),
	sig("dependency-mismatch", "any", `IncompatibleClassChangeError|AbstractMethodError|NoSuchFieldError|UnsupportedClassVersionError|MissingMethodException|TypeLoadException|ERR_REQUIRE_ESM|cannot load such file|LoadError: |Call to undefined (?:method|function) [\w\\]+::`, ErrDependency, BucketCodeBug, RoleCause, false, 80, "a dependency version does not match the code"),
	// Input encodings.
	sig("text-encoding", "any", `Incorrect string value: '\\x|invalid byte sequence for encoding|UnicodeEncodeError|has no equivalent in encoding|MalformedInputException|Input length = \d+|unmappable character|(?i:invalid utf-?8)|not valid UTF-8|stream did not contain valid UTF-8|Conversion failed when converting .* to data type`, ErrDataValidation, BucketBadData, RoleCause, false, 82, "text the store or parser cannot encode"),
	sig("lone-surrogate", "any", `(?i:low surrogate must follow a high surrogate|unpaired surrogate|lone surrogate|invalid UTF-16)`, ErrDataValidation, BucketBadData, RoleCause, false, 74, "text with half of a UTF-16 surrogate pair"),
	sig("byte-order-mark", "any", `(?i:byte order mark)|\x{FEFF}|\\ufeff|\\xef\\xbb\\xbf|ï»¿`, ErrDataValidation, BucketBadData, RoleCause, false, 80, "byte-order mark at the start of the input"),

	// Exceptions the catalogue does not know, typed by what their class
	// name says (CustomerValidationException, LedgerTimeoutError): weaker
	// than any specific signature.
	sig("named-timeout", "any", `\b[A-Z]\w*(?:Timeout|TimedOut)\w*(?:Exception|Error)\b`, ErrTimeout, BucketInfrastructure, RolePropagated, false, 26, "timeout (named by the exception)"),
	sig("named-validation", "any", `\b[A-Z]\w*(?:Validation|Invalid|Parse|Parsing|Malformed|Deserializ\w*)(?:\w*)(?:Exception|Error)\b`, ErrDataValidation, BucketBadData, RoleCause, false, 26, "invalid input (named by the exception)"),
	sig("named-auth", "any", `\b[A-Z]\w*(?:Unauthorized|Unauthenticated|Forbidden|AccessDenied|PermissionDenied)\w*(?:Exception|Error)\b`, ErrConfig, BucketInfrastructure, RoleCause, false, 26, "access refused (named by the exception)"),
	sig("named-conflict", "any", `\b[A-Z]\w*(?:Concurrent\w*Modification|ConcurrencyConflict|Deadlock|RaceCondition)\w*(?:Exception|Error)\b`, ErrRace, BucketFlake, RoleCause, false, 26, "concurrent modification (named by the exception)"),
	sig("named-null", "any", `\b[A-Z]\w*(?:NullReference|NullValue|NilValue|NullArgument)\w*(?:Exception|Error)\b`, ErrNullPointer, BucketCodeBug, RoleCause, false, 26, "null value (named by the exception)"),
	// Generic application panics (last: least specific)
	sig("go-panic", "go", `\bpanic: `, ErrRuntime, BucketCodeBug, RoleCause, false, 50, "Go panic"),
	// Any exception printed with its stack, when nothing above knows it
	// (custom application errors): a failure raised in the code.
	unless(sig("exception-with-stack", "any", `(?m)^[ \t]*(?:Uncaught |Unhandled |Fatal error: )?[A-Z][\w.$\\]*(?:Error|Exception|Failure|Fault)\b(?: \[\w+\])?:? [^\n]*\n(?:[^\n]*\n){0,2}?[ \t]+(?:at [\w$.<>\[\]]+ \(|at [\w$./\\-]+:\d+|[\w:]+\.rb:\d+:in |#\d+ /)|File "[^"]+", line \d+, in [^\n]+\n[^\n]*\n(?P<q>[A-Za-z_][\w.]*(?:Error|Exception|Failure)\w*): `, ErrRuntime, BucketCodeBug, RoleCause, false, 20, "unhandled exception"),
		`(?i)\b(?:returned|status(?: code)?|HTTP(?:/\d(?:\.\d)?)?)[: ]*5\d\d\b|\b5\d\d (?:Server Error|Service Unavailable|Bad Gateway|Gateway Time)|service.?unavailable|bad.?gateway|time-?out|timed out|connection (?:refused|reset|closed|error|aborted)|refused|unreachable|ECONN|socket hang up|broken pipe|too many requests|\b429\b|(?i:max ?retries|retries (?:exhausted|exceeded)|retry limit)`),
	sig("unhandled", "any", `Unhandled(?:Promise)?Rejection|Unhandled exception|uncaught exception`, ErrRuntime, BucketCodeBug, RoleCause, false, 30, "unhandled exception"),
}

// blameCallee lists signatures that, raised on a call to another service,
// blame the callee: it refused, timed out, was unreachable, presented a bad
// certificate or ran out of connections.
var blameCallee = map[string]bool{
	"conn-refused": true, "conn-reset": true, "grpc-unavailable": true, "timeout-generic": true, "go-deadline": true,
	"java-sockettimeout": true, "dotnet-timeout": true, "upstream-5xx": true, "tls-cert": true, "java-ssl": true,
	"server-connlimit": true, "connect-timeout": true, "es-flood-stage": true, "rate-limited": true, "gateway-timeout": true,
	"proxy-overflow": true, "redis-oom": true,
}

// blameCaller: errors that, seen on a call, point at the caller's own
// request — a query the database cancelled for running too long is slow
// because of the query or the schema the caller's code owns.
var blameCaller = map[string]bool{"db-statement-timeout": true}

// BlamesCaller reports whether this error, seen on a call, points at the caller.
func (s *Signature) BlamesCaller() bool { return s != nil && blameCaller[s.ID] }

// BlamesCallee reports whether this error, seen on a call, points at the callee.
func (s *Signature) BlamesCallee() bool { return s != nil && blameCallee[s.ID] }

// Match is one signature found in a text.
type Match struct {
	Sig   *Signature
	Index int // byte offset of the match
}

// MatchAll returns every catalogue signature matching text, most specific first.
func MatchAll(text string) []Match {
	if text == "" {
		return nil
	}
	var out []Match
	lower := strings.ToLower(text)
	for i := range Catalogue {
		s := &Catalogue[i]
		if !s.pre.mayMatch(lower) {
			continue
		}
		if loc := s.Pattern.FindStringIndex(text); loc != nil {
			if s.Unless != nil && s.Unless.MatchString(text) {
				continue
			}
			out = append(out, Match{Sig: s, Index: loc[0]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Sig.Weight > out[j].Sig.Weight })
	return out
}

// Best returns the most specific matching signature, or nil.
func Best(text string) *Signature {
	m := MatchAll(text)
	if len(m) == 0 {
		return nil
	}
	// A wrapper ("unwrap on an Err value: …") says how the error surfaced;
	// the error it wraps, matched further on, says what it was.
	if wrapsError(m[0].Sig, text) {
		for _, o := range m[1:] {
			if o.Index > m[0].Index && o.Sig.Weight >= 60 {
				return o.Sig
			}
		}
	}
	return m[0].Sig
}

// wrapsError reports whether the signature only carries another error.
func wrapsError(s *Signature, text string) bool {
	switch s.ID {
	case "rust-unwrap":
		return strings.Contains(text, "`Err` value")
	case "go-panic", "unhandled", "exception-with-stack":
		return true
	}
	return false
}

// SignatureByID returns a catalogue entry.
func SignatureByID(id string) *Signature {
	for i := range Catalogue {
		if Catalogue[i].ID == id {
			return &Catalogue[i]
		}
	}
	return nil
}
