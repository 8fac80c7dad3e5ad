defmodule SkyreachParty.Parties.Join do
  @moduledoc """
  A player joins an existing party (invite link, friend list or quick-join).

  The party keeps the leader's preferred matchmaking region; when the joining
  player is far from it we warn the client so the UI can show the ping badge.
  """

  require Logger

  alias SkyreachParty.Parties.{Party, Store}
  alias SkyreachParty.{Players, Regions}

  @max_size 4

  @type error :: :not_found | :full | :locked | :banned

  @spec run(String.t(), Players.Player.t(), keyword()) :: {:ok, Party.t(), [atom()]} | {:error, error()}
  def run(party_id, player, opts \\ []) do
    with {:ok, party} <- Store.fetch(party_id),
         :ok <- check_open(party, player),
         :ok <- check_size(party) do
      do_join(party, player, opts)
    end
  end

  defp check_open(%Party{locked: true}, _player), do: {:error, :locked}

  defp check_open(%Party{banned: banned}, %{id: id}) do
    if id in banned, do: {:error, :banned}, else: :ok
  end

  defp check_size(%Party{members: members}) when length(members) >= @max_size, do: {:error, :full}
  defp check_size(_party), do: :ok

  defp do_join(party, player, opts) do
    # Region affinity (SKY-1873): keep the leader's region and flag joiners
    # whose own preferred region differs, so the client can show a ping badge.
    {:ok, player_region} = Regions.preferred_for(player.country)
    hints = if player_region != party.region, do: [:cross_region], else: []

    party = %Party{party | members: party.members ++ [Players.summary(player)]}

    case Store.put(party, source: Keyword.get(opts, :source, :link)) do
      :ok ->
        Phoenix.PubSub.broadcast(SkyreachParty.PubSub, "party:" <> party.id, {:member_joined, player.id})
        Logger.info("player joined party", party_id: party.id, player_id: player.id, size: length(party.members))
        {:ok, party, hints}

      {:error, reason} = err ->
        Logger.warning("party store write failed", party_id: party.id, reason: inspect(reason))
        err
    end
  end
end
