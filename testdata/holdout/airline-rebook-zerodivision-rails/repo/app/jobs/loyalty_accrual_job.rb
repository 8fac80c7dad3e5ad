# frozen_string_literal: true

# Credits miles for flown segments. Runs from the flown-segments feed; the
# loyalty service answers 409 when the segment was already credited.
class LoyaltyAccrualJob < ApplicationJob
  queue_as :loyalty
  sidekiq_options retry: 8

  BATCH_SIZE = 200

  def perform(segment_ids)
    Segment.where(id: segment_ids).includes(order: :passengers).find_in_batches(batch_size: BATCH_SIZE) do |batch|
      LoyaltyClient.accrue(batch.flat_map { |s| accruals_for(s) })
    end
  rescue LoyaltyClient::Conflict => e
    Rails.logger.info("loyalty accrual already recorded: #{e.message}")
  end

  private

  def accruals_for(segment)
    segment.order.passengers.select(&:ticketed?).map do |p|
      { member_number: p.frequent_flyer_number, flight: segment.flight_number, date: segment.departure_at.to_date }
    end.reject { |a| a[:member_number].blank? }
  end
end
