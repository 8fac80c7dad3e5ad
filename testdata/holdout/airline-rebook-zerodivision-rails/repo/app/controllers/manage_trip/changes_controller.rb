# frozen_string_literal: true

module ManageTrip
  # POST /api/v2/orders/:order_locator/changes
  # Quotes (and, with confirm=true, books) a date/flight change.
  class ChangesController < Api::BaseController
    before_action :load_order

    def create
      offer = FaresClient.reprice(@order, change_params[:segments])
      @order.begin_exchange!

      quote = ReissueQuote.call(@order, offer)
      if change_params[:confirm]
        exchange = Exchange.book!(@order, offer, quote, payment: change_params[:payment])
        render json: ExchangeSerializer.new(exchange), status: :created
      else
        @order.rollback_exchange!
        render json: QuoteSerializer.new(quote), status: :ok
      end
    rescue FaresClient::NoAvailability => e
      @order.rollback_exchange!
      render json: { error: "no_availability", detail: e.message }, status: :conflict
    end

    private

    def load_order
      @order = Order.includes(:passengers, :segments).find_by!(locator: params[:order_locator].upcase)
      authorize! :manage, @order
    end

    def change_params
      params.require(:change).permit(:confirm, segments: %i[origin destination date flight_number], payment: %i[token])
    end
  end
end
