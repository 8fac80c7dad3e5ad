module github.com/voltgrid/ingest-platform

go 1.23

require (
	github.com/IBM/sarama v1.43.3
	github.com/jackc/pgx/v5 v5.7.1
	github.com/prometheus/client_golang v1.20.5
	go.uber.org/zap v1.27.0
)
