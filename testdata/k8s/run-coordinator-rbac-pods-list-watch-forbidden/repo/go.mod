module github.com/quarry/pipelines-control

go 1.23

require (
	github.com/jackc/pgx/v5 v5.7.1
	k8s.io/api v0.31.2
	k8s.io/apimachinery v0.31.2
	k8s.io/client-go v0.31.2
)
