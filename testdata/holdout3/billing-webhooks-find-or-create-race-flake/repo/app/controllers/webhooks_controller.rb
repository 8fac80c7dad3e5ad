# frozen_string_literal: true

class WebhooksController < ActionController::API
  SYNCS = {
    "invoice." => Billing::StripeInvoiceSync,
    "customer.subscription." => Billing::StripeSubscriptionSync,
    "charge.dispute." => Billing::DisputeSync,
  }.freeze

  def stripe
    event = Stripe::Webhook.construct_event(request.raw_post, request.headers["Stripe-Signature"], Rails.configuration.x.stripe.webhook_secret)
    Current.stripe_event = event.id
    sync = SYNCS.find { |prefix, _| event.type.start_with?(prefix) }&.last
    return head :ok unless sync

    ActiveRecord::Base.transaction do
      sync.new(event).call
    end
    head :ok
  rescue Stripe::SignatureVerificationError, JSON::ParserError
    head :bad_request
  end
end
