class InspectionReport < ApplicationRecord
  belongs_to :inspection
  belongs_to :author, class_name: "User"
  has_many :room_notes, dependent: :destroy
  has_one_attached :pdf

  enum :status, { draft: "draft", submitted: "submitted", signed: "signed" }, validate: true

  after_save :enqueue_render, if: :saved_change_to_status?

  def filename
    "inspection-#{inspection.reference}-#{created_at.to_date.iso8601}.pdf"
  end

  private

  def enqueue_render
    InspectionReportJob.perform_async(id) if submitted?
  end
end
