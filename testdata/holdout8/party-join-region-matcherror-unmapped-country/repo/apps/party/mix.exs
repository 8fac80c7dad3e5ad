defmodule SkyreachParty.MixProject do
  use Mix.Project

  def project do
    [
      app: :skyreach_party,
      version: "3.4.0",
      elixir: "~> 1.17",
      start_permanent: Mix.env() == :prod,
      deps: deps()
    ]
  end

  def application do
    [mod: {SkyreachParty.Application, []}, extra_applications: [:logger, :runtime_tools]]
  end

  defp deps do
    [
      {:phoenix, "~> 1.7.14"},
      {:bandit, "~> 1.5"},
      {:jason, "~> 1.4"},
      {:redix, "~> 1.5"},
      {:phoenix_pubsub, "~> 2.1"},
      {:opentelemetry, "~> 1.4"},
      {:opentelemetry_exporter, "~> 1.7"},
      {:opentelemetry_phoenix, "~> 1.2"},
      {:opentelemetry_bandit, "~> 0.1"},
      {:logger_json, "~> 6.0"}
    ]
  end
end
