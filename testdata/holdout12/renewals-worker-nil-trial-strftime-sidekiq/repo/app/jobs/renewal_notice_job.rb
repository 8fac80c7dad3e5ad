# frozen_string_literal: true

class RenewalNoticeJob
  include Sidekiq::Job
  sidekiq_options queue: :mailers, retry: 8

  def perform(subscription_id)
    subscription = Subscription.includes(:account, :plan, :trial).find(subscription_id)
    return if subscription.renewal_notice_sent_for?(subscription.current_period_end)

    payload = RenewalNoticeBuilder.new(subscription).build
    response = PostmarkClient.deliver_with_template(payload)
    subscription.record_renewal_notice!(subscription.current_period_end, response[:message_id])
  rescue Postmark::InactiveRecipientError => e
    Rails.logger.warn("renewal notice skipped: inactive recipient subscription_id=#{subscription_id} #{e.message}")
  end
end
