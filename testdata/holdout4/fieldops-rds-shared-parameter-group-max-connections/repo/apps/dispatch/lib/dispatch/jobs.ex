defmodule Dispatch.Jobs do
  import Ecto.Query

  alias Dispatch.Repo
  alias Dispatch.Jobs.Job

  def list_for_day(region_id, date) do
    from(j in Job,
      where: j.region_id == ^region_id and j.scheduled_on == ^date,
      order_by: [asc: j.window_start],
      preload: [:site, :technician]
    )
    |> Repo.all()
  end

  def assign(%Job{} = job, technician_id) do
    job
    |> Job.assign_changeset(%{technician_id: technician_id})
    |> Repo.update()
  end
end
