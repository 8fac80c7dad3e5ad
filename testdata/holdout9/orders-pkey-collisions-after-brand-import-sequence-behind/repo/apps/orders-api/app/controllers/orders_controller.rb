class OrdersController < ApplicationController
  def create
    order = Orders::Create.call(cart: current_cart, customer: current_customer, params: order_params)
    render json: OrderSerializer.new(order), status: :created
  rescue Orders::PaymentDeclined => e
    render json: { error: "payment_declined", reason: e.message }, status: :payment_required
  end

  private

  def order_params
    params.require(:order).permit(:shipping_address_id, :gift_message, :payment_method_id)
  end
end
