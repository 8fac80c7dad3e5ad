# frozen_string_literal: true

class Subscription < ApplicationRecord
  belongs_to :account
  belongs_to :plan
  has_one :trial, dependent: :destroy
  has_many :renewal_notices, dependent: :delete_all

  scope :active, -> { where(status: %w[active past_due]) }
  scope :renewing_between, ->(from, to) { where(current_period_end: from..to) }

  def renewal_notice_sent_for?(period_end)
    renewal_notices.exists?(period_end: period_end)
  end

  def record_renewal_notice!(period_end, message_id)
    renewal_notices.create!(period_end: period_end, postmark_message_id: message_id)
  end
end
