defmodule Notifier.AMQP.Publisher do
  @moduledoc """
  Owns the AMQP connection used to publish notification jobs. Reconnects with
  a fixed backoff; while disconnected, `publish!/3` raises so the caller
  answers 5xx and the sender retries.
  """
  use GenServer
  require Logger

  @reconnect_ms 5_000

  def start_link(opts), do: GenServer.start_link(__MODULE__, opts, name: __MODULE__)

  @impl true
  def init(opts) do
    send(self(), :connect)
    {:ok, %{url: Keyword.fetch!(opts, :url), chan: nil, status: :connecting}}
  end

  @impl true
  def handle_info(:connect, state) do
    case AMQP.Connection.open(state.url, name: "notifier") do
      {:ok, conn} ->
        Process.monitor(conn.pid)
        {:ok, chan} = AMQP.Channel.open(conn)
        Logger.info("AMQP connected to #{URI.parse(state.url).host}")
        {:noreply, %{state | chan: chan, status: :connected}}

      {:error, reason} ->
        Logger.error("AMQP connection to #{URI.parse(state.url).host} failed: #{inspect(reason)}, retrying in #{@reconnect_ms}ms")
        Process.send_after(self(), :connect, @reconnect_ms)
        {:noreply, %{state | chan: nil, status: reason}}
    end
  end

  def handle_info({:DOWN, _, :process, _pid, reason}, state) do
    Logger.warning("AMQP connection lost: #{inspect(reason)}")
    send(self(), :connect)
    {:noreply, %{state | chan: nil, status: :connecting}}
  end

  @impl true
  def handle_call({:publish, exchange, key, payload}, _from, %{chan: nil} = state) do
    {:reply, {:error, state.status}, state}
  end

  def handle_call({:publish, exchange, key, payload}, _from, state) do
    {:reply, AMQP.Basic.publish(state.chan, exchange, key, payload, persistent: true), state}
  end

  def publish!(exchange, key, payload) do
    case GenServer.call(__MODULE__, {:publish, exchange, key, payload}) do
      :ok -> :ok
      {:error, status} -> raise "AMQP channel not available (connection state: #{inspect(status)})"
    end
  end
end
