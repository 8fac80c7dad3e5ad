# frozen_string_literal: true

# Builds the Postmark payload for the "your plan renews in 7 days" email.
class RenewalNoticeBuilder
  DATE_FORMAT = "%B %-d, %Y"

  def initialize(subscription)
    @subscription = subscription
  end

  def build
    trial_end = subscription.trial&.ends_at

    {
      From: "billing@quillpad.io",
      To: subscription.account.billing_email,
      TemplateAlias: "renewal-notice",
      MessageStream: "outbound",
      TemplateModel: {
        account_name: subscription.account.name,
        plan_name: subscription.plan.display_name,
        renews_on: subscription.current_period_end.strftime(DATE_FORMAT),
        amount: Money.new(subscription.plan.price_cents, subscription.currency).format,
        seats: subscription.seats,
        trial_ended_on: trial_end.strftime(DATE_FORMAT),
        manage_url: Rails.application.routes.url_helpers.billing_url(host: "app.quillpad.io")
      }
    }
  end

  private

  attr_reader :subscription
end
