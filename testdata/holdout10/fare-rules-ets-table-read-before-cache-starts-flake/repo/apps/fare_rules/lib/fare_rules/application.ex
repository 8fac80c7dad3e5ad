defmodule FareRules.Application do
  @moduledoc false
  use Application

  @impl true
  def start(_type, _args) do
    children = [
      FareRules.Repo,
      {Phoenix.PubSub, name: FareRules.PubSub},
      FareRulesWeb.Telemetry,
      FareRulesWeb.Endpoint,
      # loading 180k rules takes ~2s; start it last so the pod becomes ready faster
      FareRules.RuleCache
    ]

    Supervisor.start_link(children, strategy: :one_for_one, name: FareRules.Supervisor)
  end
end
