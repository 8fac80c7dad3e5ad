defmodule Relay.Tenants.Tenant do
  use Ecto.Schema
  import Ecto.Changeset

  schema "tenants" do
    field :name, :string
    field :status, Ecto.Enum, values: [:active, :suspended, :closed]
    field :timezone, :string, default: "Etc/UTC"
    field :digest_enabled, :boolean, default: true
    timestamps()
  end

  def settings_changeset(tenant, attrs) do
    tenant
    |> cast(attrs, [:name, :timezone, :digest_enabled])
    |> validate_required([:name, :timezone])
    |> validate_length(:timezone, min: 2, max: 64)
  end
end
