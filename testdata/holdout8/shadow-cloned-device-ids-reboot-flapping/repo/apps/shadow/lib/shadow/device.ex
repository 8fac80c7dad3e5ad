defmodule Shadow.Device do
  @moduledoc """
  One process per device (Horde-registered). Holds the device shadow: last
  reading, boot id, sequence number and connectivity state, and emits
  device.* events for the notifier and the customer API.
  """
  use GenServer, restart: :transient
  require Logger

  alias Shadow.{Events, Store}

  @offline_after :timer.minutes(12)

  def start_link(device_id), do: GenServer.start_link(__MODULE__, device_id, name: via(device_id))
  def via(device_id), do: {:via, Horde.Registry, {Shadow.Registry, device_id}}

  @impl true
  def init(device_id) do
    state = Store.load(device_id) || %{device_id: device_id, boot_id: nil, seq: -1, online: false, last: nil}
    {:ok, state, @offline_after}
  end

  @impl true
  def handle_cast({:telemetry, msg}, %{boot_id: boot} = state) when boot != nil and msg.boot_id != boot do
    # A new boot id means the device restarted: sequence numbers start over.
    Logger.info("device rebooted",
      device_id: state.device_id, boot_id: msg.boot_id, previous_boot_id: boot,
      uptime_s: msg.uptime_s, cell_id: msg.cell_id, fw: msg.fw
    )

    if msg.uptime_s > 600 do
      Logger.warning("boot_id changed but uptime did not reset",
        device_id: state.device_id, boot_id: msg.boot_id, previous_boot_id: boot, uptime_s: msg.uptime_s
      )
    end

    Events.publish(:device_rebooted, state.device_id, %{boot_id: msg.boot_id})
    accept(%{state | boot_id: msg.boot_id, seq: -1}, msg)
  end

  def handle_cast({:telemetry, msg}, state) do
    if msg.seq <= state.seq do
      Logger.warning("sequence regression, dropping reading",
        device_id: state.device_id, seq: msg.seq, last_seq: state.seq, boot_id: msg.boot_id
      )
      {:noreply, state, @offline_after}
    else
      accept(%{state | boot_id: msg.boot_id}, msg)
    end
  end

  @impl true
  def handle_info(:timeout, state) do
    Logger.info("device offline", device_id: state.device_id, last_seen: state.last && state.last.ts)
    Events.publish(:device_offline, state.device_id, %{})
    {:noreply, %{state | online: false}}
  end

  defp accept(state, msg) do
    unless state.online, do: Events.publish(:device_online, state.device_id, %{})
    state = %{state | seq: msg.seq, online: true, last: msg}
    Store.save(state)
    {:noreply, state, @offline_after}
  end
end
