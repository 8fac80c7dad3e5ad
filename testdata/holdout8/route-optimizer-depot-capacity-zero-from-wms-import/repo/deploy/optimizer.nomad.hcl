job "route-optimizer" {
  datacenters = ["fra1"]
  type        = "service"

  group "workers" {
    count = 4

    task "optimizer" {
      driver = "docker"
      config {
        image = "registry.parcelnorth.eu/routing/route-optimizer:7.3.0"
      }
      env {
        AMQP_QUEUE          = "plan.requests"
        SOLVER_TIME_LIMIT_S = "30"
        ROUTING_DB_DSN      = "postgresql://optimizer@routing-db.service.consul:5432/routing"
      }
      resources {
        cpu    = 4000
        memory = 3072
      }
    }
  }
}
