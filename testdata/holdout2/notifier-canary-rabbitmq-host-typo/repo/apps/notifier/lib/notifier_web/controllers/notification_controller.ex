defmodule NotifierWeb.NotificationController do
  use NotifierWeb, :controller

  alias Notifier.AMQP.Publisher
  alias Notifier.Notifications

  action_fallback NotifierWeb.FallbackController

  @doc "POST /api/v1/notifications: validates and enqueues one notification job."
  def create(conn, params) do
    with {:ok, job} <- Notifications.build_job(params) do
      Publisher.publish!(Application.fetch_env!(:notifier, :outage_exchange), job.routing_key, Jason.encode!(job))
      conn |> put_status(:accepted) |> json(%{id: job.id})
    end
  end
end
