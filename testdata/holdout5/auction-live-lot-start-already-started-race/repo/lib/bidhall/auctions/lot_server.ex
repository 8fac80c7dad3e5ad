defmodule Bidhall.Auctions.LotServer do
  use GenServer, restart: :transient

  @idle_timeout :timer.minutes(5)

  def start_link(lot_id) do
    GenServer.start_link(__MODULE__, lot_id, name: {:via, Registry, {Bidhall.Auctions.LotRegistry, lot_id}})
  end

  def place_bid(pid, bid), do: GenServer.call(pid, {:bid, bid})

  @impl true
  def init(lot_id) do
    {:ok, Bidhall.Auctions.LotState.load!(lot_id), @idle_timeout}
  end

  @impl true
  def handle_call({:bid, bid}, _from, state) do
    case Bidhall.Auctions.LotState.apply_bid(state, bid) do
      {:ok, state} -> {:reply, {:ok, state.high_bid}, state, @idle_timeout}
      {:error, reason} -> {:reply, {:error, reason}, state, @idle_timeout}
    end
  end

  @impl true
  def handle_info(:timeout, state), do: {:stop, :normal, state}
end
