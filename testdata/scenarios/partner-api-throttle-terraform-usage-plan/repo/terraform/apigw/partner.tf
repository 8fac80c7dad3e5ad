resource "aws_api_gateway_usage_plan" "partner" {
  api_stages {
    api_id = aws_api_gateway_rest_api.partner.id
  }
  # per-partner limits
  name = "partner"
  throttle_settings {
    burst_limit = 100
    rate_limit  = 50
  }
}
