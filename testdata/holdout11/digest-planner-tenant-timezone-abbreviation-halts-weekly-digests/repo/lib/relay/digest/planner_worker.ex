defmodule Relay.Digest.PlannerWorker do
  use Oban.Worker, queue: :scheduler, max_attempts: 5

  # Cron: "0 6 * * MON" (config/runtime.exs)
  @impl Oban.Worker
  def perform(%Oban.Job{}) do
    Relay.Digest.Planner.plan_all()
    :ok
  end
end
