class InspectionsController < ApplicationController
  before_action :load_inspection

  def complete
    Inspection.transaction do
      @inspection.update!(state: "completed", completed_at: Time.current)
      report = @inspection.create_report!(status: "submitted", summary: params[:summary], author: current_user)
      @inspection.rooms.each do |room|
        report.room_notes.create!(room: room, condition: params.dig(:rooms, room.id.to_s, :condition),
                                  notes: params.dig(:rooms, room.id.to_s, :notes))
      end
      @inspection.property.touch(:last_inspected_at)
    end
    redirect_to inspection_path(@inspection), notice: t(".completed")
  end

  private

  def load_inspection
    @inspection = current_agency.inspections.find(params[:id])
  end
end
