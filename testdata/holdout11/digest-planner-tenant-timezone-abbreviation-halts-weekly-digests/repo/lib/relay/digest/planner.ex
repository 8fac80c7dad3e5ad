defmodule Relay.Digest.Planner do
  @moduledoc """
  Plans the weekly digest: one Relay.Digest.SendWorker job per active tenant,
  scheduled for Monday 08:00 in the tenant's own time zone.
  """
  import Ecto.Query

  alias Relay.Repo
  alias Relay.Tenants.Tenant
  alias Relay.Digest.SendWorker

  @send_hour 8

  def plan_all(now \\ DateTime.utc_now()) do
    tenants =
      from(t in Tenant,
        where: t.status == :active and t.digest_enabled,
        order_by: t.id,
        select: %{id: t.id, timezone: t.timezone}
      )
      |> Repo.all()

    Enum.each(tenants, fn tenant ->
      send_at = next_send_at(now, tenant.timezone)

      %{tenant_id: tenant.id, week: week_key(now)}
      |> SendWorker.new(scheduled_at: send_at, unique: [period: 7 * 86_400, keys: [:tenant_id, :week]])
      |> Oban.insert!()
    end)

    :telemetry.execute([:relay, :digest, :planned], %{count: length(tenants)})
  end

  def next_send_at(now, timezone) do
    local = DateTime.shift_zone!(now, timezone, Tzdata.TimeZoneDatabase)
    date = if local.hour < @send_hour, do: DateTime.to_date(local), else: Date.add(DateTime.to_date(local), 7)
    {:ok, naive} = NaiveDateTime.new(date, ~T[08:00:00])
    naive |> DateTime.from_naive!(timezone, Tzdata.TimeZoneDatabase) |> DateTime.shift_zone!("Etc/UTC")
  end

  defp week_key(now), do: Date.to_iso8601(Date.beginning_of_week(DateTime.to_date(now)))
end
