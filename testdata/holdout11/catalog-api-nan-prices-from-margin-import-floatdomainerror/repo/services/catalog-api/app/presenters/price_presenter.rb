# frozen_string_literal: true

# Renders a product price for the storefront. Prices are stored in Mongo as
# floats in major units (price.amount, price.currency); the storefront wants cents.
class PricePresenter
  def initialize(price, locale:)
    @price = price
    @locale = locale
  end

  def as_json(*)
    amount = @price.fetch("amount")
    cents = (amount * 100).round
    {
      cents: cents,
      currency: @price.fetch("currency"),
      formatted: Money.new(cents, @price.fetch("currency")).format(locale: @locale)
    }
  end
end
