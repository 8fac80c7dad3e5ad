class InspectionReportJob
  include Sidekiq::Job
  sidekiq_options queue: "reports", retry: 8

  def perform(report_id)
    report = InspectionReport.find(report_id)
    pdf = InspectionReportPdf.new(report).render
    report.pdf.attach(io: StringIO.new(pdf), filename: report.filename, content_type: "application/pdf")
    InspectionMailer.report_ready(report).deliver_later
  end
end
