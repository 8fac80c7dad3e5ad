defmodule SkyreachPartyWeb.PartyController do
  use SkyreachPartyWeb, :controller

  alias SkyreachParty.Parties.{Create, Join, Leave}

  action_fallback SkyreachPartyWeb.FallbackController

  def create(conn, params) do
    player = conn.assigns.player

    with {:ok, party} <- Create.run(player, Map.get(params, "region")) do
      conn |> put_status(:created) |> render(:show, party: party, hints: [])
    end
  end

  def join(conn, %{"id" => party_id} = params) do
    player = conn.assigns.player
    source = params |> Map.get("source", "link") |> String.to_existing_atom()

    with {:ok, party, hints} <- Join.run(party_id, player, source: source) do
      render(conn, :show, party: party, hints: hints)
    end
  end

  def leave(conn, %{"id" => party_id}) do
    with :ok <- Leave.run(party_id, conn.assigns.player) do
      send_resp(conn, :no_content, "")
    end
  end
end
