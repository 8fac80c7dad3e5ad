# frozen_string_literal: true

Stripe.api_key = Rails.application.credentials.dig(:stripe, :secret_key)
Stripe.api_version = "2025-09-30.clover"
Stripe.max_network_retries = 2
Rails.configuration.x.stripe.webhook_secret = Rails.application.credentials.dig(:stripe, :webhook_secret)
