# frozen_string_literal: true

# Prices a new order from a fares offer. Taxes are per passenger, the base
# fare is split evenly across the passengers who occupy a seat.
class BookingPricer
  def initialize(offer, passengers)
    @offer = offer
    @passengers = passengers
  end

  def call
    seated = @passengers.count(&:chargeable?)
    return zero_price if seated.zero?

    base_each = @offer.base_fare_cents / seated
    {
      base_fare_cents: base_each * seated,
      taxes_cents: @passengers.sum { |p| @offer.tax_cents_for(p.pax_type) },
      currency: @offer.currency
    }
  end

  private

  def zero_price
    { base_fare_cents: 0, taxes_cents: 0, currency: @offer.currency }
  end
end
