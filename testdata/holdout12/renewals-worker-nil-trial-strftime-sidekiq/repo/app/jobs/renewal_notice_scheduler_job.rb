# frozen_string_literal: true

# Runs hourly (config/sidekiq_cron.yml). Enqueues a notice for every
# subscription whose period ends in 7 days and has not been notified yet.
class RenewalNoticeSchedulerJob
  include Sidekiq::Job
  sidekiq_options queue: :default

  def perform
    ids = Subscription.active.renewing_between(7.days.from_now.beginning_of_hour, 7.days.from_now.end_of_hour).pluck(:id)
    Sidekiq::Client.push_bulk("class" => RenewalNoticeJob, "args" => ids.map { |id| [id] })
    Rails.logger.info("renewal notices enqueued count=#{ids.size}")
  end
end
