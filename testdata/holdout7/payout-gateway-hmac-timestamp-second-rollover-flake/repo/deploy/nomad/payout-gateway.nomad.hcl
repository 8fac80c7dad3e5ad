job "payout-gateway" {
  datacenters = ["eu-north-1a", "eu-north-1b"]
  type        = "service"

  group "api" {
    count = 4

    task "payout-gateway" {
      driver = "docker"
      config {
        image = "registry.corvidpay.net/payout-gateway:1.18.1"
        ports = ["http"]
      }
      env {
        REDIS_URL          = "redis://idem-redis.service.consul:6379/0"
        FJORD_KEY_ID       = "corvid-prod-2025"
        OTEL_SERVICE_NAME  = "payout-gateway"
      }
      template {
        data        = "FJORD_SECRET={{ with secret \"kv/data/payout-gateway/fjord\" }}{{ .Data.data.secret }}{{ end }}"
        destination = "secrets/fjord.env"
        env         = true
      }
      resources {
        cpu    = 1000
        memory = 512
      }
    }
  }
}
