defmodule Bidhall.Auctions.Lots do
  @moduledoc """
  One LotServer process per open lot, started on demand and registered by lot id.
  """

  alias Bidhall.Auctions.{Bid, LotServer}

  @registry Bidhall.Auctions.LotRegistry
  @supervisor Bidhall.Auctions.LotSupervisor

  def whereis(lot_id) do
    case Registry.lookup(@registry, lot_id) do
      [{pid, _}] -> pid
      [] -> nil
    end
  end

  def ensure_started(lot_id) do
    case whereis(lot_id) do
      nil ->
        {:ok, pid} = DynamicSupervisor.start_child(@supervisor, {LotServer, lot_id})
        pid

      pid ->
        pid
    end
  end

  def place_bid(lot_id, bidder_id, amount_cents) do
    lot_id
    |> ensure_started()
    |> LotServer.place_bid(%Bid{bidder_id: bidder_id, amount_cents: amount_cents, at: DateTime.utc_now()})
  end
end
