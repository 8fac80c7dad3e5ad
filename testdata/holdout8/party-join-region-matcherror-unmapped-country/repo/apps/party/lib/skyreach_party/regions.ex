defmodule SkyreachParty.Regions do
  @moduledoc """
  Matchmaking regions and the default region for a player's country.

  Countries that are not listed have no default; the client then lets the
  player pick from the ping table.
  """

  @regions ~w(na-east na-west sa-east eu-west eu-central ap-northeast ap-southeast oce)

  @country_regions %{
    "US" => "na-east", "CA" => "na-east", "MX" => "na-west",
    "BR" => "sa-east", "AR" => "sa-east", "CL" => "sa-east",
    "GB" => "eu-west", "IE" => "eu-west", "FR" => "eu-west", "ES" => "eu-west", "PT" => "eu-west",
    "DE" => "eu-central", "PL" => "eu-central", "NL" => "eu-central", "SE" => "eu-central", "IT" => "eu-central",
    "JP" => "ap-northeast", "KR" => "ap-northeast", "TW" => "ap-northeast",
    "SG" => "ap-southeast", "PH" => "ap-southeast", "TH" => "ap-southeast", "ID" => "ap-southeast",
    "AU" => "oce", "NZ" => "oce"
  }

  def all, do: @regions

  @spec preferred_for(String.t() | nil) :: {:ok, String.t()} | :error
  def preferred_for(nil), do: :error
  def preferred_for(country), do: Map.fetch(@country_regions, String.upcase(country))
end
