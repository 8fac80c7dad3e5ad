module github.com/wayfarer/trips/services/fare-aggregator

go 1.24

require (
	go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp v0.61.0
	go.opentelemetry.io/otel v1.36.0
)
