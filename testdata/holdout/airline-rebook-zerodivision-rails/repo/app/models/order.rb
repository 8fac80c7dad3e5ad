# frozen_string_literal: true

class Order < ApplicationRecord
  has_many :passengers, dependent: :destroy
  has_many :segments, -> { order(:departure_at) }, dependent: :destroy

  CHANGEABLE_STATES = %w[ticketed partially_flown].freeze

  def changeable?
    CHANGEABLE_STATES.include?(state)
  end

  def first_departure_at
    segments.first&.departure_at
  end

  # Marks every passenger's ticket as being exchanged so that check-in and
  # the schedule-change robot leave the order alone while we reprice it.
  def begin_exchange!
    transaction do
      passengers.each { |p| p.update!(ticket_status: :exchange_pending) unless p.void? }
      update!(exchange_started_at: Time.current)
    end
  end

  def rollback_exchange!
    transaction do
      passengers.each { |p| p.update!(ticket_status: :ticketed) if p.exchange_pending? }
      update!(exchange_started_at: nil)
    end
  end

  def residual_value_cents
    passengers.sum { |p| p.tickets.sum(&:unused_value_cents) }
  end
end
