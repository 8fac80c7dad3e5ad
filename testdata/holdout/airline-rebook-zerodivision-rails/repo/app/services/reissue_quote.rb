# frozen_string_literal: true

# Prices a voluntary change (reissue) of an existing order: the new offer's
# total minus what is left of the old tickets, plus the change fee of the fare
# rules, split across the passengers who pay for it.
class ReissueQuote
  Result = Struct.new(:fare_difference_cents, :change_fee_cents, :per_passenger_cents, :currency, keyword_init: true)

  class NotReissuable < StandardError; end

  def initialize(order, new_offer, fare_rules: FareRules.new)
    @order = order
    @new_offer = new_offer
    @fare_rules = fare_rules
  end

  def self.call(order, new_offer)
    new(order, new_offer).call
  end

  def call
    raise NotReissuable, "order #{order.locator} is #{order.state}" unless order.changeable?

    diff_cents = [new_offer.total_cents - order.residual_value_cents, 0].max
    fee_cents = fare_rules.change_fee_cents(order.fare_basis, departure: order.first_departure_at)

    Result.new(
      fare_difference_cents: diff_cents,
      change_fee_cents: fee_cents,
      per_passenger_cents: per_passenger(diff_cents + fee_cents),
      currency: new_offer.currency
    )
  end

  private

  attr_reader :order, :new_offer, :fare_rules

  # Lap infants travel free and waitlisted passengers are not charged until
  # they clear, so neither takes a share of the change.
  def per_passenger(total_cents)
    payable = order.passengers.count(&:ticketed?)
    remainder = total_cents % payable
    (total_cents / payable) + (remainder.positive? ? 1 : 0)
  end
end
