# frozen_string_literal: true

class ProductPresenter
  def initialize(product, locale:)
    @product = product
    @locale = locale
  end

  def as_json(*)
    {
      sku: @product.sku,
      name: @product.name,
      brand: @product.brand,
      image: @product.images.first&.url,
      price: PricePresenter.new(@product.price, locale: @locale).as_json
    }
  end
end
