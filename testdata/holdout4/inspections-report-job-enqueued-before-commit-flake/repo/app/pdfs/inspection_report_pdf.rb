class InspectionReportPdf
  LETTERHEAD = Rails.root.join("app/assets/images/letterhead-2026.png")

  def initialize(report)
    @report = report
  end

  def render
    Prawn::Document.new(page_size: "A4", margin: [72, 48, 48, 48]) do |pdf|
      pdf.image LETTERHEAD, width: 180
      pdf.text @report.inspection.property.address, size: 14, style: :bold
      @report.room_notes.includes(:room).each { |note| pdf.text "#{note.room.name}: #{note.condition}" }
    end.render
  end
end
