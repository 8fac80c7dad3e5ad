class ProductsController < ApplicationController
  before_action :set_product, only: :show

  def index
    @category = Category.friendly.find(params[:category_id])
    @products = @category.products.visible.includes(:variants, :primary_image)
                         .order(params[:sort] == "price" ? :price_cents : :position)
                         .page(params[:page]).per(48)
  end

  def show
    @variants = @product.variants.in_stock.order(:position)
    @related = Product.related_to(@product).limit(8)
    fresh_when @product, public: false
  end

  private

  def set_product
    @product = Product.visible.friendly.find(params[:id])
  end
end
