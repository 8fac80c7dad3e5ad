defmodule BidhallWeb.BidController do
  use BidhallWeb, :controller

  alias Bidhall.Auctions.Lots

  action_fallback BidhallWeb.FallbackController

  def create(conn, %{"lot_id" => lot_id, "amount_cents" => amount}) do
    bidder = conn.assigns.current_bidder

    with {:ok, high_bid} <- Lots.place_bid(String.to_integer(lot_id), bidder.id, amount) do
      json(conn, %{high_bid: high_bid})
    end
  end
end
