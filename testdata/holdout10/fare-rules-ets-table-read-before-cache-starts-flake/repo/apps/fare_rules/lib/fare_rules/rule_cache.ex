defmodule FareRules.RuleCache do
  use GenServer
  require Logger

  @table :fare_rules

  def start_link(_), do: GenServer.start_link(__MODULE__, nil, name: __MODULE__)

  def lookup(origin, dest, fare_class) do
    case :ets.lookup(@table, {origin, dest, fare_class}) do
      [{_, rule}] -> {:ok, rule}
      [] -> :error
    end
  end

  @impl true
  def init(nil) do
    :ets.new(@table, [:named_table, :set, :protected, read_concurrency: true])
    {:ok, nil, {:continue, :load}}
  end

  @impl true
  def handle_continue(:load, state) do
    rules = FareRules.Rules.all()
    :ets.insert(@table, Enum.map(rules, &{{&1.origin, &1.dest, &1.fare_class}, &1}))
    Logger.info("rule cache loaded", count: length(rules))
    {:noreply, state}
  end
end
