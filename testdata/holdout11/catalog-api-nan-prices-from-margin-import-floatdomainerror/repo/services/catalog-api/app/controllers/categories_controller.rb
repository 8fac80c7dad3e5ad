# frozen_string_literal: true

class CategoriesController < ApplicationController
  PER_PAGE = 48

  def products
    category = Category.find_by!(slug: params[:slug])
    products = Product.where(category_ids: category.id, status: "active")
                      .order_by(rank: :desc)
                      .page(params.fetch(:page, 1)).per(PER_PAGE)
    render json: {
      category: category.slug,
      products: products.map { |p| ProductPresenter.new(p, locale: locale).as_json }
    }
  end
end
